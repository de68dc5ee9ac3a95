// Charging credits, for the features that bill (event search, beat entries): the account
// row is locked and the ledger row written with the thing the charge pays for, in the
// caller's transaction (beat entries) or in one statement with it (a search execution), so
// the charge commits or vanishes with it.
import type { Queryable } from '../../platform/db/database.js';
import type { SqlParams } from '../../platform/db/sql-params.js';
import { accountsStore as store, PLAN_FIELDS, type AccountRow, type LedgerObserver, type PlanRow } from './accounts.store.js';

export type { LedgerObserver } from './accounts.store.js';

/** The account and its plan, or undefined when there is no such account. */
export function findAccountAndPlan(db: Queryable, accountId: string): Promise<{ account: AccountRow; plan: PlanRow } | undefined> {
  return store.getAccountWithPlan(db, accountId);
}

/** The account and its plan's values, as they are now (no lock; lockAccount takes it), in one statement. */
export async function accountAndPlan(db: Queryable, accountId: string): Promise<{ account: AccountRow; plan: PlanRow }> {
  const found = await findAccountAndPlan(db, accountId);
  if (!found) throw new Error(`account ${accountId} does not exist`);
  return found;
}

/**
 * Charges a search execution `amount` credits and writes `record` (the execution, a
 * statement selecting FROM `spent`) with it, in one statement that commits by itself: one
 * round trip, the account row locked by the charge. Answers false, writing nothing, when the
 * balance cannot cover it.
 */
export function chargeSearch(
  db: Queryable,
  accountId: string,
  amount: number,
  executionId: string,
  at: Date,
  observe: LedgerObserver,
  record: (params: SqlParams) => string,
): Promise<boolean> {
  return store.spendInOneStatement(db, accountId, { amount: -amount, reason: `event search ${executionId}`, kind: 'SEARCH', executionId }, at, observe, record);
}

/**
 * Locks the account row for the rest of the caller's transaction, in one statement; answers
 * its balance, entitlements and plan's values.
 */
export async function lockAccount(tx: Queryable, accountId: string) {
  const [row] = await tx.query<PlanRow & Pick<AccountRow, 'credit_balance' | 'structured_reporting' | 'entity_reporting' | 'beats'>>(
    `SELECT a.credit_balance, a.structured_reporting, a.entity_reporting, a.beats, p.name, ${PLAN_FIELDS.map((field) => `p.${field}`).join(', ')}
       FROM accounts a JOIN plans p ON p.name = a.plan WHERE a.id = $1 FOR UPDATE OF a`,
    [accountId],
  );
  if (!row) throw new Error(`account ${accountId} does not exist`);
  const { credit_balance: balance, structured_reporting, entity_reporting, beats, ...plan } = row;
  return { balance, entitlements: { structured_reporting, entity_reporting, beats }, plan: plan as PlanRow };
}

/**
 * Writes beat-entry charges the caller has checked against the balance of the account it locked
 * (lockAccount): the balance moves once and each charge is a ledger row, in one statement of
 * the caller's transaction.
 */
export async function recordEntryCharges(
  tx: Queryable,
  accountId: string,
  charges: readonly { amount: number; beatId: string; entryId: string }[],
  at: Date,
  observe: LedgerObserver,
): Promise<void> {
  const paid = charges.filter((charge) => charge.amount > 0);
  if (paid.length === 0) return;
  await store.appendLedger(
    tx,
    accountId,
    paid.map((charge) => ({ amount: -charge.amount, reason: `beat ${charge.beatId} entry ${charge.entryId}`, kind: 'BEAT_ENTRY', beatId: charge.beatId })),
    at,
    observe,
  );
}
