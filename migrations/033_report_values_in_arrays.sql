-- A compact corpus, fourth step (bench/RESULTS.md, "A compact corpus"): a report's role values
-- and mentioned entities kept on its own row, in arrays.
--
-- report_roles held a row per role value (about 8.5 an event, 80 bytes each, 28 of them the
-- row's header and pointer, plus an index entry of its report), report_mentions a row per
-- mentioned entity with an index entry of both ids: 1,113 of the 4,945 bytes an event took
-- after migration 032. Nothing reads either but by report, all of a report's values at once,
-- and reports are never changed after they are written (entity merges resolve ids at read
-- time through entities.canonical_id), so the values live in arrays on the report's row: one
-- array per column of report_roles, element i of each the report's value i (in its role
-- order), an array NULL when all its elements would be (no dates, no amounts…). unnest() of
-- the arrays together gives the rows back; views named after the tables do so for ad-hoc
-- reading and the tests.

-- The reports with their values, in receive order. Setting the new columns with an UPDATE
-- would leave every report's old version behind and put the new one wherever there was room,
-- out of the receive order the range (BRIN) indexes of received_at and received_seq rely on;
-- and neither VACUUM FULL nor a CLUSTER can drop those versions in the transaction that made
-- them. So the table is emptied and filled again, in order, in this one transaction.
CREATE TEMPORARY TABLE reports_033 ON COMMIT DROP AS
WITH roles AS (
  SELECT report_id,
         array_agg(role_id ORDER BY position) AS role_ids,
         CASE WHEN count(entity_id) > 0 THEN array_agg(entity_id ORDER BY position) END AS role_entity_ids,
         CASE WHEN count(date_value) > 0 THEN array_agg(date_value ORDER BY position) END AS role_dates,
         CASE WHEN count(amount_value) > 0 THEN array_agg(amount_value ORDER BY position) END AS role_amounts,
         CASE WHEN count(amount_unit) > 0 THEN array_agg(amount_unit ORDER BY position) END AS role_units,
         CASE WHEN count(text_value) > 0 THEN array_agg(text_value ORDER BY position) END AS role_texts
    FROM report_roles GROUP BY report_id
), mentions AS (
  SELECT report_id, array_agg(entity_id ORDER BY entity_id) AS mention_ids FROM report_mentions GROUP BY report_id
)
SELECT r.*, v.role_ids, v.role_entity_ids, v.role_dates, v.role_amounts, v.role_units, v.role_texts, m.mention_ids
  FROM reports r
  LEFT JOIN roles v ON v.report_id = r.id
  LEFT JOIN mentions m ON m.report_id = r.id
 ORDER BY r.received_seq;

-- The new columns come last, in the temporary table's order.
ALTER TABLE reports
  ADD COLUMN role_ids uuid[],
  ADD COLUMN role_entity_ids uuid[],
  ADD COLUMN role_dates date[],
  ADD COLUMN role_amounts float8[],
  ADD COLUMN role_units text[],
  ADD COLUMN role_texts text[],
  ADD COLUMN mention_ids uuid[];

-- Emptied (TRUNCATE refuses a table another references: the reference is dropped and made
-- again) and filled again, with the receive sequence values kept (its sequence is not reset).
ALTER TABLE structured_reports DROP CONSTRAINT structured_reports_incident_report_id_fkey;
TRUNCATE report_roles, report_mentions, reports;
INSERT INTO reports OVERRIDING SYSTEM VALUE SELECT * FROM reports_033 ORDER BY received_seq;
ALTER TABLE structured_reports ADD CONSTRAINT structured_reports_incident_report_id_fkey FOREIGN KEY (incident_report_id) REFERENCES reports(id);

DROP VIEW event_role_values;
DROP TABLE report_roles;
DROP TABLE report_mentions;

CREATE VIEW report_roles AS
SELECT r.id AS report_id, rr.position::integer AS position, rr.role_id, rr.entity_id, rr.date_value, rr.amount_value, rr.amount_unit, rr.text_value
  FROM reports r
 CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units, r.role_texts)
       WITH ORDINALITY AS rr(role_id, entity_id, date_value, amount_value, amount_unit, text_value, position);

CREATE VIEW report_mentions AS
SELECT r.id AS report_id, m.entity_id FROM reports r CROSS JOIN LATERAL unnest(r.mention_ids) AS m(entity_id);

-- As migration 031 made it, the values now unnested from the report's row.
CREATE VIEW event_role_values AS
SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
  FROM reports r
 CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_id, entity_id, date_value, amount_value, amount_unit)
  JOIN events e ON e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
  LEFT JOIN entities ent ON ent.id = rr.entity_id
  LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;
