-- Live events counted by event type, UTC day of first report and distinct sources, so that
-- event search counts its widest searches (no filter, or only a type and min_reports) from a
-- few hundred rows instead of visiting every event in the window (bench/RESULTS.md,
-- 2026-11-26, "Search at corpus scale").
--
-- The rows are deltas, written by statement triggers on `events` in the same transaction as
-- the change, whatever writes it (ingest, the bulk loader, merges, deletions, refreshes): a
-- count read in one statement sees exactly the events committed before that statement
-- began. Inserting deltas, never updating a shared row, keeps concurrent ingests of one type
-- and day from queueing on one row lock. A sweep folds the deltas of each key into one row
-- (src/modules/filters/day-counts.ts).
--
-- event_type_id NULL: all types together (what a search without a type reads).
-- sources: distinct sources, SOURCES_CAP (8) for 8 or more; min_reports above 8 is counted
-- by visiting the events.
CREATE TABLE event_day_counts (
  event_type_id uuid,
  day           date NOT NULL,
  sources       smallint NOT NULL,
  n             bigint NOT NULL
);
CREATE INDEX event_day_counts_key ON event_day_counts (event_type_id, day, sources) INCLUDE (n);

-- Each statement's live events as deltas (+1 as they are now, -1 as they were), per type and
-- for all types, summed per key. A transition table exists only for the operations that have it.
CREATE FUNCTION event_day_counts_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO event_day_counts (event_type_id, day, sources, n)
    SELECT k.type_id, c.day, c.sources, sum(c.d)
      FROM (SELECT e.event_type_id, (e.first_report_date AT TIME ZONE 'UTC')::date, least(cardinality(e.source_seqs), 8)::smallint, 1
              FROM new_events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND cardinality(e.source_seqs) > 0) AS c(type_id, day, sources, d),
           LATERAL (VALUES (c.type_id), (NULL::uuid)) AS k(type_id)
     GROUP BY k.type_id, c.day, c.sources;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO event_day_counts (event_type_id, day, sources, n)
    SELECT k.type_id, c.day, c.sources, sum(c.d)
      FROM (SELECT e.event_type_id, (e.first_report_date AT TIME ZONE 'UTC')::date, least(cardinality(e.source_seqs), 8)::smallint, 1
              FROM new_events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND cardinality(e.source_seqs) > 0
            UNION ALL
            SELECT e.event_type_id, (e.first_report_date AT TIME ZONE 'UTC')::date, least(cardinality(e.source_seqs), 8)::smallint, -1
              FROM old_events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND cardinality(e.source_seqs) > 0) AS c(type_id, day, sources, d),
           LATERAL (VALUES (c.type_id), (NULL::uuid)) AS k(type_id)
     GROUP BY k.type_id, c.day, c.sources
    HAVING sum(c.d) <> 0;
  ELSE
    INSERT INTO event_day_counts (event_type_id, day, sources, n)
    SELECT k.type_id, c.day, c.sources, sum(c.d)
      FROM (SELECT e.event_type_id, (e.first_report_date AT TIME ZONE 'UTC')::date, least(cardinality(e.source_seqs), 8)::smallint, -1
              FROM old_events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND cardinality(e.source_seqs) > 0) AS c(type_id, day, sources, d),
           LATERAL (VALUES (c.type_id), (NULL::uuid)) AS k(type_id)
     GROUP BY k.type_id, c.day, c.sources;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER events_day_counts_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_delta();
CREATE TRIGGER events_day_counts_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_delta();
CREATE TRIGGER events_day_counts_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events
  FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_delta();

-- The events already stored.
INSERT INTO event_day_counts (event_type_id, day, sources, n)
SELECT k.type_id, c.day, c.sources, count(*)
  FROM (SELECT e.event_type_id, (e.first_report_date AT TIME ZONE 'UTC')::date, least(cardinality(e.source_seqs), 8)::smallint
          FROM events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND cardinality(e.source_seqs) > 0) AS c(type_id, day, sources),
       LATERAL (VALUES (c.type_id), (NULL::uuid)) AS k(type_id)
 GROUP BY k.type_id, c.day, c.sources;
