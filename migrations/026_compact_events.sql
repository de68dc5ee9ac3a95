-- A compact corpus, first step (bench/RESULTS.md, "A compact corpus"): the events table and
-- the reports' indexes.
--
-- An event's row is rewritten with nearly every report stored: its last report date, its
-- entities, its sources. An update that changes no column any index holds, on a page with
-- room, stays on its page (a HOT update): no index gains an entry, and the versions it
-- replaced are pruned when the page is next visited and short of room, VACUUM or not (the
-- embedded database has no autovacuum). source_seqs changes with every new source and was
-- held by three covering indexes, so each such update added an entry to every index of the
-- table. Those indexes let counts made in SQL read only the index; the in-memory search index
-- makes nearly all counts now, and the SQL face (while that index is built, for filters it
-- does not answer) reads the events' rows instead. events_live_id, the third, also served the
-- in-memory index's build, which now walks the primary key (ids are UUIDv7: in the table's
-- order). The order indexes keep their keys. New pages keep 15% free for the updates; the
-- pages of a corpus converted in place keep their fill until VACUUM FULL or CLUSTER rewrites
-- them.
DROP INDEX events_live_order;
CREATE INDEX events_live_order ON events (first_report_date DESC, id DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_type_order;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC, id DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_id;
ALTER TABLE events SET (fillfactor = 85);

-- Its readers, the in-place join's check that the outlet already reported the event (which
-- walks the event's reports on reports_event_seq just before) and the demo's quality
-- figures, do without it; every article paid for an entry here.
DROP INDEX reports_outlet_event;
