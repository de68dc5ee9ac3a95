// What a key reads of its own account: the account with its plan and this month's usage, and
// its credit ledger, newest first.
import type { Static } from '@sinclair/typebox';
import { monthStart, type Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import { listPage } from '../../platform/list-page.js';
import { fieldProblem } from '../../platform/problems.js';
import { accountAndPlan } from './billing.js';
import type { CreditTransaction, SelfAccount } from './self-service.schemas.js';
import { SELF_PLAN_FIELDS } from './self-service.schemas.js';
import { selfServiceStore as store } from './self-service.store.js';

export function selfService({ db, clock }: { db: Database; clock: Clock }) {
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
      let afterSeq: number | null = null;
      if (startingAfter !== undefined) {
        afterSeq = await store.ledgerSeq(db, accountId, startingAfter);
        if (afterSeq === null) throw fieldProblem('/starting_after', 'names no credit transaction of this account');
      }
      const rows = await store.ledgerPage(db, accountId, limit + 1, afterSeq);
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
  };
}

export type SelfService = ReturnType<typeof selfService>;
