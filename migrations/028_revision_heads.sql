-- A compact corpus, third step (bench/RESULTS.md, "A compact corpus"): an event's latest
-- revision state kept once, in columns, in a row of its own that is updated in place.
--
-- The state a revision is told apart from (corpus/revision-changes.ts) was JSON on the latest
-- revision's row, about 800 bytes an event, most of it the involved entities' names and types,
-- which the entities table holds and never changes; and each new revision rewrote its
-- predecessor's row to drop that state and mark it superseded, an update no index let stay on
-- its page, leaving a dead row of the state's size behind (the embedded database has no
-- autovacuum). Now revisions are only inserted, and the head row holds the latest's number
-- and state: the entities by id (read back with their names and types), the rest in columns.
-- Its only index is its key, which no update changes: updates stay on their page.
CREATE TABLE event_revision_heads (
  event_id                 uuid PRIMARY KEY,
  revision                 integer NOT NULL,
  -- The state as the latest revision left it; entity_ids NULL for the revision 1 given to
  -- events stored before revisions were kept (their state then was not recorded).
  sentence                 text,
  happened_at              text,
  first_report_date        timestamptz,
  last_report_date         timestamptz,
  matched_report_count     integer,
  distinct_outlet_count    integer,
  independent_source_count integer,
  entity_ids               uuid[]
) WITH (fillfactor = 85);

INSERT INTO event_revision_heads
SELECT DISTINCT ON (r.event_id) r.event_id, r.revision, r.state->>'sentence', r.state->>'happened_at',
       (r.state->>'first_report_date')::timestamptz, (r.state->>'last_report_date')::timestamptz,
       (r.state->>'matched_report_count')::int, (r.state->>'distinct_outlet_count')::int, (r.state->>'independent_source_count')::int,
       CASE WHEN r.state IS NOT NULL THEN ARRAY(SELECT (x.entity->>'id')::uuid FROM jsonb_array_elements(r.state->'involved_entities') WITH ORDINALITY AS x(entity, n) ORDER BY x.n) END
  FROM event_revisions r
 ORDER BY r.event_id, r.revision DESC;

-- The revisions themselves, rewritten without the state (dropping the column would leave its
-- bytes in every row until a VACUUM FULL). What the retention sweep may delete is now a
-- revision older than its event's head; it finds the old ones by creation time (rows are
-- inserted in that order: a range index).
CREATE TABLE event_revisions_compact (
  event_id         uuid NOT NULL,
  revision         integer NOT NULL,
  created_at       timestamptz NOT NULL,
  changes          jsonb NOT NULL,
  merged_event_ids uuid[] NOT NULL DEFAULT '{}'
);
INSERT INTO event_revisions_compact SELECT event_id, revision, created_at, changes, merged_event_ids FROM event_revisions ORDER BY created_at, event_id, revision;
DROP TABLE event_revisions;
ALTER TABLE event_revisions_compact RENAME TO event_revisions;
ALTER TABLE event_revisions ADD CONSTRAINT event_revisions_pkey PRIMARY KEY (event_id, revision);
CREATE INDEX event_revisions_created ON event_revisions USING brin (created_at);
