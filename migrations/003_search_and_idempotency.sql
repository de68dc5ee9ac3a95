-- Event search executions, idempotency claims, and the one event column search needs to
-- cut counts off cheaply.

-- The earliest receive time of an event's reports: an event whose reports all arrived after
-- a search was executed had no counted report at that time, so it matches nothing then.
ALTER TABLE events ADD COLUMN first_received_at timestamptz;
UPDATE events e SET first_received_at = (SELECT min(r.received_at) FROM reports r WHERE r.event_id = e.id);

-- A charged, cursor-less search. Continuation pages re-run its filter against the corpus as
-- currently known, with counts cut off at executed_at and the window fixed at execution.
CREATE TABLE search_executions (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  api_key_id   uuid NOT NULL REFERENCES api_keys (id),
  filter       jsonb NOT NULL, -- the request's filter fields, defaults filled in
  window_start timestamptz NOT NULL,
  executed_at  timestamptz NOT NULL,
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
