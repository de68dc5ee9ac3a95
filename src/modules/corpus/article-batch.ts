// The set-based bulk ingest behind POST /ops/v1/articles/bulk and evmon import. A batch is
// checked line by line by the rules the single call follows (new-report.ts), clustered in
// memory against the corpus and against itself (batch-clustering.ts), and written at once
// (batch-write.ts). The caller's transaction holds the clustering locks of every type of the
// batch and the article locks, so no other ingest clusters into these types meanwhile.
import { DAY_MS } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { ProblemError } from '../../platform/problems.js';
import { addTo } from '../../platform/set-maps.js';
import { BatchClusters, type ClusterCandidate, type ClusterEvent } from './batch-clustering.js';
import { type GroupRef, type Placed, writeBatch } from './batch-write.js';
import { clusterEventsStore, type EventFate, type ReachPair } from './cluster-events.store.js';
import { CLUSTER_WINDOW_DAYS } from './clustering.js';
import type { EventChanges } from './event-changes.js';
import { eventsStore } from './events.store.js';
import { articleKey, ingestLocksStore } from './ingest-locks.store.js';
import {
  type ArticleLine,
  articleEntityIds,
  articleReport,
  incidentTarget,
  type LineOutcome,
  type NewReport,
  namedEntities,
  noSuchOutlet,
  type Placement,
  placementOf,
  survivorsOf,
} from './new-report.js';
import { referenceStore } from './reference.store.js';
import { BatchCopies } from './copy-detection.js';
import { CopyOrigins } from './copy-origins.js';
import type { CopiesAhead, RecentCopies } from './recent-copies.js';

const WINDOW_MS = CLUSTER_WINDOW_DAYS * DAY_MS;

export interface BatchDeps {
  newId: IdGenerator;
  changes: EventChanges;
  now: Date;
  copies: RecentCopies;
  /** The batch's texts looked up ahead of its transaction, if they were (RecentCopies.lookAhead). */
  ahead?: CopiesAhead;
}

export async function ingestBatch(tx: Queryable, deps: BatchDeps, items: readonly Required<ArticleLine>[]): Promise<LineOutcome[]> {
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
    items.map(async ({ line, body, text }) => {
      if (!outlets.has(body.outlet_id)) return { line, body, result: noSuchOutlet() };
      const found = body.url ? stored.get(articleKey(body.outlet_id, body.url)) : undefined;
      if (found) return { line, body, result: found };
      try {
        return { line, body, result: await articleReport(body, types.get(body.event_type_id), live, now, text) };
      } catch (error) {
        if (error instanceof ProblemError) return { line, body, result: error };
        throw error;
      }
    }),
  );
  const reports = checked.flatMap(({ result }) => (result instanceof ProblemError || !('source' in result) ? [] : [result]));
  const placements = new Map(reports.map((report) => [report, placementOf(report)]));

  // Texts are judged one writer at a time (the batch holds its types' clustering locks already).
  const textLines = new Map(
    reports.flatMap((report) =>
      report.text
        ? [[report, { line: report, text: report.text, receivedAt: report.receivedAt, entities: namedEntities(placements.get(report)!) }] as const]
        : [],
    ),
  );
  if (textLines.size > 0) await ingestLocksStore.lockCopies(tx, null);
  const copies = await BatchCopies.open(tx, deps.copies, [...textLines.values()], deps.ahead);
  const loaded = await loadClusterEvents(tx, placements, copies.storedEvents);
  const clusters = new BatchClusters(loaded.values());
  const outcomes: LineOutcome[] = [];
  const placed: Placed[] = [];
  const storedInBatch = new Map<string, Placed>();
  const placedOf = new Map<NewReport, Placed>();
  /** Per line stored: the event and group its copy_of_report_id is the origin in (copy-origins.ts). */
  const origins = new CopyOrigins();
  for (const { line, body, result } of checked) {
    const earlier = body.url ? storedInBatch.get(articleKey(body.outlet_id, body.url)) : undefined;
    // A line is the article an earlier line stored whatever its content (the single call looks
    // the article up before reading the rest), or a stored one, or refused with its problem.
    if (earlier) {
      outcomes.push(
        origins.await({ line, status: 200 as const, id: earlier.id, incident_id: earlier.eventId, copy_of_report_id: null }, origins.storedAnswer(earlier)),
      );
      continue;
    }
    if (result instanceof ProblemError) {
      outcomes.push({ line, status: 400, problem: result });
      continue;
    }
    if (!('source' in result)) {
      outcomes.push({ line, status: 200, id: result.id, incident_id: result.incident_id, copy_of_report_id: result.copy_of_report_id });
      continue;
    }
    const report = result;
    const placement = placements.get(report)!;
    const { date, participants, namedRoles } = placement;
    let event: ClusterEvent | null = null;
    let eventId: string | null = null; // ids are drawn line by line, so they sort in line order as one by one
    if (report.incidentId) {
      try {
        event = clusters.events.get(loaded.incidentTarget(report.incidentId, report.type.id).id)!;
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        outcomes.push({ line, status: 400, problem: error });
        continue;
      }
    }
    const textLine = textLines.get(report);
    const copy = textLine ? copies.judge(textLine) : null;
    const copiedLine = copy && 'line' in copy ? placedOf.get(copy.line)! : null;
    const copied: { eventId: string; group: GroupRef } | null =
      copy === null
        ? null
        : 'stored' in copy
          ? { eventId: copy.stored.event_id, group: { stored: copy.stored.copy_group } }
          : { eventId: copiedLine!.eventId, group: copiedLine!.group };
    if (!event && copied) {
      // A copy joins the event of the report it copies when that event can take it (copyJoins).
      const target = clusters.events.get(copied.eventId);
      if (target?.live && target.eventTypeId === report.type.id) event = target;
    }
    const candidate: ClusterCandidate = {
      eventTypeId: report.type.id,
      date: date.getTime(),
      happenedAt: report.happenedAt,
      participants,
      namedRoles,
    };
    event ??= clusters.find(candidate);
    if (!event) eventId = newId();
    const id = newId();
    event ??= clusters.open(eventId!, report.type.id, date.getTime());
    clusters.join(event, { ...candidate, id }, namedRoles);
    const entry: Placed = { line, id, eventId: event.id, report, placement, group: { stored: 0 } };
    entry.group = copied?.group ?? { leader: entry }; // a line not copying leads a group of its own
    placed.push(entry);
    placedOf.set(report, entry);
    if (textLine) copies.placed(textLine);
    if (report.url) storedInBatch.set(articleKey(body.outlet_id, report.url), entry);
    outcomes.push(origins.await({ line, status: 201 as const, id, incident_id: event.id, copy_of_report_id: null }, origins.placed(entry, date, copied)));
  }
  await origins.resolve(tx, (id) => loaded.has(id));
  await writeBatch(tx, deps, placed, { loaded, types });
  return outcomes;
}

