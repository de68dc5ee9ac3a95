-- Event search executions, idempotency claims, and the receive order search cuts counts off by.

-- The order in which the service received reports. A search cuts its counts off at the last
-- value handed out when it executed, so a report that arrives later is never counted by it,
-- even one arriving in the same millisecond (or, on the frozen test clock, the same instant).
ALTER TABLE reports ADD COLUMN received_seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX reports_event_received;
CREATE INDEX reports_event_seq ON reports (event_id, received_seq);

-- The first of an event's reports to arrive: an event had no counted report at a cut-off
-- before it, so a search executed then does not see it.
ALTER TABLE events ADD COLUMN first_report_seq bigint;
UPDATE events e SET first_report_seq = (SELECT min(r.received_seq) FROM reports r WHERE r.event_id = e.id);

-- Counting a search's matches reads the receive cut-off from the order indexes, not the
-- events' heap pages.
DROP INDEX events_live_order;
CREATE INDEX events_live_order ON events (first_report_date DESC, id DESC) INCLUDE (first_report_seq)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_type_order;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC, id DESC) INCLUDE (first_report_seq)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;

-- Entity filters read the event's first report date beside its entities, so a search's window
-- prunes inside the entity index instead of visiting every event an entity ever had. Every
-- writer of event_entities writes it from the event row, in the same transaction.
ALTER TABLE event_entities ADD COLUMN first_report_date timestamptz;
UPDATE event_entities ee SET first_report_date = e.first_report_date FROM events e WHERE e.id = ee.event_id;
ALTER TABLE event_entities ALTER COLUMN first_report_date SET NOT NULL;
DROP INDEX event_entities_entity;
CREATE INDEX event_entities_entity ON event_entities (entity_id, first_report_date) INCLUDE (event_id, participant);

-- A charged, cursor-less search. Continuation pages re-run its filter against the corpus as
-- currently known, with counts cut off at report_seq and the window fixed at execution.
CREATE TABLE search_executions (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  api_key_id   uuid NOT NULL REFERENCES api_keys (id),
  filter       jsonb NOT NULL, -- the request's filter fields, defaults filled in
  window_start timestamptz NOT NULL,
  executed_at  timestamptz NOT NULL,
  report_seq   bigint NOT NULL, -- counts cover reports with received_seq up to this
  expires_at   timestamptz NOT NULL,
  total_count  integer NOT NULL,
  max_results  integer NOT NULL,
  credits      integer NOT NULL
);
CREATE INDEX search_executions_expires ON search_executions (expires_at);

-- One row per (API key, Idempotency-Key). In flight while completed_at is null; the owner
-- token lets only the request holding the claim settle it, even after a stale takeover.
CREATE TABLE idempotency_claims (
  api_key_id       uuid NOT NULL REFERENCES api_keys (id),
  idempotency_key  text NOT NULL,
  fingerprint      bytea NOT NULL, -- SHA-256 of transport, method, path and body bytes
  billed           boolean NOT NULL,
  owner            uuid NOT NULL,
  claimed_at       timestamptz NOT NULL,
  completed_at     timestamptz,
  response_status  integer,
  response_headers jsonb,
  response_body    bytea,
  PRIMARY KEY (api_key_id, idempotency_key)
);
CREATE INDEX idempotency_claims_claimed ON idempotency_claims (claimed_at);
