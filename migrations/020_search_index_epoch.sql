-- A search index saved to a process's data folder (src/modules/filters/memory-index-file.ts)
-- names the database it was read from by this value, so a folder pointed at another database
-- (or a schema made afresh) never loads an index of different events. Made once, never changed.
ALTER TABLE event_search_log_horizon ADD COLUMN index_epoch uuid NOT NULL DEFAULT gen_random_uuid();
