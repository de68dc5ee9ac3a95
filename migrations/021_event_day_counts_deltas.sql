-- The day counts' fold (src/modules/filters/day-counts.ts) found the keys to fold by grouping
-- the whole table, once a minute, even when nothing had changed: 20 to 80 ms over a year of
-- days (26,000 rows at a million events, bench/RESULTS.md), during which the embedded
-- database's one connection answered nothing else. Rows now tell deltas (written by the
-- triggers, which name no `delta`) from the rows a fold writes, and a partial index holds the
-- deltas alone: a fold with nothing to do reads an empty index.
--
-- The rows already stored count as deltas: the first folds after this migration rewrite each
-- key once (10,000 keys a fold).
ALTER TABLE event_day_counts ADD COLUMN delta boolean NOT NULL DEFAULT true;
CREATE INDEX event_day_counts_deltas ON event_day_counts (event_type_id, day, sources) WHERE delta;
