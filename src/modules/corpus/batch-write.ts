// The writes of a bulk ingest (article-batch.ts places the lines): the placed reports with
// one COPY or multi-row statement per table, the state of every event they touch computed
// once from its stored reports and the batch's, and one published change per touched event.
// (An event's sources and role values are read from its reports: migrations 031 and 032.)
import type { Queryable } from '../../platform/db/database.js';
import type { EventChange, EventChanges } from './event-changes.js';
import { eventState, newReportState, storedReportState } from './event-state.js';
import { type EventStateRow, eventsStore } from './events.store.js';
import { type NewReport, type Placement, sourceSeqs } from './new-report.js';
import type { EventTypeWithRoles } from './reference.store.js';
import { reportsStore } from './reports.store.js';
import { involvedOnce } from './event-view.js';
import { type GroupedReport, independentSourceCount } from './independent-sources.js';
import { referenceStore } from './reference.store.js';
import type { RevisionState } from './revision-changes.js';

/** Events per published change. */
const CHANGE_EVENTS = 500;

/** A line that will be stored: its checked report and where clustering put it. */
export interface Placed {
  line: number;
  id: string;
  eventId: string;
  report: NewReport;
  placement: Placement;
  /** Its copy group: a stored report's (its group's receive sequence value), or a line's of the batch (itself: its own). */
  group: GroupRef;
}

/** A copy group a line is in: a stored group, or the group a line of the batch leads (its receive sequence value is drawn at the write). */
export type GroupRef = { stored: number } | { leader: Placed };

/** The copy_group a placed line is stored with (null: it leads its own group), once the lines' receive sequence values are drawn. */
function copyGroupOf(entry: Placed, seqOf: ReadonlyMap<Placed, number>): number | null {
  const { group } = entry;
  if ('stored' in group) return group.stored;
  return group.leader === entry ? null : seqOf.get(group.leader)!;
}

/** What the batch loaded of the corpus events it reaches (article-batch.ts loadClusterEvents). */
export interface LoadedEvents {
  /** Whether the event was in the corpus before the batch (loaded), not opened by it. */
  has(id: string): boolean;
}

/**
 * Writes the placed reports and the state of every event they touch, each computed once from
 * the event's stored reports and the batch's; then one change per touched event.
 */
export async function writeBatch(
  tx: Queryable,
  { changes, now }: { changes: EventChanges; now: Date },
  placed: readonly Placed[],
  context: {
    loaded: LoadedEvents;
    types: ReadonlyMap<string, EventTypeWithRoles>;
  },
): Promise<void> {
  if (placed.length === 0) return;
  const { types, loaded } = context;
  const seqs = await reportsStore.nextReportSeqs(tx, placed.length);
  const seqOf = new Map(placed.map((entry, i) => [entry, seqs[i]!]));
  const byEvent = new Map<string, { placed: Placed; seq: number }[]>();
  placed.forEach((entry, i) => {
    const list = byEvent.get(entry.eventId) ?? [];
    list.push({ placed: entry, seq: seqs[i]! });
    byEvent.set(entry.eventId, list);
  });
  const storedIds = [...byEvent.keys()].filter((id) => loaded.has(id));
  const storedReports = new Map<string, Awaited<ReturnType<typeof reportsStore.reportsWithValuesOf>>>();
  for (const row of await reportsStore.reportsWithValuesOf(tx, storedIds)) {
    const list = storedReports.get(row.event_id) ?? [];
    list.push(row);
    storedReports.set(row.event_id, list);
  }
  const states: EventStateRow[] = [...byEvent].map(([eventId, added]) => {
    const before = storedReports.get(eventId) ?? [];
    const { type, roles } = types.get(added[0]!.placed.report.type.id)!;
    const state = eventState(
      [
        ...before.map(storedReportState),
        ...added.map(({ placed: { id, report, placement } }) => newReportState(report, { id, date: placement.date, mentioned: placement.mentioned })),
      ],
      {
        template: type.sentence_template,
        roles,
      },
    );
    const seqsBySource = [...before, ...added.map(({ placed: entry, seq }) => ({ received_seq: seq, source_id: entry.placement.source.id }))];
    return { ...state, id: eventId, eventTypeId: type.id, isNew: !loaded.has(eventId), sourceSeqs: sourceSeqs(seqsBySource), typeVersion: type.version };
  });
  await eventsStore.writeStates(tx, states, now);
  await reportsStore.insertReports(
    tx,
    placed.map((entry, i) => {
      const rows = entry.placement.rows({ ...entry, copyGroup: copyGroupOf(entry, seqOf) });
      return { ...rows, row: { ...rows.row, received_seq: seqs[i]! } };
    }),
  );
  // Each touched event named once, in changes of at most CHANGE_EVENTS events: a subscriber
  // matches a change's events together, and a retry of one change repeats only its share.
  const touched = [...byEvent.keys()];
  const published: EventChange[] = [];
  for (let i = 0; i < touched.length; i += CHANGE_EVENTS) published.push({ kind: 'reports-added', eventIds: touched.slice(i, i + CHANGE_EVENTS) });
  // Their revisions' states from what the batch holds, as their views would read them back.
  const entities = new Map((await referenceStore.resolveEntities(tx, [...new Set(states.flatMap((state) => state.involved))])).map((row) => [row.id, row]));
  const viewed = new Map<string, RevisionState>();
  for (const state of states) {
    const before = storedReports.get(state.id) ?? [];
    const added = byEvent.get(state.id)!;
    const grouped: GroupedReport[] = [
      ...before.map((report) => ({
        group: String(report.copy_group ?? report.received_seq),
        sourceId: report.source_id,
        date: report.report_date.getTime(),
        seq: Number(report.received_seq),
      })),
      ...added.map(({ placed: entry, seq }) => ({
        group: String(copyGroupOf(entry, seqOf) ?? seq),
        sourceId: entry.placement.source.id,
        date: entry.placement.date.getTime(),
        seq,
      })),
    ];
    viewed.set(state.id, {
      sentence: state.sentence,
      happened_at: state.happenedAt,
      first_report_date: state.first.toISOString(),
      last_report_date: state.last.toISOString(),
      matched_report_count: before.length + added.length,
      distinct_outlet_count: state.sourceSeqs.length,
      independent_source_count: independentSourceCount(grouped),
      involved_entities: involvedOnce(
        state.involved.flatMap((id) => {
          const entity = entities.get(id);
          return entity && !entity.deleted ? [entity] : [];
        }),
      ),
    });
  }
  await changes.publishAll(tx, published, { states: viewed, fresh: new Set(states.filter((state) => state.isNew).map((state) => state.id)) });
}
