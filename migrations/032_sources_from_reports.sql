-- A compact corpus, seventh step (bench/RESULTS.md, "A compact corpus"): an event's sources read
-- from its reports.
--
-- event_sources held, per event and distinct source (an outlet, or the filing account of a
-- structured report), the receive sequence value of its first report and the event's first
-- report date: 448 bytes an event, all of it a GROUP BY of the event's reports away. Its
-- readers read it by event (the in-memory index building or catching up, the filter's SQL face
-- counting an event's sources, a refresh summing up source_seqs), which the reports' index of
-- their event answers; the one that asked by source (the SQL face's outlet filter) reads the
-- event's reports itself now. Keeping it cost every report an INSERT … ON CONFLICT, every
-- merge and deletion a DELETE, and every event whose first report date moved a rebuild of its
-- rows, each logged again in event_search_log beside the event's own row.
--
-- The view answers what the table held: the sources of live events, a structured report's
-- source its filing account. The change log needs no trigger here: every report written
-- updates its event's row (events.source_seqs, last_report_date), which logs.
DROP TABLE event_sources;
CREATE VIEW event_sources AS
SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id, r.source_kind, min(r.received_seq) AS first_seq, e.first_report_date
  FROM reports r
  JOIN events e ON e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
 GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date;
