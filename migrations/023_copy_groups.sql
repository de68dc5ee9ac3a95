-- Independent sources (decisions.md, 2026-11-28): an article's text is kept only as an 18-byte
-- fingerprint (corpus/copy-fingerprint.ts), and a copy names its copy group: the receive
-- sequence value of the group's first report. A report that is its own group (no text, a
-- structured report, an article no later text copied) keeps NULL, so a report's group is
-- COALESCE(copy_group, received_seq). copy_group comes first: right after received_seq it
-- needs no padding.
-- Both are written once, with the report, and never change (event merges move reports, not
-- groups; the 30-day window of copy detection never rewrites them).
ALTER TABLE reports ADD COLUMN copy_group bigint, ADD COLUMN fingerprint bytea;

-- Copy detection reads the fingerprints of reports received lately (by received_at) and of
-- reports written since it last looked (by received_seq), under its lock. Both columns follow
-- the table's physical order closely (reports are appended), so BRIN indexes, a few pages for
-- millions of reports, find those ranges.
CREATE INDEX reports_received_seq_brin ON reports USING brin (received_seq);
CREATE INDEX reports_received_at_brin ON reports USING brin (received_at);

-- Saved filters gain min_independent_sources (default 1, which filters nothing): sensors and
-- beat clauses are read back with every field.
UPDATE sensors SET filter = filter || '{"min_independent_sources": 1}' WHERE NOT filter ? 'min_independent_sources';
UPDATE beats
   SET clauses = (SELECT jsonb_agg(CASE WHEN c ? 'min_independent_sources' THEN c ELSE c || '{"min_independent_sources": 1}' END ORDER BY n)
                    FROM jsonb_array_elements(clauses) WITH ORDINALITY AS t(c, n))
 WHERE jsonb_array_length(clauses) > 0;
