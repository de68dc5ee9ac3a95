// What a key reads of its own account: the account with its plan and this month's usage, and
// its credit ledger, newest first.
import type { Static } from '@sinclair/typebox';
import { monthStart, type Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import { lastUtcDays, perDay } from '../../platform/day-series.js';
import { listPage } from '../../platform/list-page.js';
import { fieldProblem } from '../../platform/problems.js';
import type { LedgerKind } from './accounts.store.js';
import { accountAndPlan } from './billing.js';
import type { CreditTransaction, SelfAccount } from './self-service.schemas.js';
import { SELF_PLAN_FIELDS } from './self-service.schemas.js';
import { selfServiceStore as store } from './self-service.store.js';

export function selfService({ db: primary, clock }: { db: Database; clock: Clock }) {
  const db = primary.reads; // it only reads, and takes no lock: a standby's reads when there are any
  /** The ledger position a `starting_after` names (a transaction of this account), or null without one. */
  async function positionOf(accountId: string, startingAfter: string | undefined): Promise<number | null> {
    if (startingAfter === undefined) return null;
    const seq = await store.ledgerSeq(db, accountId, startingAfter);
    if (seq === null) throw fieldProblem('/starting_after', 'names no credit transaction of this account');
    return seq;
  }

  return {
    async account(accountId: string): Promise<Static<typeof SelfAccount>> {
      const { account, plan } = await accountAndPlan(db, accountId);
      const usage = await store.usageSince(db, accountId, monthStart(clock.now()));
      return {
        object: 'account',
        id: account.id,
        display_name: account.display_name,
        kind: account.kind,
        credit_balance: account.credit_balance,
        entitlements: { structured_reporting: account.structured_reporting, entity_reporting: account.entity_reporting, beats: account.beats },
        plan: { name: plan.name, ...Object.fromEntries(SELF_PLAN_FIELDS.map((field) => [field, plan[field]])) } as never,
        usage_this_month: usage,
      };
    },

    async creditTransactions(accountId: string, limit: number, startingAfter?: string) {
      const rows = await store.ledgerPage(db, accountId, limit + 1, await positionOf(accountId, startingAfter));
      return listPage(
        rows.map(
          (row): Static<typeof CreditTransaction> => ({
            id: row.public_id,
            object: 'credit_transaction',
            amount: Number(row.amount),
            balance_after: Number(row.balance_after),
            kind: row.kind,
            beat_id: row.beat_id,
            execution_id: row.execution_id,
            reason: row.reason,
            created_at: row.created_at.toISOString(),
          }),
        ),
        limit,
      );
    },

    /**
     * The ledger as the console shows it: a day's entry charges of one beat as one group, other
     * rows on their own; newest first, paged by `starting_after`, the id of a page's last group.
     */
    async ledgerGroups(accountId: string, limit: number, startingAfter?: string) {
      const rows = await store.ledgerGroupsPage(db, accountId, limit + 1, await positionOf(accountId, startingAfter));
      return listPage(
        rows.map(
          (row): LedgerGroup => ({
            id: row.public_id,
            kind: row.kind,
            beat_id: row.beat_id,
            execution_id: row.execution_id,
            reason: row.reason,
            entries: row.entries,
            amount: Number(row.amount),
            balance_after: Number(row.balance_after),
            created_at: row.created_at.toISOString(),
          }),
        ),
        limit,
      );
    },

    /** Credits charged on each of the last `days` UTC days, today (the clock's) included. */
    async spentPerDay(accountId: string, days: number) {
      const range = lastUtcDays(clock.now(), days);
      const rows = await store.spentByDay(db, accountId, range.from, range.until);
      return { days: range.days, spent: perDay(range, rows, (row) => Number(row.spent)) };
    },
  };
}

/** A group of the ledger, read from its newest row (its id, time and balance after). */
export interface LedgerGroup {
  id: string;
  kind: LedgerKind;
  beat_id: string | null;
  execution_id: string | null;
  reason: string;
  entries: number;
  amount: number;
  balance_after: number;
  created_at: string;
}

export type SelfService = ReturnType<typeof selfService>;
