// Beats: each with its status, spend cap and spend this month; a beat's clauses in words,
// entries per day, gaps and entries, paged.
import type { EntriesPage } from '../../modules/beats/beat-entries.service.js';
import type { Beat } from '../../modules/beats/beats.schemas.js';
import type { ReferenceNames } from '../../modules/corpus/reference.service.js';
import { BeatEntries } from './beat-entries.js';
import { ClauseWords } from './clause-words.js';
import { DayChart } from './day-chart.js';
import { page, Stats, when, type Viewer } from './layout.js';
import { Status } from './status.js';
import { Table, type Column } from './table.js';

const beatColumns: Column<Beat>[] = [
  { label: 'Name', cell: (beat) => <a href={`/console/beats/${beat.id}`}>{beat.name}</a> },
  { label: 'Status', cell: (beat) => <Status status={beat.status} /> },
  { label: 'Spent this month', numeric: true, cell: (beat) => beat.spent_this_month },
  { label: 'Spend cap', numeric: true, cell: (beat) => beat.spend_cap_credits },
  { label: 'Entries this month', numeric: true, cell: (beat) => beat.entries_this_month },
  { label: 'Last entry', cell: (beat) => when(beat.last_entry_at) },
];

export function beatsPage({ viewer, beats }: { viewer: Viewer; beats: Beat[] }): string {
  return page({
    title: 'Beats',
    section: '/console/beats',
    viewer,
    children: (
      <section class="card">
        {beats.length === 0 ? (
          <p>
            No beats yet. Beats are created through the API (<code>POST /v1/beats</code>) or the MCP endpoint.
          </p>
        ) : (
          <Table columns={beatColumns} rows={beats} rowAttributes={() => ({ 'data-testid': 'beat-row' })} />
        )}
      </section>
    ),
  });
}

const beatStats = (beat: Beat) => [
  { label: 'Status', value: <Status status={beat.status} /> },
  { label: 'Spent this month', value: beat.spent_this_month },
  { label: 'Spend cap', value: beat.spend_cap_credits },
  { label: 'Entries this month', value: beat.entries_this_month },
];

export interface BeatPageProps {
  viewer: Viewer;
  beat: Beat;
  names: ReferenceNames;
  recorded: { days: string[]; entries: number[] };
  entries: EntriesPage;
}

export function beatPage({ viewer, beat, names, recorded, entries }: BeatPageProps): string {
  return page({
    title: `Beat: ${beat.name}`,
    section: '/console/beats',
    viewer,
    children: (
      <>
        <p>
          <a href="/console/beats">All beats</a>
        </p>
        <Stats items={beatStats(beat)} />
        {beat.description && <p>{beat.description}</p>}
        <section class="card">
          <h2>Clauses</h2>
          <p class="muted">An event becomes an entry when it matches any one of these.</p>
          <ol class="clauses">
            {beat.clauses.map((clause) => (
              <li data-testid="beat-clause">
                <ClauseWords clause={clause} names={names} />
              </li>
            ))}
          </ol>
        </section>
        <section class="card">
          <h2>Entries per day</h2>
          <DayChart title="Entries recorded per day" days={recorded.days} series={[{ label: 'entries', tone: 'accent', values: recorded.entries }]} />
        </section>
        <section class="card">
          <h2>Gaps</h2>
          {beat.gaps.length === 0 ? (
            <p>No gaps: every matching event since the beat started was recorded.</p>
          ) : (
            <ul>
              {beat.gaps.map((gap) => (
                <li data-testid="beat-gap">
                  Paused by the spend cap from {when(gap.from)} to {gap.until === null ? 'now' : when(gap.until)}
                </li>
              ))}
            </ul>
          )}
        </section>
        <BeatEntries beatId={beat.id} page={entries} />
      </>
    ),
  });
}
