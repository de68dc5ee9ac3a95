// Credits: the balance, this month's usage, credits spent per day, and the ledger, newest
// first, paged; a day's unbroken run of one beat's entry charges makes one line naming the beat.
import type { Static } from '@sinclair/typebox';
import type { LedgerGroup } from '../../modules/accounts/self-service.js';
import type { SelfAccount } from '../../modules/accounts/self-service.schemas.js';
import { DayChart } from './day-chart.js';
import { Day, page, Stats, when, type Viewer } from './layout.js';
import { Table, type Column } from './table.js';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a ledger line was for, in words, with the beat it charged for as a link. */
function What({ group, beatNames }: { group: LedgerGroup; beatNames: Map<string, string> }) {
  switch (group.kind) {
    case 'SEARCH':
      return <strong>Search</strong>;
    case 'BEAT_ENTRY': {
      const name = group.beat_id === null ? undefined : beatNames.get(group.beat_id);
      return (
        <>
          <strong>{count(group.entries, 'beat entry', 'beat entries')}</strong> for{' '}
          {name === undefined ? <span class="muted">a deleted beat</span> : <a href={`/console/beats/${group.beat_id}`}>{name}</a>}
        </>
      );
    }
    default:
      return (
        <>
          <strong>{group.kind === 'GRANT' ? 'Grant' : 'Adjustment'}</strong>: {group.reason}
        </>
      );
  }
}

const ledgerColumns = (beatNames: Map<string, string>): Column<LedgerGroup>[] => [
  // A day's run of a beat's entries is one line: it shows that day.
  {
    label: 'When',
    cell: (group) =>
      group.entries > 1 ? (
        <>
          <Day day={group.created_at.slice(0, 10)} /> (UTC day)
        </>
      ) : (
        when(group.created_at)
      ),
  },
  { label: 'What', cell: (group) => <What group={group} beatNames={beatNames} /> },
  { label: 'Amount', numeric: true, cell: (group) => (group.amount > 0 ? `+${group.amount}` : group.amount) },
  { label: 'Balance after', numeric: true, cell: (group) => group.balance_after },
];

export interface CreditsPageProps {
  viewer: Viewer;
  account: Static<typeof SelfAccount>;
  spent: { days: string[]; spent: number[] };
  ledger: LedgerGroup[];
  beatNames: Map<string, string>;
  nextAfter: string | null;
  paged: boolean;
}

export function creditsPage({ viewer, account, spent, ledger, beatNames, nextAfter, paged }: CreditsPageProps): string {
  const usage = account.usage_this_month;
  const plan = account.plan as { name: string; search_credit_cost: number; beat_entry_credit_cost: number };
  return page({
    title: 'Credits',
    section: '/console/credits',
    viewer,
    children: (
      <>
        <Stats
          items={[
            { label: 'Balance', value: account.credit_balance, testid: 'credit-balance' },
            { label: 'Spent this month', value: usage.credits_spent, testid: 'credits-spent' },
            { label: 'Searches this month', value: usage.searches },
            { label: 'Beat entries this month', value: usage.beat_entries },
          ]}
        />
        <p class="muted">
          Plan <strong>{plan.name}</strong>: a search costs {count(plan.search_credit_cost, 'credit', 'credits')}, a beat entry{' '}
          {count(plan.beat_entry_credit_cost, 'credit', 'credits')}. Months are calendar months in UTC.
        </p>
        <section class="card">
          <h2>Spent per day</h2>
          <DayChart title="Credits spent per day" days={spent.days} series={[{ label: 'credits', tone: 'accent', values: spent.spent }]} />
        </section>
        <section class="card">
          <h2>Ledger</h2>
          {ledger.length === 0 ? (
            <p>No credit transactions{paged ? ' before these' : ''}.</p>
          ) : (
            <Table columns={ledgerColumns(beatNames)} rows={ledger} rowAttributes={() => ({ 'data-testid': 'ledger-row' })} />
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
