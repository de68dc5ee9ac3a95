-- A compact corpus, second step (bench/RESULTS.md, "A compact corpus"): the covering indexes
-- that found events by role value and by outlet over a whole window.
--
-- Event search's first pages count from the search index in memory; its continuation pages
-- now take their candidates from it too, and check them here by event
-- (filters/filtered-events.ts): event_role_values and event_sources are read by event_id
-- (event_role_values_event, the primary key of event_sources). These two indexes copied
-- their tables' rows, about a sixth of the corpus's bytes, for the SQL face alone. It still
-- answers, reading the rows by event or in one pass, where the index in memory is not used:
-- while it is built (after a first start, or a log purged past it), REPRESENTED_ONLY filters
-- (whose reports are few, found through their grants), a beat's look-back (a job, once per
-- beat) and a sensor's test event (the newest match of 30 days).
DROP INDEX IF EXISTS event_role_values_role;
DROP INDEX IF EXISTS event_sources_source;
