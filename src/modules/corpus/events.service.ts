// The event pipeline: a report is validated, clustered into an event and the event's state
// refreshed, all in one transaction with the change's "event changed" job; merges and
// deletions likewise.
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { databaseFailure, INVALID_VALUE_DETAIL } from '../../platform/db/failures.js';
import { checkpointWhenDue } from '../../platform/db/wal-checkpoints.js';
import type { IdGenerator } from '../../platform/ids.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import { ingestBatch } from './article-batch.js';
import { clusterQuery, readHappenedOn, windowAnchor } from './clustering.js';
import { corpusStatistics } from './corpus-statistics.js';
import type { EventChanges } from './event-changes.js';
import { indexNewReports, rebuildEventIndex } from './event-index.js';
import { eventState, type StateReport } from './event-state.js';
import { eventTypeCache } from './event-type-cache.js';
import { loadEventViews } from './event-view.js';
import type { IngestArticleBody } from './events.schemas.js';
import { type EventReportRow, type EventRow, eventsStore as store, type InPlaceChange, type NewReportRows, type ReportRow } from './events.store.js';
import { type EventTypeRow, type EventTypeWithRoles, type LockedSurvivor, lockedSurvivors, referenceStore, type RoleRow } from './reference.store.js';
import { refuse, resolveRoleValues } from './role-values.js';
import { DAY_MS } from '../../platform/clock.js';

export interface EventsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  changes: EventChanges;
  logger: Logger;
}

const invalid = fieldProblem;

/** A checked report of any source, ready to be added to the corpus. */
export interface NewReport {
  source: { kind: 'ARTICLE'; outletId: string } | { kind: 'STRUCTURED'; accountId: string; grantId: string | null };
  type: EventTypeRow;
  /** The type's current roles. */
  roles: RoleRow[];
  /** Values in role order, entities as given. */
  values: { roleId: string; entityId: string | null; date: string | null; amount: { value: number; unit: string } | null; text: string | null }[];
  /** Entity id as given → live canonical id, for every entity the report names. */
  survivors: ReadonlyMap<string, string>;
  /** Live canonical id → name, for the same entities. */
  names: ReadonlyMap<string, string>;
  mentioned: string[];
  receivedAt: Date;
  publishedAt: Date | null;
  happenedAt: string | null;
  headline: string | null;
  url: string | null;
  /** Join this event (or its survivor) instead of clustering. */
  incidentId: string | null;
}

/**
 * Entity id → live canonical id, for the ids that exist and whose survivor is not deleted, and
 * those survivors' names (the survivors share-locked: referenceStore.resolveEntitiesLocked).
 */
export async function liveSurvivors(tx: Queryable, ids: readonly string[]) {
  return survivorsOf(await referenceStore.resolveEntitiesLocked(tx, [...new Set(ids)]));
}

function survivorsOf(rows: readonly LockedSurvivor[]): Pick<NewReport, 'survivors' | 'names'> {
  const live = rows.filter((r) => !r.deleted);
  return { survivors: new Map(live.map((r) => [r.id, r.canonical_id])), names: new Map(live.map((r) => [r.canonical_id, r.name])) };
}

/** Rule 3 of event search: the publish time, unless missing or more than a day after receipt. */
export function reportDate(publishedAt: Date | null, receivedAt: Date): Date {
  if (publishedAt === null || publishedAt.getTime() > receivedAt.getTime() + DAY_MS) return receivedAt;
  return publishedAt;
}

/**
 * Takes the clustering locks of event types, in one sorted order, for the rest of the
 * transaction: nothing else clusters into events of these types meanwhile. Event merges take
 * it; a transaction that will ingest several types (bulk import) takes them all up front, so
 * two never deadlock.
 */
export async function lockClustering(tx: Queryable, eventTypeIds: readonly string[]): Promise<void> {
  const keys = [...new Set(eventTypeIds)].sort().map((id) => `cluster:${id}`);
  await tx.query('SELECT pg_advisory_xact_lock(hashtext(k)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n', [keys]);
}

/** The advisory lock space (first key) of the per-participant clustering locks. */
const PARTICIPANT_LOCKS = 0x636c7573; // "clus"
const ARTICLE_LOCKS = 0x61727469; // "arti"
/**
 * An article's lock is one of this many, by the hash of its outlet and url: a bulk batch of
 * 10,000 articles holds at most this many locks (the lock table is shared and bounded:
 * max_locks_per_transaction × connections), and two articles sharing one only wait for each
 * other. Every path must name an article's lock by articleLock.
 */
