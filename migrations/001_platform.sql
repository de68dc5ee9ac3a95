-- Platform foundation: settings, plans, accounts, credits, API keys, jobs, rate counters.

CREATE TABLE settings (
  name  text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE plans (
  name                               text PRIMARY KEY,
  beats_max                          integer NOT NULL CHECK (beats_max >= 0),
  clauses_max                        integer NOT NULL CHECK (clauses_max >= 0),
  default_spend_cap_credits          integer NOT NULL CHECK (default_spend_cap_credits >= 0),
  retention_days                     integer NOT NULL CHECK (retention_days >= 1),
  backfill_days                      integer NOT NULL CHECK (backfill_days >= 0),
  search_credit_cost                 integer NOT NULL CHECK (search_credit_cost >= 0),
  beat_entry_credit_cost             integer NOT NULL CHECK (beat_entry_credit_cost >= 0),
  rest_requests_per_minute           integer NOT NULL CHECK (rest_requests_per_minute >= 1),
  mcp_requests_per_minute            integer NOT NULL CHECK (mcp_requests_per_minute >= 1),
  search_execution_retention_seconds integer NOT NULL CHECK (search_execution_retention_seconds >= 1),
  search_max_results                 integer NOT NULL CHECK (search_max_results >= 1),
  created_at                         timestamptz NOT NULL,
  updated_at                         timestamptz NOT NULL
);

-- Defaults of the plan "standard" (decisions.md, Plans).
INSERT INTO plans VALUES ('standard', 10, 100, 1000, 90, 7, 1, 1, 60, 60, 86400, 1000,
  '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');

CREATE TABLE accounts (
  id                   uuid PRIMARY KEY,
  display_name         text,
  kind                 text NOT NULL CHECK (kind IN ('INDIVIDUAL', 'ORGANIZATION')),
  plan                 text NOT NULL REFERENCES plans (name),
  credit_balance       bigint NOT NULL DEFAULT 0 CHECK (credit_balance >= 0),
  structured_reporting boolean NOT NULL DEFAULT false,
  entity_reporting     boolean NOT NULL DEFAULT false,
  beats                boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);

-- Append-only: the balance always equals the sum of an account's rows.
CREATE TABLE credit_ledger (
  id            bigserial PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  amount        bigint NOT NULL,
  balance_after bigint NOT NULL CHECK (balance_after >= 0),
  reason        text NOT NULL,
  created_at    timestamptz NOT NULL
);
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, id);

CREATE TABLE api_keys (
  id         uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  name       text NOT NULL,
  scopes     text[] NOT NULL,
  prefix     text NOT NULL,
  key_hash   bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_active ON api_keys (account_id) WHERE revoked_at IS NULL;

-- Durable background work (src/platform/jobs.ts).
CREATE TABLE jobs (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  run_at       timestamptz NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  locked_until timestamptz,
  locked_by    text,
  last_error   text,
  dedupe_key   text UNIQUE,
  created_at   timestamptz NOT NULL,
  finished_at  timestamptz
);
CREATE INDEX jobs_due ON jobs (run_at, id) WHERE status = 'pending';
CREATE INDEX jobs_running ON jobs (locked_until) WHERE status = 'running';

-- Shared rate-limit state for several processes on one PostgreSQL (src/platform/rate-limits).
CREATE TABLE rate_counters (
  bucket       text NOT NULL,
  subject      text NOT NULL,
  window_start bigint NOT NULL,
  hits         integer NOT NULL,
  last_grant   integer NOT NULL DEFAULT 0, -- requests granted by the latest lease (key budgets)
  PRIMARY KEY (bucket, subject, window_start)
);

CREATE TABLE edge_bans (
  ip          text PRIMARY KEY,
  banned_until timestamptz NOT NULL
);
