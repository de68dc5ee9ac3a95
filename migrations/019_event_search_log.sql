-- The log that keeps each process's in-memory search index (src/modules/filters/memory-index*.ts)
-- at one snapshot of the corpus: every statement that changes what the filter's SQL face reads
-- of an event (events, event_entities, event_sources, event_role_values) names the event here,
-- with its transaction's id, in the same transaction, whatever writes it (ingest, the bulk
-- loader's COPY, merges, deletions, refreshes).
--
-- A process catches up by reading, in one REPEATABLE READ transaction, the rows visible in its
-- snapshot that were not visible in the last one (by xid: every transaction below the last
-- snapshot's xmin had ended by then; of those at or above it, the process remembers which it
-- has read), then the current facts of the events they name. Rows are only inserted.
CREATE TABLE event_search_log (
  xid      xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id uuid NOT NULL
);
CREATE INDEX event_search_log_xid ON event_search_log (xid);

-- The sweep deletes rows in two steps ten minutes apart: the xmin it noted last time (every row
-- below it was visible to any process that has caught up since) becomes `purged_below`. A
-- process whose last snapshot's xmin is below `purged_below` may have missed rows, and
-- rebuilds its index from the tables.
CREATE TABLE event_search_log_horizon (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  purged_below xid8 NOT NULL,
  noted_xmin   xid8 NOT NULL,
  noted_at     timestamptz NOT NULL
);
INSERT INTO event_search_log_horizon (purged_below, noted_xmin, noted_at)
VALUES ('0'::xid8, pg_snapshot_xmin(pg_current_snapshot()), '-infinity');

-- TG_ARGV[0]: the column holding the event's id. A transition table exists only for the
-- operations that have it, so each operation has its own statement.
CREATE FUNCTION event_search_log_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('INSERT INTO event_search_log (event_id) SELECT DISTINCT %I FROM new_rows', TG_ARGV[0]);
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE format('INSERT INTO event_search_log (event_id) SELECT %1$I FROM new_rows UNION SELECT %1$I FROM old_rows', TG_ARGV[0]);
  ELSE
    EXECUTE format('INSERT INTO event_search_log (event_id) SELECT DISTINCT %I FROM old_rows', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;

-- On each table, a trigger per operation (each names its own transition tables).
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES ('events', 'id'), ('event_entities', 'event_id'), ('event_sources', 'event_id'), ('event_role_values', 'event_id')) AS v(tab, col) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_search_log_write(%L)',
                   t.tab || '_search_log_insert', t.tab, t.col);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_search_log_write(%L)',
                   t.tab || '_search_log_update', t.tab, t.col);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION event_search_log_write(%L)',
                   t.tab || '_search_log_delete', t.tab, t.col);
  END LOOP;
END $$;
