// Charging credits, for the features that bill (event search now, beat entries later): the
// account row is locked and the ledger row written in the caller's transaction, so the
// charge commits or vanishes with the thing it pays for.
import type { Queryable } from '../../platform/db/database.js';
import { accountsStore as store, type AccountRow, type PlanRow } from './accounts.store.js';

/** The account and its plan's values, as they are now (no lock). */
export async function accountAndPlan(db: Queryable, accountId: string): Promise<{ account: AccountRow; plan: PlanRow }> {
  const account = await store.getAccount(db, accountId);
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
