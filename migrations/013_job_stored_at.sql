-- When a job was stored, on the database's clock: the event-change lag metric measures from it
-- to the job being done, across processes and whatever the service's (test) clock says.
-- created_at follows the injected clock and is left as it is.
-- Added without a default first, so existing rows are not rewritten (they stay NULL and are
-- not measured); new rows get the time of their INSERT, in the transaction that stores them.
ALTER TABLE jobs ADD COLUMN stored_at timestamptz;
ALTER TABLE jobs ALTER COLUMN stored_at SET DEFAULT clock_timestamp();
