// A beat's entries on its console page: newest recorded first, a page at a time, with links to
// the newer and older pages (plain links: no script needed). An event known only to the day
// shows its day, not a midnight that nobody reported.
import type { BeatEntry } from '../../modules/beats/beats.schemas.js';
import type { EntriesPage } from '../../modules/beats/beat-entries.service.js';
import type { WindowPosition } from '../../modules/beats/beat-entries.store.js';
import { Day, when } from './layout.js';
import { Table, type Column } from './table.js';

/** A position in a page link: "<added_at in ms>-<seq>" (the console's own format). */
export const positionParam = (position: WindowPosition) => `${position.atMs}-${position.seq}`;

export function readPositionParam(text: string): WindowPosition {
  const cut = text.lastIndexOf('-');
  return { atMs: Number(text.slice(0, cut)), seq: Number(text.slice(cut + 1)) };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** When the entry's event occurred: a date when that is all its `happened_at` says. */
export function occurred(entry: BeatEntry) {
  const happened = entry.event?.happened_at?.trim() ?? '';
  return DATE_ONLY.test(happened) && entry.occurred_at.startsWith(happened) ? <Day day={happened} /> : when(entry.occurred_at);
}

const entryColumns: Column<BeatEntry>[] = [
  {
    label: 'Recorded',
    cell: (entry) => (
      <>
        {when(entry.added_at)}
        {entry.backfilled && <div class="muted">backfilled</div>}
      </>
    ),
  },
  { label: 'Occurred', cell: (entry) => <span data-testid="entry-occurred">{occurred(entry)}</span> },
  {
    label: 'Event',
    cell: (entry) =>
      entry.event ? (
        <>
          <code>{entry.event.event_type.code_name}</code> {entry.event.sentence ?? <span class="muted">(no sentence yet)</span>}
        </>
      ) : (
        <span class="muted">event no longer available</span>
      ),
  },
];

export function BeatEntries({ beatId, page }: { beatId: string; page: EntriesPage }) {
  const link = (direction: 'newer' | 'older', position: WindowPosition) => `/console/beats/${beatId}?${direction}=${positionParam(position)}`;
  return (
    <section class="card">
      <h2>Entries</h2>
      <p class="muted">
        {page.total} {page.total === 1 ? 'entry' : 'entries'} recorded in the past {page.retentionDays} days (as long as entries are kept), newest first.
      </p>
      {page.entries.length === 0 ? (
        <p>No entries here.</p>
      ) : (
        <Table columns={entryColumns} rows={page.entries} rowAttributes={() => ({ 'data-testid': 'beat-entry-row' })} />
      )}
      <nav class="pager" aria-label="Entry pages">
        {page.newer && (
          <a href={`/console/beats/${beatId}`} data-testid="entries-newest">
            Newest
          </a>
        )}
        {page.newer && (
          <a href={link('newer', page.newer)} rel="prev" data-testid="entries-newer">
            Newer entries
          </a>
        )}
        {page.older && (
          <a href={link('older', page.older)} rel="next" data-testid="entries-older">
            Older entries
          </a>
        )}
      </nav>
    </section>
  );
}
