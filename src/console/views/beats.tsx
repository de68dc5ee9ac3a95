// Beats: each with its status, spend cap and spend this month; a beat's gaps and latest entries.
import type { Beat, BeatEntries } from '../../modules/beats/beats.schemas.js';
import { page, Table, when, type Viewer } from './layout.js';

const Status = ({ status }: { status: string }) => <span class={`badge${status === 'ACTIVE' ? ' ok' : status === 'PAUSED_CAP' ? ' bad' : ''}`}>{status}</span>;

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
          <Table
            columns={[
              'Name',
              'Status',
              { label: 'Spent this month', numeric: true },
              { label: 'Spend cap', numeric: true },
              { label: 'Entries this month', numeric: true },
              'Last entry',
            ]}
          >
            {beats.map((beat) => (
              <tr data-testid="beat-row">
                <td>
                  <a href={`/console/beats/${beat.id}`}>{beat.name}</a>
                </td>
                <td>
                  <Status status={beat.status} />
                </td>
                <td class="num">{beat.spent_this_month}</td>
                <td class="num">{beat.spend_cap_credits}</td>
                <td class="num">{beat.entries_this_month}</td>
                <td>{when(beat.last_entry_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    ),
  });
}

export function beatPage({ viewer, beat, entries }: { viewer: Viewer; beat: Beat; entries: BeatEntries }): string {
  return page({
    title: `Beat: ${beat.name}`,
    section: '/console/beats',
    viewer,
    children: (
      <>
        <p>
          <a href="/console/beats">All beats</a>
        </p>
        <dl class="stats">
          <div>
            <dt>Status</dt>
            <dd>
              <Status status={beat.status} />
            </dd>
          </div>
          <div>
            <dt>Spent this month</dt>
            <dd>{beat.spent_this_month}</dd>
          </div>
          <div>
            <dt>Spend cap</dt>
            <dd>{beat.spend_cap_credits}</dd>
          </div>
          <div>
            <dt>Entries this month</dt>
            <dd>{beat.entries_this_month}</dd>
          </div>
        </dl>
        {beat.description && <p>{beat.description}</p>}
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
        <section class="card">
          <h2>Latest entries</h2>
          <p class="muted">The newest entries recorded in the past 30 days, newest first.</p>
          {entries.data.length === 0 ? (
            <p>No entries in the past 30 days.</p>
          ) : (
            <Table columns={['Recorded', 'Occurred', 'Event']}>
              {entries.data.map((entry) => (
                <tr data-testid="beat-entry-row">
                  <td>
                    {when(entry.added_at)}
                    {entry.backfilled && <div class="muted">backfilled</div>}
                  </td>
                  <td>{when(entry.occurred_at)}</td>
                  <td>
                    {entry.event ? (
                      <>
                        <code>{entry.event.event_type.code_name}</code> {entry.event.sentence ?? entry.event.id}
                      </>
                    ) : (
                      <span class="muted">event no longer available</span>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </section>
      </>
    ),
  });
}
