-- Corpus: reference data (outlets, entities, entity lists, event types and their roles) and
-- the pipeline's records (events, reports, role values, mentions), with the indexes the
-- shared filter vocabulary searches by.

CREATE TABLE news_outlets (
  id         uuid PRIMARY KEY,
  name       text NOT NULL,
  domain     text,
  created_at timestamptz NOT NULL
);

-- canonical_id is the entity's final survivor (itself unless merged away). A merge rewrites
-- every canonical_id that pointed at the merged-away entity, so chains resolve in one look-up.
CREATE TABLE entities (
  id            uuid PRIMARY KEY,
  name          text NOT NULL,
  type          text,
  canonical_id  uuid NOT NULL,
  merged_into   uuid REFERENCES entities (id),
  deleted_at    timestamptz,
  created_at    timestamptz NOT NULL
);
CREATE INDEX entities_canonical ON entities (canonical_id);
CREATE INDEX entities_name_lower ON entities (lower(name) text_pattern_ops) WHERE merged_into IS NULL AND deleted_at IS NULL;

CREATE TABLE entity_lists (
  id               uuid PRIMARY KEY,
  name             text NOT NULL,
  owner_account_id uuid REFERENCES accounts (id),
  created_at       timestamptz NOT NULL
);

CREATE TABLE entity_list_members (
  list_id   uuid NOT NULL REFERENCES entity_lists (id),
  entity_id uuid NOT NULL REFERENCES entities (id),
  position  integer NOT NULL,
  PRIMARY KEY (list_id, entity_id)
);

CREATE TABLE event_types (
  id                uuid PRIMARY KEY,
  code_name         text NOT NULL UNIQUE,
  name              text NOT NULL,
  description       text NOT NULL,
  sentence_template text NOT NULL,
  accepting_reports boolean NOT NULL,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);

-- A role removed by a later change keeps its row (removed_at set): reports and grant pins
-- that name it still resolve.
CREATE TABLE event_type_roles (
  id            uuid PRIMARY KEY,
  event_type_id uuid NOT NULL REFERENCES event_types (id),
  code_name     text NOT NULL,
  name          text NOT NULL,
  expected_type text,
  position      integer NOT NULL,
  removed_at    timestamptz
);
CREATE UNIQUE INDEX event_type_roles_code ON event_type_roles (event_type_id, code_name) WHERE removed_at IS NULL;

CREATE TABLE events (
  id                   uuid PRIMARY KEY,
  event_type_id        uuid NOT NULL REFERENCES event_types (id),
  happened_at          text,
  happened_on          date, -- happened_at read as a date, when it reads as one (clustering)
  first_report_date    timestamptz NOT NULL,
  last_report_date     timestamptz NOT NULL,
  sentence             text,
  -- Participants in role order, then mentioned entities; canonical when last refreshed, so
  -- readers map them through entities.canonical_id (an entity merged later) once more.
  involved_entity_ids  uuid[] NOT NULL DEFAULT '{}',
  merged_into_event_id uuid REFERENCES events (id),
  deleted_at           timestamptz,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);
-- The search order and lookback key, live events only.
CREATE INDEX events_live_order ON events (first_report_date DESC, id DESC) WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
CREATE INDEX events_merged_into ON events (merged_into_event_id) WHERE merged_into_event_id IS NOT NULL;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC, id DESC) WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;

CREATE TABLE reports (
  id            uuid PRIMARY KEY,
  event_id      uuid NOT NULL REFERENCES events (id),
  source_kind   text NOT NULL CHECK (source_kind IN ('ARTICLE', 'STRUCTURED')),
  outlet_id     uuid REFERENCES news_outlets (id),
  account_id    uuid REFERENCES accounts (id),
  grant_id      uuid,
  event_type_id uuid NOT NULL REFERENCES event_types (id),
  published_at  timestamptz,
  received_at   timestamptz NOT NULL,
  report_date   timestamptz NOT NULL,
  happened_at   text,
  headline      text,
  url           text,
  created_at    timestamptz NOT NULL,
  CHECK ((source_kind = 'ARTICLE') = (outlet_id IS NOT NULL))
);
-- Counts cut off at an instant: reports of an event received up to T.
CREATE INDEX reports_event_received ON reports (event_id, received_at);
CREATE INDEX reports_outlet_event ON reports (outlet_id, event_id) WHERE outlet_id IS NOT NULL;

CREATE TABLE report_roles (
  report_id    uuid NOT NULL REFERENCES reports (id),
  position     integer NOT NULL,
  role_id      uuid NOT NULL REFERENCES event_type_roles (id),
  entity_id    uuid REFERENCES entities (id),
  date_value   date,
  amount_value double precision,
  amount_unit  text,
  text_value   text,
  PRIMARY KEY (report_id, position)
);
CREATE INDEX report_roles_entity ON report_roles (entity_id) WHERE entity_id IS NOT NULL;
CREATE INDEX report_roles_amount ON report_roles (role_id, amount_value) WHERE amount_value IS NOT NULL;
CREATE INDEX report_roles_date ON report_roles (role_id, date_value) WHERE date_value IS NOT NULL;

CREATE TABLE report_mentions (
  report_id uuid NOT NULL REFERENCES reports (id),
  entity_id uuid NOT NULL REFERENCES entities (id),
  PRIMARY KEY (report_id, entity_id)
);

-- The entity index of the filter vocabulary: an event's involved entities by canonical id,
-- participant (plays a NAMED_ENTITY role) or merely mentioned. Rewritten on entity merges.
CREATE TABLE event_entities (
  event_id    uuid NOT NULL REFERENCES events (id),
  entity_id   uuid NOT NULL,
  participant boolean NOT NULL,
  PRIMARY KEY (event_id, entity_id)
);
CREATE INDEX event_entities_entity ON event_entities (entity_id, event_id);
