// The set-based bulk ingest behind POST /ops/v1/articles/bulk and evmon import. A batch is
// checked line by line by the rules the single call follows (new-report.ts), clustered
// in memory against the corpus and against itself (batch-clustering.ts), and written with one
// COPY or multi-row statement per table; each touched event's state is computed once, from its
// stored reports and the batch's, and each touched event is published once. The caller's
// transaction holds the clustering locks of every type of the batch and the article locks,
// so no other ingest clusters into these types meanwhile.
import { DAY_MS } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { ProblemError } from '../../platform/problems.js';
import { addTo, BatchClusters, type ClusterCandidate, type ClusterEvent } from './batch-clustering.js';
import { clusterEventsStore, type EventFate, type ReachPair } from './cluster-events.store.js';
import { CLUSTER_WINDOW_DAYS, readHappenedOn, windowAnchor } from './clustering.js';
import { type IndexRows, insertIndexRows, rebuildEventIndex } from './event-index.store.js';
import type { EventChange, EventChanges } from './event-changes.js';
import { eventState } from './event-state.js';
import type { IngestArticleBody } from './events.schemas.js';
import { type EventStateRow, eventsStore } from './events.store.js';
import { articleKey, ingestLocksStore } from './ingest-locks.store.js';
import {
  articleEntityIds,
  articleReport,
  incidentTarget,
  type LineOutcome,
  namedRoles,
  type NewReport,
  newReportState,
  noSuchOutlet,
  participantsOf,
  reportDate,
  reportRow,
  reportSource,
  sourceSeqs,
  storedReportState,
  survivorsOf,
} from './new-report.js';
import { referenceStore } from './reference.store.js';
import { reportsStore } from './reports.store.js';

const WINDOW_MS = CLUSTER_WINDOW_DAYS * DAY_MS;
/** Events per published change. */
const CHANGE_EVENTS = 500;

export interface BatchDeps {
  newId: IdGenerator;
  changes: EventChanges;
  now: Date;
}

/** A line that will be stored: its checked report and where clustering put it. */
interface Placed {
  line: number;
  id: string;
  eventId: string;
  report: NewReport;
  date: Date;
}

export async function ingestBatch(tx: Queryable, deps: BatchDeps, items: readonly { line: number; body: IngestArticleBody }[]): Promise<LineOutcome[]> {
  const { newId, now } = deps;
  // What the lines name, each looked up once for the batch.
  const outlets = await ingestLocksStore.existingOutlets(
    tx,
    items.map(({ body }) => body.outlet_id),
  );
  const stored = await ingestLocksStore.storedArticles(
    tx,
    items.flatMap(({ body }) => (body.url && outlets.has(body.outlet_id) ? [{ outletId: body.outlet_id, url: body.url }] : [])),
  );
  const types = await referenceStore.eventTypesWithRoles(tx, [...new Set(items.map(({ body }) => body.event_type_id))]);
  const entities = await referenceStore.resolveEntitiesLocked(tx, [...new Set(items.flatMap(({ body }) => articleEntityIds(body)))]);
  const live = survivorsOf(entities);

  // Each line checked as the single call checks it; stored articles answered before their content is read.
  const checked = await Promise.all(
    items.map(async ({ line, body }) => {
      if (!outlets.has(body.outlet_id)) return { line, body, result: noSuchOutlet() };
      const found = body.url ? stored.get(articleKey(body.outlet_id, body.url)) : undefined;
      if (found) return { line, body, result: found };
      try {
        return { line, body, result: await articleReport(body, types.get(body.event_type_id), live, now) };
      } catch (error) {
        if (error instanceof ProblemError) return { line, body, result: error };
        throw error;
      }
    }),
  );
  const reports = checked.flatMap(({ result }) => (result instanceof ProblemError || !('source' in result) ? [] : [result]));

  const loaded = await loadClusterEvents(tx, reports);
  const clusters = new BatchClusters(loaded.values());
  const outcomes: LineOutcome[] = [];
  const placed: Placed[] = [];
  const storedInBatch = new Map<string, Placed>();
  for (const { line, body, result } of checked) {
    const earlier = body.url ? storedInBatch.get(articleKey(body.outlet_id, body.url)) : undefined;
    // A line is the article an earlier line stored whatever its content (the single call looks
    // the article up before reading the rest), or a stored one, or refused with its problem.
    if (earlier) {
      outcomes.push({ line, status: 200, id: earlier.id, incident_id: earlier.eventId });
      continue;
    }
    if (result instanceof ProblemError) {
      outcomes.push({ line, status: 400, problem: result });
      continue;
    }
    if (!('source' in result)) {
      outcomes.push({ line, status: 200, id: result.id, incident_id: result.incident_id });
      continue;
    }
    const report = result;
    const date = reportDate(report.publishedAt, report.receivedAt);
    const entityValues = namedRoles(report);
    let event: ClusterEvent | null = null;
    let eventId: string | null = null; // ids are drawn line by line, so they sort in line order as one by one
    if (report.incidentId) {
      try {
        event = clusters.events.get(incidentTarget(loaded.rowOf(report.incidentId), loaded.survivorOf(report.incidentId), report.type.id).id)!;
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        outcomes.push({ line, status: 400, problem: error });
        continue;
      }
    }
    const candidate: ClusterCandidate = {
      eventTypeId: report.type.id,
      date: date.getTime(),
      happenedAt: report.happenedAt,
      participants: participantsOf(report),
      namedRoles: entityValues,
    };
    event ??= clusters.find(candidate);
    if (!event) eventId = newId();
    const id = newId();
    event ??= clusters.open(eventId!, report.type.id, date.getTime());
    clusters.join(event, { ...candidate, id }, entityValues);
    const entry = { line, id, eventId: event.id, report, date };
    placed.push(entry);
    if (report.url) storedInBatch.set(articleKey(body.outlet_id, report.url), entry);
    outcomes.push({ line, status: 201, id, incident_id: event.id });
  }
  await writeBatch(tx, deps, placed, { loaded, types });
  return outcomes;
}

