-- Event search executions, idempotency claims, and the receive order search cuts counts off by.

-- The order in which the service received reports. A search cuts its counts off at the last
-- value handed out when it executed, so a report that arrives later is never counted by it,
-- even one arriving in the same millisecond (or, on the frozen test clock, the same instant).
ALTER TABLE reports ADD COLUMN received_seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX reports_event_received;
CREATE INDEX reports_event_seq ON reports (event_id, received_seq);

-- The search index of events (src/modules/corpus/event-index.ts rebuilds an event's rows
-- whenever it is refreshed). Each row carries the event's first report date, so a search's
-- window prunes inside these indexes.
--
-- source_seqs: when the event reached each of its distinct sources, ascending: it had N
-- sources by a cut-off C when source_seqs[N] <= C (so source_seqs[1] is its first report).
ALTER TABLE events ADD COLUMN source_seqs bigint[] NOT NULL DEFAULT '{}';

-- An event's distinct sources: an outlet, or for structured reports the filing account.
CREATE TABLE event_sources (
  event_id          uuid NOT NULL REFERENCES events (id),
  source_id         uuid NOT NULL,
  source_kind       text NOT NULL,
  first_seq         bigint NOT NULL, -- the source's first report to arrive
  first_report_date timestamptz NOT NULL, -- the event's
  PRIMARY KEY (event_id, source_id)
);
CREATE INDEX event_sources_source ON event_sources (source_id, first_report_date) INCLUDE (event_id, first_seq, source_kind);

-- An event's role values (entity by live survivor, unit case-folded), one row per report value.
CREATE TABLE event_role_values (
  event_id          uuid NOT NULL REFERENCES events (id),
  role_id           uuid NOT NULL,
  source_kind       text NOT NULL,
  seq               bigint NOT NULL, -- the report's received_seq
  first_report_date timestamptz NOT NULL, -- the event's
  entity_id         uuid,
  date_value        date,
  amount_value      double precision,
  amount_unit       text
);
CREATE INDEX event_role_values_event ON event_role_values (event_id);
CREATE INDEX event_role_values_entity ON event_role_values (entity_id) WHERE entity_id IS NOT NULL; -- entity merges
CREATE INDEX event_role_values_role ON event_role_values (role_id, first_report_date)
  INCLUDE (event_id, seq, source_kind, entity_id, date_value, amount_value, amount_unit);

INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, min(r.received_seq), e.first_report_date
  FROM reports r JOIN events e ON e.id = r.event_id
 WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
 GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date;
UPDATE events e SET source_seqs = s.seqs
  FROM (SELECT event_id, array_agg(first_seq ORDER BY first_seq) AS seqs FROM event_sources GROUP BY event_id) s
 WHERE e.id = s.event_id;
INSERT INTO event_role_values (event_id, role_id, source_kind, seq, first_report_date, entity_id, date_value, amount_value, amount_unit)
SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq, e.first_report_date, live.id, rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
  FROM report_roles rr
  JOIN reports r ON r.id = rr.report_id
  JOIN events e ON e.id = r.event_id
  LEFT JOIN entities ent ON ent.id = rr.entity_id
  LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
 WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
   AND (rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL);

-- Counting a search's matches reads the cut-off from the order indexes, not the heap.
DROP INDEX events_live_order;
CREATE INDEX events_live_order ON events (first_report_date DESC, id DESC) INCLUDE (source_seqs)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_type_order;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC, id DESC) INCLUDE (source_seqs)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
-- Filters driven from an index table (entities, outlets, role values) look their events up
-- by id; this answers those look-ups without visiting the events' heap pages.
CREATE INDEX events_live_id ON events (id) INCLUDE (event_type_id, first_report_date, source_seqs)
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
