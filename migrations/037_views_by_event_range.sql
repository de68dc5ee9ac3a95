-- A compact corpus (bench/RESULTS.md, "A compact corpus, fifth step"): the index rows of a
-- range of events read from the range alone.
--
-- The search index's build reads event_sources and event_role_values by ranges of event ids
-- (memory-index.store.ts), 5,000 events at a time. Their event_id is the report's, and
-- PostgreSQL carries only equalities across a join: the range reached the reports, but the
-- join to the live events scanned every live event, once per range. A million events' build
-- read the events a thousand million times over. Each view now also gives the live event's
-- own id (live_event_id, equal to event_id); a reader restricting events by a range names both,
-- and each table is read by its range.
CREATE OR REPLACE VIEW event_role_values AS
SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit,
       e.id AS live_event_id
  FROM reports r
 CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_id, entity_id, date_value, amount_value, amount_unit)
  JOIN events e ON e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
  LEFT JOIN entities ent ON ent.id = rr.entity_id
  LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;

CREATE OR REPLACE VIEW event_sources AS
SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id, r.source_kind, min(r.received_seq) AS first_seq, e.first_report_date,
       e.id AS live_event_id
  FROM reports r
  JOIN events e ON e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
 GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date, e.id;