const ARTICLE_LOCK_BUCKETS = 1024;
const articleLock = (key: string) => `(hashtext(${key}) & ${ARTICLE_LOCK_BUCKETS - 1})`;

/** The article locks of these (outlet, url) pairs, in one sorted order. */
async function lockArticles(tx: Queryable, articles: readonly { outletId: string; url: string }[]): Promise<void> {
  const keys = [...new Set(articles.map(({ outletId, url }) => `${outletId} ${url}`))];
  if (keys.length === 0) return;
  await tx.query(
    `SELECT pg_advisory_xact_lock($2::int, lock) FROM (SELECT DISTINCT ${articleLock('k')} AS lock FROM unnest($1::text[]) AS t(k)) AS l ORDER BY lock`,
    [keys, ARTICLE_LOCKS],
  );
}

/**
 * An article's first statement: whether its outlet exists and its event type's version (null:
 * no such type; event-type-cache.ts). With a url it also takes the article's locks: its type's
 * clustering lock (shared), then the lock of its outlet and url, for the rest of the
 * transaction, so two ingests of one article, on any processes, add it once. Every ingest
 * takes the type's clustering lock before the article's (a bulk ingest takes its types whole
 * up front), so a single call and a bulk request with the same article never deadlock; the
 * two are taken in the order the select list names them.
 */
async function openArticle(tx: Queryable, input: IngestArticleBody): Promise<{ outlet: boolean; typeVersion: number | null }> {
  const [row] = await tx.query<{ outlet: boolean; type_version: number | null }>(
    `SELECT EXISTS (SELECT 1 FROM news_outlets WHERE id = $1) AS outlet, (SELECT version FROM event_types WHERE id = $2) AS type_version
            ${input.url ? `, pg_advisory_xact_lock_shared(hashtext($3)) AS type_lock, pg_advisory_xact_lock($4::int, ${articleLock('$5')}) AS article_lock` : ''}`,
    [input.outlet_id, input.event_type_id, ...(input.url ? [`cluster:${input.event_type_id}`, ARTICLE_LOCKS, `${input.outlet_id} ${input.url}`] : [])],
    { prepared: true },
  );
  return { outlet: row!.outlet, typeVersion: row!.type_version };
}

/**
 * Read under the article's lock (openArticle): the stored report an article is (operations.md:
 * an article is identified by its outlet and url), or null; and, in the same statement, the
 * entities it names resolved to their survivors, which it share-locks (as
 * referenceStore.resolveEntitiesLocked does, and looks them up again the same way when one
 * was merged meanwhile).
 */
async function storedArticle(tx: Queryable, outletId: string, url: string | null, entityIds: readonly string[]) {
  const [row] = await tx.query<{ id: string | null; incident_id: string; report_date: Date; entities: LockedSurvivor[] }>(
    `WITH held AS (${lockedSurvivors('$3')})
     SELECT stored.id, stored.incident_id, stored.report_date, (SELECT COALESCE(json_agg(held), '[]') FROM held) AS entities
       FROM (SELECT) AS one
       LEFT JOIN LATERAL (
         SELECT r.id, COALESCE(e.merged_into_event_id, e.id) AS incident_id, r.report_date
           FROM reports r JOIN events e ON e.id = r.event_id
          WHERE r.outlet_id = $1 AND md5(r.url) = md5($2) AND r.url = $2 AND r.url IS NOT NULL ORDER BY r.received_seq LIMIT 1
       ) AS stored ON true`,
    [outletId, url, [...new Set(entityIds)]],
    { prepared: true },
  );
  const { id, incident_id, report_date, entities } = row!;
  return {
    stored: id === null ? null : { id, incident_id, report_date },
    entities: entities.every((entity) => entity.survivor) ? entities : await referenceStore.resolveEntitiesLocked(tx, [...new Set(entityIds)]),
  };
}

/**
 * The clustering locks of one report, in one statement: its type's, shared (so merges of the
 * type, which take it whole, wait), then one per participant entity, in one sorted order. A
 * report can only cluster into an event that shares a participant with it, and only a report
 * naming that participant can give an event one; so two reports with no participant in
 * common cluster at the same time without seeing each other, and reports that share one take
 * turns.
 */
