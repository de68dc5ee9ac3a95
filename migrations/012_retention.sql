-- Retention (docs/api-reference.md, "Retention"): what only matters for a while is deleted
-- once it stops mattering, in small batches by whichever process runs background work
-- (src/platform/retention.ts). These indexes let each sweep find its oldest rows without
-- reading the table; the first start after this migration builds them over every row
-- kept until now.

-- Finished jobs, by when they finished. Jobs with a dedupe key are never deleted: the key
-- promises at most one such job ever.
CREATE INDEX jobs_finished ON jobs (status, finished_at) WHERE status IN ('done', 'failed') AND dedupe_key IS NULL;

-- Webhook deliveries leave the delivery log 30 days after their latest attempt. The log
-- alone said which sensors were sent which event, which is what keeps `event.matched` to
-- once per (sensor, event) ever and tells who gets `event.merged`; that fact outlives the
-- log here, one small row per (sensor, event, kind), deleted with its sensor.
CREATE TABLE sensor_sent_events (
  event_id  uuid NOT NULL,
  type      text NOT NULL CHECK (type IN ('event.matched', 'event.merged')),
  sensor_id uuid NOT NULL REFERENCES sensors (id) ON DELETE CASCADE,
  PRIMARY KEY (event_id, type, sensor_id)
);
CREATE INDEX sensor_sent_events_sensor ON sensor_sent_events (sensor_id);
INSERT INTO sensor_sent_events (event_id, type, sensor_id)
SELECT event_id, type, sensor_id FROM sensor_deliveries WHERE type <> 'sensor.test';
-- The delivery log no longer decides "once ever", nor answers "who was sent this event".
DROP INDEX sensor_deliveries_once;
DROP INDEX sensor_deliveries_event;
CREATE INDEX sensor_deliveries_created ON sensor_deliveries (created_at);
-- When a delivery was last made pending again by a redelivery: written on the delivery's own
-- row, so a sweep that locks the row sees a redelivery that committed while it ran.
ALTER TABLE sensor_deliveries ADD COLUMN redelivered_at timestamptz;

-- Console sessions that ended by idling or by age, and failed sign-ins that no longer count.
CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen_at);
CREATE INDEX console_sessions_created ON console_sessions (created_at);
CREATE INDEX console_sign_in_failures_last ON console_sign_in_failures (last_failure_at);
