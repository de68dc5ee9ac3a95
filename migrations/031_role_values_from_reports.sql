-- A compact corpus, sixth step (bench/RESULTS.md, "A compact corpus"): role values kept once.
--
-- event_role_values copied every role value of every report (about 7.6 rows an event, 1,041
-- bytes of the 6,443 an event took after migration 030) beside the report's own row in
-- report_roles, with the report's event, source kind and receive sequence value, the event's
-- first report date, the entity's live survivor and the unit folded: all of them a join away.
-- Searches count from the in-memory index, so its readers now only read it by event (the
-- filter's SQL face, checking candidates; clustering, for the events around a report; the
-- in-memory index, building or catching up by event or range of events), each of which the
-- join answers from the reports' index of their event and the roles' index of their report.
-- Keeping it cost every report a row per value written and every entity merge or deletion a
-- rewrite of its rows, and every first report date that moved a rebuild of the event's rows.
--
-- The view answers what the table held: a value with an entity, a date or an amount, of a
-- live event; the entity by its live survivor (null for a deleted one: the row stays, as the
-- matching face reads it as no value); units folded as the filter folds them (ASCII letters
-- only). The change log needs no trigger of its own here: every report written updates its
-- event's row, and entity merges and deletions rewrite event_entities, both of which log.
DROP TABLE event_role_values;
CREATE VIEW event_role_values AS
SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
  FROM reports r
  JOIN report_roles rr ON rr.report_id = r.id
  JOIN events e ON e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
  LEFT JOIN entities ent ON ent.id = rr.entity_id
  LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;