async function lockReportClustering(tx: Queryable, eventTypeId: string, participantIds: readonly string[]): Promise<void> {
  const keys = [`cluster:${eventTypeId}`, ...[...new Set(participantIds)].sort().map((id) => `${eventTypeId}:${id}`)];
  await tx.query(
    `SELECT CASE WHEN n = 1 THEN pg_advisory_xact_lock_shared(hashtext(k)) ELSE pg_advisory_xact_lock($2::int, hashtext(k)) END
       FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`,
    [keys, PARTICIPANT_LOCKS],
    { prepared: true },
  );
}

/** Recomputes an event's stored state from all its reports. */
export async function refreshEvent(
  tx: Queryable,
  eventId: string,
  eventTypeId: string,
  at: Date,
  known?: { type: EventTypeRow; roles: RoleRow[] }, // passed by callers that have them already
  newReportId?: string, // the one report added since the last refresh, when that is all that changed
  locked?: { first_report_date: Date }, // the event row, when the caller holds its lock already
): Promise<void> {
  // The event row lock orders this after any merge or refresh of the same event in flight
  // (a caller that holds it already passes the row as it read it).
  const before = locked ?? (await store.getEvent(tx, eventId, true));
  const reports = await store.reportsWithValues(tx, eventId);
  if (reports.length === 0) return;
  const { type, roles } = known ?? (await referenceStore.eventTypesWithRoles(tx, [eventTypeId])).get(eventTypeId)!;
  const state = eventState(reports.map(stateReportOf), { template: type.sentence_template, roles });
  await store.writeSummary(tx, eventId, { ...state, sourceSeqs: sourceSeqs(reports), typeVersion: type.version, at });
  // A new report that leaves the first report date alone only adds index rows; anything else
  // (merges, entity changes, an earlier first report) rebuilds them.
  if (newReportId && before?.first_report_date.getTime() === state.first.getTime()) await indexNewReports(tx, [newReportId]);
  else await rebuildEventIndex(tx, [eventId], { sourceSeqsWritten: true });
}

/** A stored report as the event state reads it. */
export function stateReportOf(report: EventReportRow): StateReport {
  return {
    id: report.id,
    reportDate: report.report_date,
    happenedAt: report.happened_at,
    // A deleted entity's value counts for nothing: the next report's live one stands in.
    values: report.values
      .filter((v) => !v.entity_deleted)
      .map((v) => ({
        roleId: v.role_id,
        entityId: v.entity_id,
        entityName: v.entity_name,
        date: v.date_value,
        amount: v.amount_value === null ? null : { value: v.amount_value, unit: v.amount_unit ?? '' },
        text: v.text_value,
      })),
    mentions: report.mentions,
  };
}

/** When the event reached each of its distinct sources, ascending (events.source_seqs). */
export function sourceSeqs(reports: readonly { received_seq: number; source_id: string }[]): number[] {
  const first = new Map<string, number>();
  for (const r of reports) first.set(r.source_id, Math.min(first.get(r.source_id) ?? Infinity, r.received_seq));
  return [...first.values()].sort((a, b) => a - b);
}

/** Every entity an article names, in roles and mentions. */
export function articleEntityIds(input: IngestArticleBody): string[] {
  return [...input.roles.flatMap((role) => (role.entity_id ? [role.entity_id] : [])), ...(input.mentioned_entity_ids ?? [])];
}

/**
 * An article's report once its outlet is known and it is no stored article: its type, roles,
 * entities (`survivors`: live entities → survivor, at least those it names) and timestamps
 * checked in the order the single call answers them (`survivors`/`names`: live entities → survivor → name). Both ingest paths take it, so a line of a
 * bulk request is refused exactly as the single call would refuse its body.
 */