/**
 * The corpus events the batch can reach, locked (FOR UPDATE, in id order) and read with what
 * clustering needs: for each report, the events of its type sharing one of its participants
 * whose window anchor lies within reach of the report's own anchor; and those the reports name through
 * incident_id (with their survivors), and the events of the reports the batch's texts copy.
 * An event outside these is one no report of the batch
 * can join, so nothing the batch does moves it into reach.
 */
async function loadClusterEvents(tx: Queryable, placements: ReadonlyMap<NewReport, Placement>, copiedEvents: readonly string[]) {
  // Each (type, participant) pair reaches the events around its own reports' anchors: one
  // window per pair, not one spanning the whole batch (a batch of a year's articles would
  // otherwise lock and read every event of its entities).
  const pairs = new Map<string, ReachPair>();
  for (const [report, { anchor, namedRoles }] of placements) {
    for (const { entityId } of namedRoles) {
      const key = `${report.type.id} ${entityId}`;
      const pair = pairs.get(key);
      if (pair) {
        pair.from = Math.min(pair.from, anchor - WINDOW_MS);
        pair.to = Math.max(pair.to, anchor + WINDOW_MS);
      } else pairs.set(key, { typeId: report.type.id, entityId, from: anchor - WINDOW_MS, to: anchor + WINDOW_MS });
    }
  }
  // And the events of the reports the batch's texts copy, which they join (copyJoins).
  const ids = new Set([...(await clusterEventsStore.reachedEvents(tx, [...pairs.values()])), ...copiedEvents]);
  const named = [...new Set([...placements.keys()].flatMap((report) => (report.incidentId ? [report.incidentId] : [])))];
  for (const row of await clusterEventsStore.namedEvents(tx, named)) {
    ids.add(row.id);
    if (row.merged_into_event_id) ids.add(row.merged_into_event_id);
  }
  const events = new Map<string, ClusterEvent>();
  const fates = new Map<string, EventFate>();
  const targetOf = (incidentId: string, eventTypeId: string) => {
    const row = fates.get(incidentId);
    return incidentTarget(row, row && fates.get(row.merged_into_event_id ?? row.id), eventTypeId);
  };
  if (ids.size > 0) {
    const all = [...ids];
    // Locked before they are read, so what is read stays true until commit (a deletion waits).
    await eventsStore.lockEvents(tx, all);
    for (const row of await clusterEventsStore.clusterEvents(tx, all)) {
      fates.set(row.id, row);
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
    /** The event a report of this type naming `incidentId` joins (incidentTarget), or its refusal thrown. */
    incidentTarget: targetOf,
  };
}
