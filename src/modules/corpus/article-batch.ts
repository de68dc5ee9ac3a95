// The set-based bulk ingest behind POST /ops/v1/articles/bulk and evmon import. A batch is
// checked line by line by the single call's rules (articleReport, incidentTarget), clustered
// in memory against the corpus and against itself (batch-clustering.ts), and written with one
// COPY or multi-row statement per table; each touched event's state is computed once, from its
// stored reports and the batch's, and each touched event is published once. The caller's
// transaction holds the clustering locks of every type of the batch and the article locks,
// so no other ingest clusters into these types meanwhile.
import type { Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import { addTo, BatchClusters, type ClusterCandidate, type ClusterEvent } from './batch-clustering.js';
import { CLUSTER_WINDOW_DAYS, readHappenedOn, windowAnchor } from './clustering.js';
import type { EventChange, EventChanges } from './event-changes.js';
import { type IndexRows, insertIndexRows, rebuildEventIndex } from './event-index.js';
import { eventState, type StateReport } from './event-state.js';
import type { IngestArticleBody } from './events.schemas.js';
import {
  articleEntityIds,
  articleReport,
  incidentTarget,
  type LineOutcome,
  type NewReport,
  reportDate,
  reportRow,
  sourceSeqs,
  stateReportOf,
} from './events.service.js';
import { type EventRow, type EventStateRow, eventsStore as store } from './events.store.js';
import { referenceStore } from './reference.store.js';
import { DAY_MS } from '../../platform/clock.js';

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

const articleKey = (outletId: string, url: string) => `${outletId} ${url}`;

export async function ingestBatch(tx: Queryable, deps: BatchDeps, items: readonly { line: number; body: IngestArticleBody }[]): Promise<LineOutcome[]> {
  const { newId, now } = deps;
  // What the lines name, each looked up once for the batch.
  const outlets = new Set(
    (await tx.query<{ id: string }>('SELECT id FROM news_outlets WHERE id = ANY($1::uuid[])', [[...new Set(items.map(({ body }) => body.outlet_id))]])).map(
      (row) => row.id,
    ),
  );
  const stored = await storedArticles(
    tx,
    items.flatMap(({ body }) => (body.url && outlets.has(body.outlet_id) ? [{ outletId: body.outlet_id, url: body.url }] : [])),
  );
  const types = await referenceStore.eventTypesWithRoles(tx, [...new Set(items.map(({ body }) => body.event_type_id))]);
  const entities = await referenceStore.resolveEntitiesLocked(tx, [...new Set(items.flatMap(({ body }) => articleEntityIds(body)))]);
  const survivors = new Map(entities.filter((row) => !row.deleted).map((row) => [row.id, row.canonical_id]));
  const names = new Map(entities.map((row) => [row.canonical_id, row.name]));

  // Each line checked as the single call checks it; stored articles answered before their content is read.
  const checked = await Promise.all(
    items.map(async ({ line, body }) => {
      if (!outlets.has(body.outlet_id)) return { line, body, result: fieldProblem('/outlet_id', 'names no news outlet') };
      const found = body.url ? stored.get(articleKey(body.outlet_id, body.url)) : undefined;
      if (found) return { line, body, result: found };
      try {
        return { line, body, result: await articleReport(body, types.get(body.event_type_id), { survivors, names }, now) };
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
    const entityValues = report.values.flatMap((v) => (v.entityId ? [{ roleId: v.roleId, entityId: survivors.get(v.entityId)! }] : []));
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
      participants: [...new Set(entityValues.map((v) => v.entityId))],
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
  await writeBatch(tx, deps, placed, { loaded, survivors, names, types });
  return outcomes;
}

/** The stored reports of these articles (the first stored of each, by outlet and url), with their events' survivors. */
async function storedArticles(tx: Queryable, articles: readonly { outletId: string; url: string }[]) {
  const found = new Map<string, { id: string; incident_id: string }>();
  if (articles.length === 0) return found;
  const rows = await tx.query<{ outlet_id: string; url: string; id: string; incident_id: string }>(
    // One index lookup per article (the LIMIT keeps the lateral from being flattened): joined
    // as sets, the planner hashes the whole reports table for a batch of a few thousand urls,
    // a cost that grows with the corpus (100 ms a batch at 90,000 reports).
    `SELECT a.outlet_id, a.url, r.id, COALESCE(e.merged_into_event_id, e.id) AS incident_id
       FROM unnest($1::uuid[], $2::text[]) AS a(outlet_id, url)
       CROSS JOIN LATERAL (SELECT r.id, r.event_id FROM reports r
                            WHERE r.outlet_id = a.outlet_id AND md5(r.url) = md5(a.url) AND r.url = a.url
                            ORDER BY r.received_seq LIMIT 1) r
       JOIN events e ON e.id = r.event_id`,
    [articles.map((a) => a.outletId), articles.map((a) => a.url)],
  );
  for (const row of rows) found.set(articleKey(row.outlet_id, row.url), { id: row.id, incident_id: row.incident_id });
  return found;
}

type EventFate = Pick<EventRow, 'id' | 'event_type_id' | 'merged_into_event_id' | 'deleted_at'>;

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
  const pairs = new Map<string, { typeId: string; entityId: string; from: number; to: number }>();
  for (const report of reports) {
    const happenedOn = readHappenedOn(report.happenedAt);
    const anchor = windowAnchor(happenedOn, reportDate(report.publishedAt, report.receivedAt));
    for (const v of report.values) {
      if (!v.entityId) continue;
      const entityId = report.survivors.get(v.entityId)!;
      const key = `${report.type.id} ${entityId}`;
      const pair = pairs.get(key);
      if (pair) {
        pair.from = Math.min(pair.from, anchor - WINDOW_MS);
        pair.to = Math.max(pair.to, anchor + WINDOW_MS);
      } else pairs.set(key, { typeId: report.type.id, entityId, from: anchor - WINDOW_MS, to: anchor + WINDOW_MS });
    }
  }
  const ids = new Set<string>();
  if (pairs.size > 0) {
    // On the participants' anchor index, as findCluster is: per pair, only the events around
    // its reports' anchors are read, however many events its entity is named in. (OFFSET 0
    // keeps each lookup per pair: joined as sets, a planner with lagging statistics may hash
    // whole tables.)
    const list = [...pairs.values()];
    const found = await tx.query<{ id: string }>(
      `SELECT DISTINCT reached.id
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS p(entity_id, type_id, reach_from, reach_to)
         CROSS JOIN LATERAL (
           SELECT e.id FROM event_entities ee JOIN events e ON e.id = ee.event_id
            WHERE ee.entity_id = p.entity_id AND ee.participant AND ee.anchor BETWEEN p.reach_from AND p.reach_to
              AND e.event_type_id = p.type_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
           OFFSET 0) reached`,
      [list.map((p) => p.entityId), list.map((p) => p.typeId), list.map((p) => new Date(p.from)), list.map((p) => new Date(p.to))],
    );
    for (const row of found) ids.add(row.id);
  }
  const named = [...new Set(reports.flatMap((report) => (report.incidentId ? [report.incidentId] : [])))];
  if (named.length > 0) {
    const rows = await tx.query<{ id: string; merged_into_event_id: string | null }>('SELECT id, merged_into_event_id FROM events WHERE id = ANY($1::uuid[])', [
      named,
    ]);
    for (const row of rows) {
      ids.add(row.id);
      if (row.merged_into_event_id) ids.add(row.merged_into_event_id);
    }
  }
  const events = new Map<string, ClusterEvent>();
  const fates = new Map<string, EventFate>();
  const firstBefore = new Map<string, number>();
  if (ids.size > 0) {
    const all = [...ids];
    // Locked before they are read, so what is read stays true until commit (a deletion waits).
    await store.lockEvents(tx, all);
    const rows = await tx.query<
      EventFate & { first_report_date: Date; happened_on: string | null; happened_from_date: Date | null; happened_from_id: string | null }
    >(
      `SELECT e.id, e.event_type_id, e.merged_into_event_id, e.deleted_at, e.first_report_date, to_char(e.happened_on, 'YYYY-MM-DD') AS happened_on,
              h.report_date AS happened_from_date, h.id AS happened_from_id
         FROM events e
         LEFT JOIN LATERAL (SELECT r.report_date, r.id FROM reports r WHERE r.event_id = e.id AND r.happened_at IS NOT NULL
                             ORDER BY r.report_date, r.id LIMIT 1) h ON true
        WHERE e.id = ANY($1::uuid[])`,
      [all],
    );
    for (const row of rows) {
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
    for (const row of await tx.query<{ event_id: string; entity_id: string }>(
      'SELECT event_id, entity_id FROM event_entities WHERE event_id = ANY($1::uuid[]) AND participant',
      [all],
    )) {
      events.get(row.event_id)!.participants.add(row.entity_id);
    }
    for (const row of await tx.query<{ event_id: string; role_id: string; entity_id: string }>(
      'SELECT DISTINCT event_id, role_id, entity_id FROM event_role_values WHERE event_id = ANY($1::uuid[]) AND entity_id IS NOT NULL',
      [all],
    )) {
      addTo(events.get(row.event_id)!.roleEntities, row.role_id, row.entity_id);
    }
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
    survivors: ReadonlyMap<string, string>;
    names: ReadonlyMap<string, string>;
    types: Awaited<ReturnType<typeof referenceStore.eventTypesWithRoles>>;
  },
): Promise<void> {
  if (placed.length === 0) return;
  const { survivors, names, types, loaded } = context;
  const seqs = await store.nextReportSeqs(tx, placed.length);
  const byEvent = new Map<string, { placed: Placed; seq: number }[]>();
  placed.forEach((entry, i) => {
    const list = byEvent.get(entry.eventId) ?? [];
    list.push({ placed: entry, seq: seqs[i]! });
    byEvent.set(entry.eventId, list);
  });
  const storedIds = [...byEvent.keys()].filter((id) => loaded.has(id));
  const storedReports = new Map<string, Awaited<ReturnType<typeof store.reportsWithValuesOf>>>();
  for (const row of await store.reportsWithValuesOf(tx, storedIds)) {
    const list = storedReports.get(row.event_id) ?? [];
    list.push(row);
    storedReports.set(row.event_id, list);
  }
  const toState = ({ id, report, date }: Placed): StateReport => ({
    id,
    reportDate: date,
    happenedAt: report.happenedAt,
    values: report.values.map((v) => {
      const entityId = v.entityId ? survivors.get(v.entityId)! : null;
      return { roleId: v.roleId, entityId, entityName: entityId ? (names.get(entityId) ?? null) : null, date: v.date, amount: v.amount, text: v.text };
    }),
    mentions: [...new Set(report.mentioned.map((id) => survivors.get(id)!))],
  });
  const states: EventStateRow[] = [...byEvent].map(([eventId, added]) => {
    const before = storedReports.get(eventId) ?? [];
    const { type, roles } = types.get(added[0]!.placed.report.type.id)!;
    const state = eventState([...before.map(stateReportOf), ...added.map(({ placed: entry }) => toState(entry))], { template: type.sentence_template, roles });
    const seqsBySource = [
      ...before,
      ...added.map(({ placed: entry, seq }) => ({ received_seq: seq, source_id: entry.report.source.kind === 'ARTICLE' ? entry.report.source.outletId : '' })),
    ];
    return { ...state, id: eventId, eventTypeId: type.id, isNew: !loaded.has(eventId), sourceSeqs: sourceSeqs(seqsBySource), typeVersion: type.version };
  });
  await store.writeStates(tx, states, now);
  await store.insertReports(
    tx,
    placed.map(({ id, eventId, report, date }, i) => ({ ...reportRow(report, { id, eventId, date, now }), received_seq: seqs[i]! })),
  );
  await store.insertRoleValuesOf(
    tx,
    placed.flatMap(({ id, report }) => report.values.map((value, i) => ({ ...value, reportId: id, position: i + 1 }))),
  );
  await store.insertMentionsOf(
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
      const sourceId = report.source.kind === 'ARTICLE' ? report.source.outletId : '';
      if (!known.has(sourceId)) {
        known.add(sourceId);
        rows.sources.push({ eventId: state.id, sourceId, sourceKind: 'ARTICLE', firstSeq: seq, firstReportDate: state.first });
      }
      for (const v of report.values) {
        const entityId = v.entityId ? survivors.get(v.entityId)! : null;
        rows.values.push({
          eventId: state.id,
          roleId: v.roleId,
          sourceKind: 'ARTICLE',
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
