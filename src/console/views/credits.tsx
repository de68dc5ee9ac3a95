// Credits: the balance, this month's usage, and the ledger, newest first, paged.
import type { Static } from '@sinclair/typebox';
import type { CreditTransaction, SelfAccount } from '../../modules/accounts/self-service.schemas.js';
import { page, Table, when, type Viewer } from './layout.js';

const creditCount = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

const KIND_LABELS: Record<string, string> = { SEARCH: 'Search', BEAT_ENTRY: 'Beat entry', GRANT: 'Grant', ADJUSTMENT: 'Adjustment' };

export function creditsPage({
  viewer,
  account,
  ledger,
  nextAfter,
  paged,
}: {
  viewer: Viewer;
  account: Static<typeof SelfAccount>;
  ledger: Static<typeof CreditTransaction>[];
  nextAfter: string | null;
  paged: boolean;
}): string {
  const usage = account.usage_this_month;
  const plan = account.plan as { name: string; search_credit_cost: number; beat_entry_credit_cost: number };
  return page({
    title: 'Credits',
    section: '/console/credits',
    viewer,
    children: (
      <>
        <dl class="stats">
          <div>
            <dt>Balance</dt>
            <dd data-testid="credit-balance">{account.credit_balance}</dd>
          </div>
          <div>
            <dt>Spent this month</dt>
            <dd data-testid="credits-spent">{usage.credits_spent}</dd>
          </div>
          <div>
            <dt>Searches this month</dt>
            <dd>{usage.searches}</dd>
          </div>
          <div>
            <dt>Beat entries this month</dt>
            <dd>{usage.beat_entries}</dd>
          </div>
        </dl>
        <p class="muted">
          Plan <strong>{plan.name}</strong>: a search costs {creditCount(plan.search_credit_cost)}, a beat entry {creditCount(plan.beat_entry_credit_cost)}.
          Months are calendar months in UTC.
        </p>
        <section class="card">
          <h2>Ledger</h2>
          {ledger.length === 0 ? (
            <p>No credit transactions{paged ? ' before these' : ''}.</p>
          ) : (
            <Table columns={['When', 'Kind', { label: 'Amount', numeric: true }, { label: 'Balance after', numeric: true }, 'Reason']}>
              {ledger.map((row) => (
                <tr data-testid="ledger-row">
                  <td>{when(row.created_at)}</td>
                  <td>{KIND_LABELS[row.kind] ?? row.kind}</td>
                  <td class="num">{row.amount > 0 ? `+${row.amount}` : row.amount}</td>
                  <td class="num">{row.balance_after}</td>
                  <td>{row.reason}</td>
                </tr>
              ))}
            </Table>
          )}
          <nav class="pager" aria-label="Ledger pages">
            {paged && <a href="/console/credits">Newest</a>}
            {nextAfter && <a href={`/console/credits?starting_after=${nextAfter}`}>Older</a>}
          </nav>
        </section>
      </>
    ),
  });
}
