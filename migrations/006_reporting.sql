-- Structured reporting: reporting grants and first-hand reports (v1 document, Report,
-- Reporting grant, "Structured reporting"; decisions.md, "Structured reporting").

-- A grant lets one account file reports of one event type under the grant's label, with some
-- roles pinned to allowed entities. Grants never change after creation except by revocation.
CREATE TABLE reporting_grants (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  label         text NOT NULL,
  event_type_id uuid NOT NULL REFERENCES event_types (id),
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL
);
CREATE INDEX reporting_grants_account ON reporting_grants (account_id, created_at);

-- A pin names a role by id (a role removed from the type later keeps its row, and makes the
-- grant stale) and the entities allowed in it, as given (readers resolve them to survivors).
CREATE TABLE reporting_grant_pins (
  grant_id           uuid NOT NULL REFERENCES reporting_grants (id),
  position           integer NOT NULL,
  role_id            uuid NOT NULL REFERENCES event_type_roles (id),
  allowed_entity_ids uuid[] NOT NULL,
  PRIMARY KEY (grant_id, position)
);

-- The entities a grant pins, one row each: the represented-entity filters find the reports
-- of a represented entity from here (entity → grants → reports).
CREATE TABLE reporting_grant_entities (
  grant_id  uuid NOT NULL REFERENCES reporting_grants (id),
  entity_id uuid NOT NULL REFERENCES entities (id),
  PRIMARY KEY (entity_id, grant_id)
);
-- A report's represented entities, read by its grant (event facts, for every event change).
CREATE INDEX reporting_grant_entities_grant ON reporting_grant_entities (grant_id);
CREATE INDEX reports_grant ON reports (grant_id, event_id) WHERE grant_id IS NOT NULL;

-- A filed report, as the account sent it. Processing (in the background) turns it into a
-- pipeline report (`reports`, source_kind STRUCTURED) and sets incident_id and
-- incident_report_id. The id is UUIDv5 of the API key id and the Idempotency-Key, so a retry
-- of a filed report collides with it instead of filing it twice.
CREATE TABLE structured_reports (
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL REFERENCES accounts (id),
  api_key_id         uuid NOT NULL REFERENCES api_keys (id),
  event_type_id      uuid NOT NULL REFERENCES event_types (id),
  happened_at        timestamptz NOT NULL,
  -- [{role, role_id, entity_id, name} | {role, role_id, date} | {role, role_id, amount} | {role, role_id, text}]
  roles              jsonb NOT NULL,
  description        text,
  grant_id           uuid REFERENCES reporting_grants (id),
  published_as       jsonb,
  incident_id        uuid REFERENCES events (id),
  incident_report_id uuid REFERENCES reports (id),
  created_at         timestamptz NOT NULL
);
CREATE INDEX structured_reports_account ON structured_reports (account_id, seq);
