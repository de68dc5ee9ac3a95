// SQL for account self-service: the ledger read by one account, row by row (the API) or
// grouped (the console), and its charges per day.
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

/** A group of ledger rows: a day's entry charges of one beat, or a row on its own. Read from its newest row. */
export interface LedgerGroupRow extends Omit<LedgerRow, 'amount'> {
  /** How many rows the group holds. */
  entries: number;
  /** Their amounts added up. */
  amount: number | string;
}

/**
 * What makes rows one group: entry charges (kind BEAT_ENTRY) of the same beat on the same UTC
 * day with no other row between them; every other row is a group of its own (its id sets it
 * apart). Only unbroken runs are grouped, so each line's "balance after" follows from the line
 * below it (a search between two entries of a beat splits them into two lines).
 */
const ENTRY_DAY = `CASE WHEN kind = 'BEAT_ENTRY' THEN (created_at AT TIME ZONE 'UTC')::date END`;
const LEDGER_GROUP = `kind, beat_id, ${ENTRY_DAY}, CASE WHEN kind = 'BEAT_ENTRY' THEN run ELSE id END`;

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

  /**
   * The account's ledger groups, newest first (by their newest row), those whose newest row is
   * before the position `beforeSeq`. A group is formed over the whole ledger before it is
   * paged, so one that spans a page's position is never cut in two: it belongs wholly to the
   * page of its newest row.
   */
  ledgerGroupsPage(db: Queryable, accountId: string, limit: number, beforeSeq: number | null) {
    return db.query<LedgerGroupRow>(
      `WITH numbered AS (
         -- run tells apart the unbroken runs of a beat's entries on a day (gaps and islands).
         SELECT id, amount, kind, beat_id, created_at,
                row_number() OVER (ORDER BY id) - row_number() OVER (PARTITION BY kind, beat_id, ${ENTRY_DAY} ORDER BY id) AS run
           FROM credit_ledger WHERE account_id = $1
       ), groups AS (
         SELECT max(id) AS last_seq, count(*)::int AS entries, sum(amount)::bigint AS amount
           FROM numbered
          GROUP BY ${LEDGER_GROUP}
         HAVING $3::bigint IS NULL OR max(id) < $3
          ORDER BY max(id) DESC LIMIT $2)
       SELECT l.public_id, l.kind, l.beat_id, l.execution_id, l.reason, l.created_at, l.balance_after, g.entries, g.amount
         FROM groups g JOIN credit_ledger l ON l.id = g.last_seq ORDER BY g.last_seq DESC`,
      [accountId, limit, beforeSeq],
    );
  },

  /** Credits charged (searches and beat entries) per UTC day in [from, until); days without charges left out. */
  spentByDay(db: Queryable, accountId: string, from: Date, until: Date) {
    return db.query<{ day: string; spent: number | string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, (-sum(amount))::bigint AS spent
         FROM credit_ledger WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND kind IN ('SEARCH', 'BEAT_ENTRY')
        GROUP BY 1`,
      [accountId, from, until],
    );
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
