-- A compact corpus, fifth step (bench/RESULTS.md, "A compact corpus"): a report's roles found by
-- the report alone.
--
-- Every reader of report_roles names the report and takes all its roles (ordering them by
-- `position` where the order matters); they are written once, with their report, and never
-- updated or deleted, so (report_id, position) is unique by construction. Its key held both
-- columns for every row, about 343 bytes an event; an index of the report alone holds each
-- report once with the list of its rows (B-tree deduplication), about a third of that.
ALTER TABLE report_roles DROP CONSTRAINT report_roles_pkey;
CREATE INDEX report_roles_report ON report_roles (report_id);
