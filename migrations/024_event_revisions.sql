-- Events by id, revisions and update deliveries (decisions.md, 2026-11-28).
--
-- An event's revisions: one row per committed change of its search-event view, written in the
-- transaction of the change (corpus/event-revisions.ts). `state` is the view as the latest
-- revision left it (the fields that can change, corpus/revision-changes.ts), what the next
-- revision is told apart from; when a newer revision supersedes a row, its state goes and
-- `superseded_at` is set. Kept 90 days; an event's latest revision whatever its age.
-- No foreign key to events: events are never deleted (deleted_at), and its check would lock
-- each event's row once more for every revision a bulk load writes.
CREATE TABLE event_revisions (
  event_id         uuid NOT NULL,
  revision         integer NOT NULL,
  created_at       timestamptz NOT NULL,
  changes          jsonb NOT NULL,
  merged_event_ids uuid[] NOT NULL DEFAULT '{}',
  -- The latest revision's view; NULL once superseded, and for the revision 1 given below to
  -- events stored before revisions were kept (their state then was not recorded, so their next
  -- revision lists no changes).
  state            jsonb,
  superseded_at    timestamptz,
  PRIMARY KEY (event_id, revision)
);
-- What the retention sweep may delete: superseded revisions, by age (latest ones never enter).
CREATE INDEX event_revisions_superseded ON event_revisions (created_at) WHERE superseded_at IS NOT NULL;

INSERT INTO event_revisions (event_id, revision, created_at, changes)
SELECT id, 1, updated_at, '{}' FROM events WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;

-- Sensors that follow what they delivered: `event.updated` deliveries (decisions.md).
ALTER TABLE sensors ADD COLUMN deliver_updates boolean NOT NULL DEFAULT false;

ALTER TABLE sensor_deliveries DROP CONSTRAINT sensor_deliveries_type_check;
ALTER TABLE sensor_deliveries ADD CONSTRAINT sensor_deliveries_type_check
  CHECK (type IN ('event.matched', 'event.merged', 'event.updated', 'sensor.test'));

-- What a sensor was last told of an event it was sent `event.matched` for, on that row of
-- sensor_sent_events: when the match was sent (updates follow it for 30 days), the event's
-- revision and state its latest delivery carried (an update tells the changes since), when its
-- latest `event.updated` was made (one per 10 minutes), and when the next one is due (a job is
-- waiting to make it). Rows sent before this migration have no sent_at and get no updates.
ALTER TABLE sensor_sent_events
  ADD COLUMN sent_at timestamptz,
  ADD COLUMN revision integer,
  ADD COLUMN state jsonb,
  ADD COLUMN updated_at timestamptz,
  ADD COLUMN update_due_at timestamptz;
