-- Sensors and their webhook deliveries (decisions.md, "Sensors", "Webhook deliveries").

CREATE TABLE sensors (
  id                         uuid PRIMARY KEY,
  account_id                 uuid NOT NULL REFERENCES accounts (id),
  name                       text NOT NULL,
  description                text,
  enabled                    boolean NOT NULL,
  -- The filter as saved, every field present (ids as given: lists unexpanded).
  filter                     jsonb NOT NULL,
  -- [{id, type, url, host}]; `host` (host:port) is the per-host concurrency key.
  actions                    jsonb NOT NULL,
  -- Kept in clear: every attempt signs with it. After a rotation the previous one also signs
  -- until previous_secret_expires_at.
  signing_secret             text NOT NULL,
  previous_signing_secret    text,
  previous_secret_expires_at timestamptz,
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL
);
CREATE INDEX sensors_account ON sensors (account_id, id);

-- Versions of what compiled filters depend on. Each process keeps its compiled sensor filters
-- in memory and reloads them when a version moved: `sensors` moves on every sensor write,
-- `entities` on every entity merge or deletion (filters resolve entity ids to survivors).
CREATE TABLE filter_versions (
  name    text PRIMARY KEY,
  version bigint NOT NULL
);
INSERT INTO filter_versions VALUES ('sensors', 0), ('entities', 0);

-- One message per (sensor, event, kind), ever. `body` is the exact JSON sent on every attempt;
-- `id` is its webhook-id.
CREATE TABLE sensor_deliveries (
  id         uuid PRIMARY KEY,
  sensor_id  uuid NOT NULL REFERENCES sensors (id) ON DELETE CASCADE,
  event_id   uuid NOT NULL,
  type       text NOT NULL CHECK (type IN ('event.matched', 'event.merged')),
  body       text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (sensor_id, event_id, type)
);
CREATE INDEX sensor_deliveries_sensor ON sensor_deliveries (sensor_id, id);
CREATE INDEX sensor_deliveries_event ON sensor_deliveries (event_id) WHERE type = 'event.matched';

-- The outbox: one row per delivery and webhook action, the unit that is attempted. A claim is
-- a lease on the database's clock (moving the test clock must not make an attempt in progress
-- look abandoned); due times follow the injected clock.
CREATE TABLE sensor_delivery_targets (
  delivery_id      uuid NOT NULL REFERENCES sensor_deliveries (id) ON DELETE CASCADE,
  action_id        uuid NOT NULL,
  url              text NOT NULL,
  host             text NOT NULL,
  status           text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempts         integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error       text,
  last_attempt_at  timestamptz,
  next_attempt_at  timestamptz,
  leased_by        text,
  lease_until      timestamptz,
  PRIMARY KEY (delivery_id, action_id)
);
CREATE INDEX sensor_delivery_targets_due ON sensor_delivery_targets (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX sensor_delivery_targets_leased ON sensor_delivery_targets (lease_until) WHERE leased_by IS NOT NULL;
