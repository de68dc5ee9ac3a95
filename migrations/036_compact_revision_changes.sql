-- A compact corpus (bench/RESULTS.md, "A compact corpus, fifth step"): a revision's changes
-- kept in fewer bytes (stored-revision-changes.ts reads and writes them).
--
-- `changes` held the API's form: about 430 bytes a revision, where at a million events an
-- event has about one revision after its first. Each field becomes one letter, a change
-- [from, to] instead of {"from": …, "to": …}, a date its epoch milliseconds instead of 24
-- characters, and an involved entity its id alone (names and types never change: a read of
-- the revisions looks them up).
--
-- The rows are converted by writing the table again (as migration 034 did): an UPDATE of every
-- row would leave the old versions' space inside the table.
CREATE TABLE event_revisions_036 (
  event_id         uuid NOT NULL,
  revision         integer NOT NULL,
  created_at       timestamptz NOT NULL,
  changes          jsonb NOT NULL,
  merged_event_ids uuid[] NOT NULL DEFAULT '{}'
);
INSERT INTO event_revisions_036
SELECT r.event_id, r.revision, r.created_at,
       (SELECT COALESCE(jsonb_object_agg(f.letter, CASE WHEN f.is_date
                 THEN jsonb_build_array(to_jsonb((extract(epoch FROM (r.changes -> f.field ->> 'from')::timestamptz) * 1000)::bigint),
                                        to_jsonb((extract(epoch FROM (r.changes -> f.field ->> 'to')::timestamptz) * 1000)::bigint))
                 ELSE jsonb_build_array(r.changes -> f.field -> 'from', r.changes -> f.field -> 'to') END), '{}')
          FROM (VALUES ('sentence', 's', false), ('happened_at', 'h', false), ('first_report_date', 'f', true), ('last_report_date', 'l', true),
                       ('matched_report_count', 'm', false), ('distinct_outlet_count', 'o', false), ('independent_source_count', 'i', false))
               AS f (field, letter, is_date)
         WHERE r.changes ? f.field)
       || CASE WHEN r.changes ? 'involved_entities' THEN jsonb_build_object('e', jsonb_build_array(
            (SELECT COALESCE(jsonb_agg(x -> 'id' ORDER BY n), '[]') FROM jsonb_array_elements(r.changes -> 'involved_entities' -> 'added') WITH ORDINALITY AS a (x, n)),
            (SELECT COALESCE(jsonb_agg(x -> 'id' ORDER BY n), '[]') FROM jsonb_array_elements(r.changes -> 'involved_entities' -> 'removed') WITH ORDINALITY AS a (x, n))))
          ELSE '{}' END,
       r.merged_event_ids
  FROM event_revisions r
 ORDER BY r.created_at, r.event_id, r.revision;
DROP TABLE event_revisions;
ALTER TABLE event_revisions_036 RENAME TO event_revisions;
ALTER TABLE event_revisions ADD CONSTRAINT event_revisions_pkey PRIMARY KEY (event_id, revision);
CREATE INDEX event_revisions_created ON event_revisions USING brin (created_at);
