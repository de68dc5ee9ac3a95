-- A compact corpus, tenth step (bench/RESULTS.md): the live events' order indexes keep the first
-- report date alone, without the id that breaks its ties.
--
-- They serve the SQL face's newest (or oldest) first pages, without a type and with one, while
-- the in-memory search index builds and for what it does not answer. Grown row by row, as
-- events come and their first report dates move, they took 106 and 73 bytes an event at a
-- million; built the same way, their keys without the 16-byte id take about a third less (built
-- at once, 21 and 39 MB against about 40 and 55). A page reads the few events of its last date
-- and sorts them by id (an incremental sort: PostgreSQL 13 and later, the embedded database
-- too), and a continuation's (first_report_date, id) bound still narrows the scan to its date.
DROP INDEX events_live_order;
CREATE INDEX events_live_order ON events (first_report_date DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
DROP INDEX events_live_type_order;
CREATE INDEX events_live_type_order ON events (event_type_id, first_report_date DESC)
  WHERE merged_into_event_id IS NULL AND deleted_at IS NULL;
