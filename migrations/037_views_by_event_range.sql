-- A compact corpus (bench/RESULTS.md, "A compact corpus, fifth step"): the index rows of some
-- events read from those events alone.
--
-- event_sources and event_role_values are read by a range of event ids (the search index's
-- build, 5,000 events at a time) or a list of them (the index's catch-up, clustering a bulk
-- batch). Their event_id is the report's, and PostgreSQL carries only equalities across a
-- join: the reports were read by the range or list, but the join to the live events read
-- every live event, and on a table whose statistics lagged behind a load the entity look-up
-- read every entity, at each call. At a million events a build read every live event 200
-- times over in each view (bench/RESULTS.md: 268 s to build, 193 s with this), and a look-up of
-- 300 events' role values took 0.2 s at a fifth of that.
--
-- The event and the entity are now looked up for each report and value (LATERAL, OFFSET 0
-- keeps the planner from turning that back into a join of whole tables): a reader pays for
-- the rows it reads, whatever the tables' size and statistics.
CREATE OR REPLACE VIEW event_role_values AS
SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
  FROM reports r
 CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                      WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
 CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_id, entity_id, date_value, amount_value, amount_unit)
  LEFT JOIN LATERAL (SELECT live.id FROM entities ent JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
                      WHERE ent.id = rr.entity_id OFFSET 0) AS live ON true
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;

CREATE OR REPLACE VIEW event_sources AS
SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id, r.source_kind, min(r.received_seq) AS first_seq, e.first_report_date
  FROM reports r
 CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                      WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
 GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date;
