-- Account self-service (decisions.md, "Account self-service"): the ledger tells a search from
-- a beat entry, a grant from an adjustment, and gives each transaction a public id.

ALTER TABLE credit_ledger ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE credit_ledger ADD COLUMN kind text;
ALTER TABLE credit_ledger ADD COLUMN beat_id uuid;
ALTER TABLE credit_ledger ADD COLUMN execution_id uuid;

-- Rows written before: their kind and ids read from the reasons the service wrote. Only
-- charges (negative amounts) can be searches or beat entries: an operator's reason is free
-- text and may look like one. The UUID pattern is strict, so the cast cannot fail.
UPDATE credit_ledger
   SET kind = 'SEARCH',
       execution_id = substring(reason FROM '^event search ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$')::uuid
 WHERE amount < 0 AND reason ~ '^event search [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
UPDATE credit_ledger
   SET kind = 'BEAT_ENTRY',
       beat_id = substring(reason FROM '^beat ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) entry ')::uuid
 WHERE amount < 0 AND reason ~ '^beat [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} entry ';
UPDATE credit_ledger SET kind = CASE WHEN amount > 0 THEN 'GRANT' ELSE 'ADJUSTMENT' END WHERE kind IS NULL;

ALTER TABLE credit_ledger ALTER COLUMN kind SET NOT NULL;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_kind CHECK (kind IN ('SEARCH', 'BEAT_ENTRY', 'GRANT', 'ADJUSTMENT'));
CREATE UNIQUE INDEX credit_ledger_public_id ON credit_ledger (public_id);
-- This month's usage: charges of one account since an instant.
CREATE INDEX credit_ledger_account_time ON credit_ledger (account_id, created_at) INCLUDE (kind, amount);
