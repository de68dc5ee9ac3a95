// SQL for account self-service: the ledger read by one account.
import { queryOne, type Queryable } from '../../platform/db/database.js';
import type { LedgerKind } from './accounts.store.js';

export interface LedgerRow {
  public_id: string;
  amount: number | string;
  balance_after: number | string;
  kind: LedgerKind;
  beat_id: string | null;
  execution_id: string | null;
  reason: string;
  created_at: Date;
}

export const selfServiceStore = {
  /** Charges since `from`: searches, beat entries, and the credits both took. */
  async usageSince(db: Queryable, accountId: string, from: Date) {
    const row = await queryOne<{ searches: number; beat_entries: number; credits_spent: number }>(
      db,
      `SELECT count(*) FILTER (WHERE kind = 'SEARCH')::int AS searches,
              count(*) FILTER (WHERE kind = 'BEAT_ENTRY')::int AS beat_entries,
              COALESCE(-sum(amount) FILTER (WHERE kind IN ('SEARCH', 'BEAT_ENTRY')), 0)::bigint AS credits_spent
         FROM credit_ledger WHERE account_id = $1 AND created_at >= $2`,
      [accountId, from],
    );
    return { searches: row!.searches, beat_entries: row!.beat_entries, credits_spent: Number(row!.credits_spent) };
  },

  /** The ledger position of one of the account's transactions, or null. */
  async ledgerSeq(db: Queryable, accountId: string, publicId: string): Promise<number | null> {
    const row = await queryOne<{ id: string }>(db, 'SELECT id FROM credit_ledger WHERE public_id = $1 AND account_id = $2', [publicId, accountId]);
    return row ? Number(row.id) : null;
  },

  /** The account's transactions, newest first, before the position `beforeSeq`. */
  ledgerPage(db: Queryable, accountId: string, limit: number, beforeSeq: number | null) {
    return db.query<LedgerRow>(
      `SELECT public_id, amount, balance_after, kind, beat_id, execution_id, reason, created_at
         FROM credit_ledger WHERE account_id = $1 AND ($3::bigint IS NULL OR id < $3) ORDER BY id DESC LIMIT $2`,
      [accountId, limit, beforeSeq],
    );
  },
};