/**
 * The corpus events the batch can reach, locked (FOR UPDATE, in id order) and read with what
 * clustering needs: for each report, the events of its type sharing one of its participants
 * whose window anchor lies within reach of the report's own anchor; and those the reports name through
 * incident_id (with their survivors). An event outside these is one no report of the batch
 * can join, so nothing the batch does moves it into reach.
 */
async function loadClusterEvents(tx: Queryable, reports: readonly NewReport[]) {
  // Each (type, participant) pair reaches the events around its own reports' anchors: one
  // window per pair, not one spanning the whole batch (a batch of a year's articles would
  // otherwise lock and read every event of its entities).
  const pairs = new Map<string, ReachPair>();
  for (const report of reports) {
    const anchor = windowAnchor(readHappenedOn(report.happenedAt), reportDate(report.publishedAt, report.receivedAt));
    for (const { entityId } of namedRoles(report)) {
      const key = `${report.type.id} ${entityId}`;
      const pair = pairs.get(key);
      if (pair) {
        pair.from = Math.min(pair.from, anchor - WINDOW_MS);
        pair.to = Math.max(pair.to, anchor + WINDOW_MS);
      } else pairs.set(key, { typeId: report.type.id, entityId, from: anchor - WINDOW_MS, to: anchor + WINDOW_MS });
    }
  }
  const ids = new Set(await clusterEventsStore.reachedEvents(tx, [...pairs.values()]));
  const named = [...new Set(reports.flatMap((report) => (report.incidentId ? [report.incidentId] : [])))];
  for (const row of await clusterEventsStore.namedEvents(tx, named)) {
    ids.add(row.id);
    if (row.merged_into_event_id) ids.add(row.merged_into_event_id);
  }
  const events = new Map<string, ClusterEvent>();
  const fates = new Map<string, EventFate>();
  const firstBefore = new Map<string, number>();
  if (ids.size > 0) {
    const all = [...ids];
    // Locked before they are read, so what is read stays true until commit (a deletion waits).
    await eventsStore.lockEvents(tx, all);
    for (const row of await clusterEventsStore.clusterEvents(tx, all)) {
      fates.set(row.id, row);
      firstBefore.set(row.id, row.first_report_date.getTime());
      events.set(row.id, {
        id: row.id,
        eventTypeId: row.event_type_id,
        live: !row.deleted_at && !row.merged_into_event_id,
        first: row.first_report_date.getTime(),
        happenedOn: row.happened_on,
        happenedFrom: row.happened_from_id ? { date: row.happened_from_date!.getTime(), id: row.happened_from_id } : null,
        participants: new Set(),
        roleEntities: new Map(),
      });
    }
    for (const row of await clusterEventsStore.participantsOf(tx, all)) events.get(row.event_id)!.participants.add(row.entity_id);
    for (const row of await clusterEventsStore.roleEntitiesOf(tx, all)) addTo(events.get(row.event_id)!.roleEntities, row.role_id, row.entity_id);
  }
  return {
    values: () => events.values(),
    /** Whether the event was in the corpus before the batch (loaded), not opened by it. */
    has: (id: string) => events.has(id),
    /** The first report date (ms) the event had before the batch (clustering moves the live one). */
    firstBefore: (id: string) => firstBefore.get(id),
    rowOf: (id: string) => fates.get(id),
    survivorOf: (id: string) => {
      const row = fates.get(id);
      return row && fates.get(row.merged_into_event_id ?? row.id);
    },
  };
}

