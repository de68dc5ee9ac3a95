-- A compact corpus, first step (bench/RESULTS.md, "A compact corpus"): the events table and
-- the reports' indexes.
--
-- An event's row is rewritten with nearly every report stored: its last report date, its
-- entities, its sources. An update that changes no column any index holds, on a page with
-- room, stays on its page (a HOT update): no index gains an entry, and the version it
-- replaces is pruned by the next write to that page, VACUUM or not (the embedded database has
-- no autovacuum; a million demo events left 457 bytes of heap per event, most of it dead
-- versions). source_seqs changes with every new source and was held by three covering
-- indexes, for counts made in SQL that the in-memory search index now makes (the SQL face
-- still counts while that index is built, reading the events' rows instead). events_live_id
-- only repeated the primary key for look-ups by id, which read the row anyway. The order
-- indexes keep their keys; the rows keep 15% of each page for their updates.
DROP INDEX events_live_order;
CREATE INDEX events_live_order ON events (first_report_date DESC, id DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_type_order;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC, id DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_id;
-- Pages written from now on; a corpus converted in place gains the room as its pages are
-- rewritten (VACUUM FULL events gives it at once, holding the table meanwhile).
ALTER TABLE events SET (fillfactor = 85);

-- Its one reader, the in-place join's check that the outlet already reported the event,
-- names the event too, which reports_event_seq finds; every article paid for an entry here.
DROP INDEX reports_outlet_event;
