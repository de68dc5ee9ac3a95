-- The rows written per role of every report stored, made cheaper: in a bulk load they are most
-- of the rows, and each paid for indexes nothing reads and for foreign-key checks of rows
-- that are never deleted (measured in bench/RESULTS.md, 2026-11-26, fourth stretch).
--
-- No statement reads these three indexes: role filters search event_role_values (003), entity
-- merges find their events through event_entities and event_role_values, and every read of
-- report_roles goes by report_id (its primary key).
DROP INDEX IF EXISTS report_roles_entity;
DROP INDEX IF EXISTS report_roles_amount;
DROP INDEX IF EXISTS report_roles_date;

-- A report's role names a role of its event type and an entity, both checked before they are
-- stored: an article's at ingest (events.service.ts refuses an unknown entity or role), a
-- structured report's at filing (reporting/report-content.ts; its grant's pins are entities
-- already). Neither table ever deletes a row (entities and event-type roles are deleted by
-- marking them), and no key column of theirs is ever updated. The key checked on every role
-- row looked up and share-locked a row that cannot go away. The key to the report itself
-- stays: the roles are written with their report.
ALTER TABLE report_roles DROP CONSTRAINT IF EXISTS report_roles_role_id_fkey;
ALTER TABLE report_roles DROP CONSTRAINT IF EXISTS report_roles_entity_id_fkey;

-- event_role_values is the search index, rebuilt from the reports (event-index.ts) and only
-- beside them; events are never deleted either (merges and deletes mark them).
ALTER TABLE event_role_values DROP CONSTRAINT IF EXISTS event_role_values_event_id_fkey;
