-- A compact corpus, fifth step (bench/RESULTS.md, "A compact corpus"): an event's first
-- revision goes without a row when it says only that the event was made.
--
-- Every event had a row for revision 1, with no changes and (unless events were merged in by
-- it) no merged events: about 80 bytes of heap and index entry an event, three quarters of
-- event_revisions' rows after a load. What it says is what the event's own row does: it was
-- made then. So such a first revision is implied (event-revisions.store.ts): listed with the
-- event's created_at (where its row said a moment later) while it is kept (made within the 90
-- days revisions are kept, or the event's latest), and the head row (event_revision_heads)
-- still holds its number and state. A first revision that merged events in keeps its row.
--
-- The rows are dropped by writing the table again without them (as migration 028 did): a
-- DELETE would leave their space inside the table.
CREATE TABLE event_revisions_034 (
  event_id         uuid NOT NULL,
  revision         integer NOT NULL,
  created_at       timestamptz NOT NULL,
  changes          jsonb NOT NULL,
  merged_event_ids uuid[] NOT NULL DEFAULT '{}'
);
-- A first revision was written in the transaction that made its event, within a second of
-- the event's created_at (a bulk batch's writes); the first given at an upgrade to events
-- stored before revisions were kept (migration 024: made at their last change) keeps its row
-- and its time.
INSERT INTO event_revisions_034
SELECT r.event_id, r.revision, r.created_at, r.changes, r.merged_event_ids FROM event_revisions r
 WHERE NOT (r.revision = 1 AND r.changes = '{}'::jsonb AND r.merged_event_ids = '{}'
            AND EXISTS (SELECT 1 FROM events e WHERE e.id = r.event_id AND r.created_at - e.created_at < interval '1 minute'))
 ORDER BY r.created_at, r.event_id, r.revision;
DROP TABLE event_revisions;
ALTER TABLE event_revisions_034 RENAME TO event_revisions;
ALTER TABLE event_revisions ADD CONSTRAINT event_revisions_pkey PRIMARY KEY (event_id, revision);
CREATE INDEX event_revisions_created ON event_revisions USING brin (created_at);