type Loaded = Awaited<ReturnType<typeof loadClusterEvents>>;

/**
 * Writes the placed reports and the state of every event they touch, each computed once from
 * the event's stored reports and the batch's; then the search index rows and one change per
 * touched event.
 */
async function writeBatch(
  tx: Queryable,
  { changes, now }: BatchDeps,
  placed: readonly Placed[],
  context: {
    loaded: Loaded;
    types: Awaited<ReturnType<typeof referenceStore.eventTypesWithRoles>>;
  },
): Promise<void> {
  if (placed.length === 0) return;
  const { types, loaded } = context;
  const seqs = await reportsStore.nextReportSeqs(tx, placed.length);
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
    const state = eventState([...before.map(storedReportState), ...added.map(({ placed: { id, report, date } }) => newReportState(report, id, date))], {
      template: type.sentence_template,
      roles,
    });
    const seqsBySource = [...before, ...added.map(({ placed: entry, seq }) => ({ received_seq: seq, source_id: reportSource(entry.report).id }))];
    return { ...state, id: eventId, eventTypeId: type.id, isNew: !loaded.has(eventId), sourceSeqs: sourceSeqs(seqsBySource), typeVersion: type.version };
  });
  await eventsStore.writeStates(tx, states, now);
  await reportsStore.insertReports(
    tx,
    placed.map(({ id, eventId, report, date }, i) => ({ ...reportRow(report, { id, eventId, date, now }), received_seq: seqs[i]! })),
  );
  await reportsStore.insertRoleValuesOf(
    tx,
    placed.flatMap(({ id, report }) => report.values.map((value, i) => ({ ...value, reportId: id, position: i + 1 }))),
  );
  await reportsStore.insertMentionsOf(
    tx,
    placed.flatMap(({ id, report }) => report.mentioned.map((entityId) => ({ reportId: id, entityId }))),
  );
  // An event whose first report date moved has every index row rebuilt (each carries that
  // date); the others only gain their new reports' rows, made here from what the batch holds.
  const moved = new Set(states.filter((state) => !state.isNew && state.first.getTime() !== loaded.firstBefore(state.id)).map((state) => state.id));
  await rebuildEventIndex(tx, [...moved], { sourceSeqsWritten: true });
  const rows: IndexRows = { sources: [], values: [] };
  for (const state of states) {
    if (moved.has(state.id)) continue;
    const known = new Set((storedReports.get(state.id) ?? []).map((report) => report.source_id));
    for (const { placed: entry, seq } of byEvent.get(state.id)!) {
      const { report } = entry;
      const source = reportSource(report);
      if (!known.has(source.id)) {
        known.add(source.id);
        rows.sources.push({ eventId: state.id, sourceId: source.id, sourceKind: source.kind, firstSeq: seq, firstReportDate: state.first });
      }
      for (const v of report.values) {
        const entityId = v.entityId ? report.survivors.get(v.entityId)! : null;
        rows.values.push({
          eventId: state.id,
          roleId: v.roleId,
          sourceKind: report.source.kind,
          seq,
          firstReportDate: state.first,
          entityId,
          date: v.date,
          amount: v.amount,
        });
      }
    }
  }
  await insertIndexRows(tx, rows);
  // Each touched event named once, in changes of at most CHANGE_EVENTS events: a subscriber
  // matches a change's events together, and a retry of one change repeats only its share.
  const touched = [...byEvent.keys()];
  const published: EventChange[] = [];
  for (let i = 0; i < touched.length; i += CHANGE_EVENTS) published.push({ kind: 'reports-added', eventIds: touched.slice(i, i + CHANGE_EVENTS) });
  await changes.publishAll(tx, published);
}