export async function articleReport(
  input: IngestArticleBody,
  known: EventTypeWithRoles | null | undefined,
  { survivors, names }: Pick<NewReport, 'survivors' | 'names'>,
  now: Date,
): Promise<NewReport> {
  if (!known) throw refuse('TEMPLATE_NOT_FOUND', `event_type_id ${input.event_type_id} names no event type.`);
  const { type, roles } = known;
  const mentioned = [...new Set(input.mentioned_entity_ids ?? [])];
  const values = await resolveRoleValues(input.roles, roles, async (ids) => new Set(ids.filter((id) => survivors.has(id))));
  const missing = mentioned.findIndex((id) => !survivors.has(id));
  if (missing >= 0) throw invalid(`/mentioned_entity_ids/${(input.mentioned_entity_ids ?? []).indexOf(mentioned[missing]!)}`, 'names no entity');

  const receivedAt = input.received_at ? new Date(input.received_at) : now;
  const publishedAt = input.published_at ? new Date(input.published_at) : null;
  if (Number.isNaN(receivedAt.getTime())) throw invalid('/received_at', 'is not a readable timestamp');
  if (publishedAt && Number.isNaN(publishedAt.getTime())) throw invalid('/published_at', 'is not a readable timestamp');
  return {
    source: { kind: 'ARTICLE', outletId: input.outlet_id },
    type,
    roles,
    values: values.map((v) => ({ roleId: v.role.id, entityId: v.entityId, date: v.date, amount: v.amount, text: v.text })),
    survivors,
    names,
    mentioned,
    receivedAt,
    publishedAt,
    happenedAt: input.happened_at ?? null,
    headline: input.headline ?? null,
    url: input.url ?? null,
    incidentId: input.incident_id ?? null,
  };
}

/** The source a report counts as (decisions.md, Beats: a structured report counts as its filing account). */
function sourceOf({ source }: NewReport): { kind: string; id: string } {
  return { kind: source.kind, id: source.kind === 'ARTICLE' ? source.outletId : source.accountId };
}

/** The stored row of a checked report, in event `eventId`. */
export function reportRow(report: NewReport, at: { id: string; eventId: string; date: Date; now: Date }): ReportRow {
  const { source } = report;
  return {
    id: at.id,
    event_id: at.eventId,
    source_kind: source.kind,
    outlet_id: source.kind === 'ARTICLE' ? source.outletId : null,
    account_id: source.kind === 'STRUCTURED' ? source.accountId : null,
    grant_id: source.kind === 'STRUCTURED' ? source.grantId : null,
    event_type_id: report.type.id,
    published_at: report.publishedAt,
    received_at: report.receivedAt,
    report_date: at.date,
    happened_at: report.happenedAt,
    headline: report.headline,
    url: report.url,
    created_at: at.now,
  };
}

/**
 * The event a report names through incident_id joins: the survivor of `event` (`survivor`,
 * the same row when it was not merged), refused when either is gone or of another type.
 */
export function incidentTarget<T extends Pick<EventRow, 'id' | 'event_type_id' | 'deleted_at'>>(
  event: T | null | undefined,
  survivor: T | null | undefined,
  eventTypeId: string,
): T {
  if (!event || event.deleted_at) throw invalid('/incident_id', 'names no event');
  if (!survivor || survivor.deleted_at) throw invalid('/incident_id', 'names an event that was merged into one since deleted');
  if (survivor.event_type_id !== eventTypeId) throw invalid('/incident_id', 'names an event of another event type');
  return survivor;
}

/**
 * A database refusal of one article's values as the single call answers it (400, the error
 * handler's words); null for failures that are not the line's (the database unavailable, say).
 */
function lineProblem(error: unknown): ProblemError | null {
  return databaseFailure(error) === 'invalid-value' ? new ProblemError('validation-failed', INVALID_VALUE_DETAIL) : null;
}

/** What became of one article of a batch: stored anew (201), stored already (200), or refused with its problem. */
export type LineOutcome = { line: number; status: 201 | 200; id: string; incident_id: string } | { line: number; status: 400; problem: ProblemError };

const incidentReport = (id: string, incidentId: string, reportDate: Date) => ({
  object: 'incident_report' as const,
  id,
  incident_id: incidentId,
  report_date: reportDate.toISOString(),
});

/** A new report as event-state.ts reads one: values whose entity is deleted count for nothing. */
function stateReport(report: NewReport, id: string, date: Date, mentioned: string[]): StateReport {
  return {
    id,
    reportDate: date,
    happenedAt: report.happenedAt,
    values: report.values.flatMap((v) => {
      const entityId = v.entityId === null ? null : (report.survivors.get(v.entityId) ?? undefined);
      if (entityId === undefined) return [];
      return [{ roleId: v.roleId, entityId, entityName: entityId === null ? null : report.names.get(entityId)!, date: v.date, amount: v.amount, text: v.text }];
    }),
    mentions: mentioned,
  };
}

