-- A compact corpus, ninth step (bench/RESULTS.md): what a report's row says twice is computed.
--
-- source_kind said what outlet_id says (a CHECK held them equal), and report_date what
-- published_at and received_at say (v1 document, event search rule 3: the publish time, unless
-- missing or more than a day after receipt; new-report.ts, reportDate): 16 bytes a report,
-- about 48 an event. Both are now functions of the row, which statements read as before:
-- `r.source_kind` and `r.report_date` are PostgreSQL's attribute notation for source_kind(r)
-- and report_date(r), inlined by the planner (plain SQL, immutable).
--
-- An event revision's merged_event_ids is NULL when it merged none (an empty array took 16
-- bytes of nearly every revision).
DROP VIEW event_role_values;
DROP VIEW event_sources;
ALTER TABLE reports DROP CONSTRAINT reports_check;
ALTER TABLE reports DROP CONSTRAINT reports_source_kind_check;
ALTER TABLE reports DROP COLUMN source_kind;
ALTER TABLE reports DROP COLUMN report_date;
-- A dropped column keeps its bytes in every row until the row is written again: the table is
-- written again in its order (the range indexes of received_at and received_seq rely on it) by
-- a change of a column's type to itself through an expression.
ALTER TABLE reports ALTER COLUMN headline TYPE text USING headline || '';

CREATE FUNCTION source_kind(reports) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN $1.outlet_id IS NOT NULL THEN 'ARTICLE' ELSE 'STRUCTURED' END
$$;
-- The difference of two instants is an exact interval, compared as such: 24 hours, whatever
-- the session's time zone.
CREATE FUNCTION report_date(reports) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN $1.published_at IS NULL OR $1.published_at - $1.received_at > interval '24 hours' THEN $1.received_at ELSE $1.published_at END
$$;

-- As migrations 037 and 039 made them.
CREATE VIEW event_role_values AS
SELECT r.event_id, role.id AS role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
  FROM reports r
 CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                      WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
 CROSS JOIN LATERAL unnest(r.role_numbers, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_number, entity_id, date_value, amount_value, amount_unit)
  JOIN event_type_roles role ON role.number = rr.role_number
  LEFT JOIN LATERAL (SELECT live.id FROM entities ent JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
                      WHERE ent.id = rr.entity_id OFFSET 0) AS live ON true
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;

CREATE VIEW event_sources AS
SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id, r.source_kind, min(r.received_seq) AS first_seq, e.first_report_date
  FROM reports r
 CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                      WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
 GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date;

ALTER TABLE event_revisions ALTER COLUMN merged_event_ids DROP NOT NULL;
ALTER TABLE event_revisions ALTER COLUMN merged_event_ids DROP DEFAULT;
-- Written again (as migration 034 did), without the empty arrays.
ALTER TABLE event_revisions ALTER COLUMN merged_event_ids TYPE uuid[] USING NULLIF(merged_event_ids, '{}');
