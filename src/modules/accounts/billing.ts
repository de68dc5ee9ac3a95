// Charging credits, for the features that bill (event search, beat entries): the
// account row is locked and the ledger row written in the caller's transaction, so the
// charge commits or vanishes with the thing it pays for.
import type { Queryable } from '../../platform/db/database.js';
import { accountsStore as store, type AccountRow, type PlanRow } from './accounts.store.js';

/** The account and its plan's values, as they are now (locking the account row with `lock`). */
export async function accountAndPlan(db: Queryable, accountId: string, lock = false): Promise<{ account: AccountRow; plan: PlanRow }> {
  const account = await store.getAccount(db, accountId, lock);
  if (!account) throw new Error(`account ${accountId} does not exist`);
  const plan = await store.getPlan(db, account.plan);
  if (!plan) throw new Error(`plan ${account.plan} does not exist`);
  return { account, plan };
}

/**
 * Charges `amount` credits inside the caller's transaction, holding the account row lock
 * until it ends. Answers false, charging nothing, when the balance cannot cover it.
 */
export async function chargeCredits(tx: Queryable, accountId: string, amount: number, reason: string, at: Date): Promise<boolean> {
  const account = await store.getAccount(tx, accountId, true);
  if (!account || account.credit_balance < amount) return false;
  if (amount > 0) await store.appendLedger(tx, accountId, -amount, reason, at);
  return true;
}

/** Locks the account row for the rest of the caller's transaction; answers it with its plan. */
export const lockAccount = (tx: Queryable, accountId: string) => accountAndPlan(tx, accountId, true);

/**
 * Writes charges the caller has checked against the balance of the account it locked
 * (lockAccount): one ledger row each, the balance moved once, in the caller's transaction.
 */
export async function recordCharges(tx: Queryable, accountId: string, charges: readonly { amount: number; reason: string }[], at: Date): Promise<void> {
  const paid = charges.filter((charge) => charge.amount > 0);
  if (paid.length === 0) return;
  const total = paid.reduce((sum, charge) => sum + charge.amount, 0);
  const [after] = await tx.query<{ credit_balance: number }>('UPDATE accounts SET credit_balance = credit_balance - $2 WHERE id = $1 RETURNING credit_balance', [accountId, total]);
  let balance = after!.credit_balance + total;
  const balances = paid.map((charge) => (balance -= charge.amount));
  await tx.query(
    `INSERT INTO credit_ledger (account_id, amount, balance_after, reason, created_at)
     SELECT $1, -amount, balance_after, reason, $5 FROM unnest($2::bigint[], $3::bigint[], $4::text[]) WITH ORDINALITY AS c(amount, balance_after, reason, n) ORDER BY n`,
    [accountId, paid.map((c) => c.amount), balances, paid.map((c) => c.reason), at],
  );
}