export function eventsService({ db, clock, newId, changes, logger }: EventsDeps) {
  const eventTypes = eventTypeCache();
  const statistics = corpusStatistics(db, logger);

  /** The article's own checks (outlet, entities, timestamps), then the source-neutral path. */
  async function ingestArticleIn(tx: Queryable, input: IngestArticleBody) {
    const opened = await openArticle(tx, input);
    if (!opened.outlet) throw invalid('/outlet_id', 'names no news outlet');
    // Every entity the report names, resolved (live ones with their survivors) with the
    // look-up of the stored article.
    const { stored, entities } = await storedArticle(tx, input.outlet_id, input.url ?? null, articleEntityIds(input));
    if (stored) return { ...incidentReport(stored.id, stored.incident_id, stored.report_date), existing: true };
    const known = await eventTypes.get(tx, input.event_type_id, opened.typeVersion);
    const added = await addReportIn(tx, await articleReport(input, known, survivorsOf(entities), clock.now()));
    return { ...incidentReport(added.reportId, added.eventId, added.reportDate), existing: false };
  }

  /**
   * Adds one checked report to the corpus, whatever its source: clustered into an event (or
   * joined to `incidentId`), written with its values and mentions, the event's state updated
   * and the change published, in the caller's transaction.
   */
  async function addReportIn(tx: Queryable, report: NewReport): Promise<{ reportId: string; eventId: string; reportDate: Date }> {
    const now = clock.now();
    const { type } = report;
    const date = reportDate(report.publishedAt, report.receivedAt);
    // Live canonical ids of the entities playing roles in the report.
    const participants = [
      ...new Set(report.values.flatMap((v) => (v.entityId && report.survivors.has(v.entityId) ? [report.survivors.get(v.entityId)!] : []))),
    ];
    // Reports that share a participant cluster one at a time, so two at once cannot both
    // open an event for it.
    await lockReportClustering(tx, type.id, participants);
    const reportId = newId();
    const rows = (eventId: string): NewReportRows => ({
      values: report.values,
      mentions: report.mentioned,
      row: reportRow(report, { id: reportId, eventId, date, now }),
    });
    const mentioned = [...new Set(report.mentioned.flatMap((id) => (report.survivors.has(id) ? [report.survivors.get(id)!] : [])))].sort();
    const index = { source: sourceOf(report), values: report.values, survivors: report.survivors };
    const happenedOn = readHappenedOn(report.happenedAt);
    // The event's state from the new report alone, in the statement that writes it, where that
    // is exact (its type unchanged since the state was computed, the report sorting last, and
    // what InPlaceChange says the statement checks); else recomputed from all its reports.
    const inPlace = (event: EventRow): InPlaceChange | undefined =>
      event.type_version === type.version && date.getTime() > event.last_report_date.getTime()
        ? {
            values: report.values.flatMap((v): { roleId: string; entityId: string | null }[] => {
              if (v.entityId === null) return [{ roleId: v.roleId, entityId: null }];
              const survivor = report.survivors.get(v.entityId);
              return survivor === undefined ? [] : [{ roleId: v.roleId, entityId: survivor }]; // a deleted entity counts for nothing
            }),
            happenedOn,
            newMentions: mentioned.filter((id) => !event.involved_entity_ids.includes(id)),
            involved: event.involved_entity_ids,
            firstReportDate: event.first_report_date,
            at: now,
            index,
          }
        : undefined;
    let joined: { event: EventRow; inPlace: boolean } | null = null; // the event the report joined, its row as locked before
    if (report.incidentId) {
      const event = await store.getEvent(tx, report.incidentId, true);
      const survivor = !event || event.deleted_at || !event.merged_into_event_id ? event : await store.getEvent(tx, event.merged_into_event_id, true);
      const target = incidentTarget(event, survivor, type.id);
      joined = { event: target, inPlace: (await store.joinReport(tx, rows(target.id), { inPlace: inPlace(target) })).inPlace };
    } else {
      const namedRoles = report.values.flatMap((v) =>
        v.entityId && report.survivors.has(v.entityId) ? [{ roleId: v.roleId, entityId: report.survivors.get(v.entityId)! }] : [],
      );
      const query = clusterQuery({ eventTypeId: type.id, participantIds: participants, namedRoles, anchor: new Date(windowAnchor(happenedOn, date)) });
      // The event found is locked in the same statement, before the report row's foreign key
      // share-locks it: two reports joining one event (through different participants) would
      // otherwise each hold that share lock while waiting for the other's to update it. An
      // event deleted since it was found takes no more reports (merges wait for the type's
      // clustering lock); one that took a report naming another entity in one of this report's
      // roles meanwhile (read again by the insert, under the lock) is passed over, and the
      // search runs again (it no longer finds that one).
      for (let attempt = 0; query && attempt < 3 && joined === null; attempt++) {
        const found = await store.lockedEventOf(tx, query);
        if (!found) break;
        if (found.deleted_at || found.merged_into_event_id) continue;
        const written = await store.joinReport(tx, rows(found.id), { unlessNamingOthers: namedRoles, inPlace: inPlace(found) });
        if (written.written) joined = { event: found, inPlace: written.inPlace };
      }
    }
    if (joined === null) {
      // A new event: its state is its one report's, computed here as a refresh would read it back.
      const eventId = newId();
      const state = eventState([stateReport(report, reportId, date, mentioned)], { template: type.sentence_template, roles: report.roles });
      await store.insertEventWithReport(tx, rows(eventId), { at: now, state, typeVersion: type.version, index });
      await changes.publish(tx, { kind: 'report-added', eventId, reportId });
      return { reportId, eventId, reportDate: date };
    }
    const { event } = joined;
    if (!joined.inPlace) await refreshEvent(tx, event.id, type.id, now, { type, roles: report.roles }, reportId, event);
    await changes.publish(tx, { kind: 'report-added', eventId: event.id, reportId });
    return { reportId, eventId: event.id, reportDate: date };
  }

  /** Each article on the single call's path, a savepoint each: a refused one is answered and skipped while the rest go on. */
  async function ingestLineByLine(tx: Queryable, items: readonly { line: number; body: IngestArticleBody }[]): Promise<LineOutcome[]> {
    const outcomes: LineOutcome[] = [];
    for (const { line, body } of items) {
      await tx.query('SAVEPOINT article');
      try {
        const { existing, id, incident_id } = await ingestArticleIn(tx, body);
        await tx.query('RELEASE SAVEPOINT article');
        outcomes.push({ line, status: existing ? 200 : 201, id, incident_id });
      } catch (error) {
        await tx.query('ROLLBACK TO SAVEPOINT article');
        const problem = error instanceof ProblemError ? error : lineProblem(error);
        if (!problem) throw error;
        outcomes.push({ line, status: 400, problem });
      }
    }
    return outcomes;
  }

  return {
    /**
     * The REFRESH_EVENTS_JOB handler: an entity merged or deleted changes the sentence and
     * entities of the events naming it.
     */
    async refreshEvents(payload: unknown): Promise<void> {
      const { event_ids: eventIds } = payload as { event_ids: string[] };
      for (let i = 0; i < eventIds.length; i += 100) {
        await db.transaction(async (tx) => {
          await store.lockEvents(tx, eventIds.slice(i, i + 100));
          for (const eventId of eventIds.slice(i, i + 100)) {
            const event = await store.getEvent(tx, eventId);
            if (!event || event.merged_into_event_id || event.deleted_at) continue;
            await refreshEvent(tx, eventId, event.event_type_id, clock.now());
            await changes.publish(tx, { kind: 'entities-changed', eventId });
          }
        });
      }
    },

    /**
     * Ingests one report taken from a news article; answers its id, event and report date, and
     * whether it was stored already (the same outlet and url), in which case nothing changed.
     */
    ingestArticle(input: IngestArticleBody) {
      return db.transaction((tx) => ingestArticleIn(tx, input));
    },

    /** The same, inside the caller's transaction (bulk import runs many in one). */
    ingestArticleIn: (tx: Queryable, input: IngestArticleBody) => ingestArticleIn(tx, input),

    /**
     * Ingests checked articles in one transaction, the clustering locks of their types and the
     * articles' locks taken first (article-batch.ts); answers each one's outcome, in order.
     */
    async ingestArticles(items: readonly { line: number; body: IngestArticleBody }[]): Promise<LineOutcome[]> {
      if (items.length === 0) return [];
      const outcomes = await db.transaction(async (tx) => {
        await lockClustering(
          tx,
          items.map(({ body }) => body.event_type_id),
        );
        // Every article of the batch at once, in one order: two batches sharing articles
        // (under types that do not overlap) never take them in crossing orders.
        await lockArticles(
          tx,
          items.flatMap(({ body }) => (body.url ? [{ outletId: body.outlet_id, url: body.url }] : [])),
        );
        // Set-based first; a value the database refuses as data fails a whole multi-row
        // statement, so such a batch is ingested again line by line, each refusal answered
        // on its own line as the single call answers it.
        await tx.query('SAVEPOINT batch');
        try {
          const outcomes = await ingestBatch(tx, { newId, changes, now: clock.now() }, items);
          await tx.query('RELEASE SAVEPOINT batch');
          return outcomes;
        } catch (error) {
          if (!lineProblem(error)) throw error;
          await tx.query('ROLLBACK TO SAVEPOINT batch');
        }
        return ingestLineByLine(tx, items);
      });
      await statistics.added(outcomes.filter((outcome) => outcome.status === 201).length);
      await checkpointWhenDue(db, logger); // a bulk load writes the log fastest
      return outcomes;
    },

    /** The source-neutral path, inside the caller's transaction (structured reports take it). */
    addReportIn: (tx: Queryable, report: NewReport) => addReportIn(tx, report),

    /** An event as the operator sees it: the search-event fields, counts as of now, and its fate. */
    async getEvent(id: string) {
      const [event] = await loadEventViews(db, [id], { at: clock.now() });
      if (!event) throw new ProblemError('not-found', `No event with id ${id}.`);
      return event;
    },

    /** Merges event `id` into `intoId` (or its survivor); answers the survivor. */
    async mergeEvent(id: string, intoId: string) {
      const survivorId = await db.transaction(async (tx) => {
        const merged = await store.getEvent(tx, id);
        if (!merged || merged.deleted_at) throw new ProblemError('not-found', `No event with id ${id}.`);
        // Merges take the clustering lock of the type first, as ingest does, so a report
        // cannot be clustered into either event while they are merged. Row locks follow it.
        await lockClustering(tx, [merged.event_type_id]);
        const [first, second] = [id, intoId].sort();
        await store.getEvent(tx, first!, true);
        await store.getEvent(tx, second!, true);
        if (merged.merged_into_event_id) throw new ProblemError('state-conflict', `Event ${id} is already merged into ${merged.merged_into_event_id}.`);
        const target = await store.getEvent(tx, intoId);
        if (!target || target.deleted_at) throw invalid('/into_event_id', 'names no event');
        const survivor = target.merged_into_event_id ? (await store.getEvent(tx, target.merged_into_event_id, true))! : target;
        if (survivor.deleted_at) throw invalid('/into_event_id', 'names an event that was merged into one since deleted');
        if (survivor.id === id) throw invalid('/into_event_id', 'resolves to the event itself');
        if (survivor.event_type_id !== merged.event_type_id) throw invalid('/into_event_id', 'names an event of another event type');
        // The survivor's state is recomputed below from its entities' survivors: those are
        // share-locked first, as ingest locks them, so an entity merge or deletion under way
        // is waited for (and the refresh reads what it wrote) or waits (and its own refresh
        // then finds the merged events' entities on the survivor).
        const named = await tx.query<{ entity_id: string }>('SELECT DISTINCT entity_id FROM event_entities WHERE event_id = ANY($1::uuid[])', [
          [id, survivor.id],
        ]);
        await referenceStore.resolveEntitiesLocked(
          tx,
          named.map((row) => row.entity_id),
        );
        const now = clock.now();
        await store.mergeEvent(tx, id, survivor.id, now);
        await refreshEvent(tx, survivor.id, survivor.event_type_id, now);
        await changes.publish(tx, { kind: 'merged', eventId: id, mergedIntoEventId: survivor.id });
        return survivor.id;
      });
      return this.getEvent(survivorId);
    },

    async deleteEvent(id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const event = await store.getEvent(tx, id, true);
        if (!event || event.deleted_at) throw new ProblemError('not-found', `No event with id ${id}.`);
        if (event.merged_into_event_id)
          throw new ProblemError('state-conflict', `Event ${id} was merged into ${event.merged_into_event_id}; delete the survivor instead.`);
        await store.deleteEvent(tx, id, clock.now());
        await changes.publish(tx, { kind: 'deleted', eventId: id });
      });
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
