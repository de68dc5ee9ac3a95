// The corpus's events as a service: articles ingested one at a time (report-ingest.ts) or in
// bulk (article-batch.ts), structured reports added, events refreshed after entity changes,
// merged and deleted; each in one transaction with the change's "event changed" job.
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { inSavepoint } from '../../platform/db/savepoint.js';
import { checkpointWhenDue } from '../../platform/db/wal-checkpoints.js';
import type { IdGenerator } from '../../platform/ids.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import { ingestBatch } from './article-batch.js';
import type { CheckedLine } from './article-lines.js';
import { corpusStatistics } from './corpus-statistics.js';
import type { EventPublisher } from './event-changes.js';
import { refreshEvent } from './event-refresh.js';
import { eventTypeCache } from './event-type-cache.js';
import { loadEventViews } from './event-view.js';
import type { IngestArticleBody } from './events.schemas.js';
import { eventsStore as store } from './events.store.js';
import { ingestLocksStore } from './ingest-locks.store.js';
import { lineChecker } from './line-checker.js';
import { type ArticleLine, type LineOutcome, lineProblem, type NewReport, readText } from './new-report.js';
import { referenceStore } from './reference.store.js';
import { addReport, ingestArticle, type ReportIngestDeps } from './report-ingest.js';
import { type CopiesAhead, RecentCopies } from './recent-copies.js';
import { reportRangeSummaries } from './report-ranges.js';

/** Texts looked up ahead between two turns of the event loop (about 10 ms at ten million events' density). */
const AHEAD_SLICE = 50;

export interface EventsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  changes: EventPublisher;
  logger: Logger;
}

export function eventsService({ db, clock, newId, changes, logger }: EventsDeps) {
  const statistics = corpusStatistics(db, logger);
  // This process's fingerprints of the reports received lately, shared by both ingest paths.
  const copies = new RecentCopies();
  // Copy detection reads the reports written lately by their BRIN index: its new pages summarized as they come.
  const ranges = reportRangeSummaries(db, logger);
  const ingest: ReportIngestDeps = { clock, newId, changes, eventTypes: eventTypeCache(), copies };
  const lines = lineChecker(logger);

  /** Each article on the single call's path, a savepoint each: a refused one is answered and skipped while the rest go on. */
  async function ingestLineByLine(tx: Queryable, items: readonly Required<ArticleLine>[]): Promise<LineOutcome[]> {
    const outcomes: LineOutcome[] = [];
    // One revision per event for the whole batch, as on the set-based path.
    const deferred = changes.deferringRevisions();
    const lineByLine = { ...ingest, changes: deferred };
    for (const { line, body, text } of items) {
      try {
        const { existing, id, incident_id, copy_of_report_id } = await inSavepoint(tx, 'article', () => ingestArticle(tx, lineByLine, body, text));
        outcomes.push({ line, status: existing ? 200 : 201, id, incident_id, copy_of_report_id });
      } catch (error) {
        const problem = error instanceof ProblemError ? error : lineProblem(error);
        if (!problem) throw error;
        outcomes.push({ line, status: 400, problem });
      }
    }
    await deferred.recordRevisions(tx);
    return outcomes;
  }

  /** ingestArticles's work, once the lines' look-ahead (if any) is settled. */
  async function ingestArticlesAt(lines: readonly ArticleLine[], ahead: CopiesAhead | undefined): Promise<LineOutcome[]> {
    if (lines.length === 0) return [];
    const items = lines.map((item) => ({ ...item, text: item.text === undefined ? readText(item.body) : item.text }));
    const outcomes = await db.transaction(async (tx) => {
      await ingestLocksStore.lockClustering(
        tx,
        items.map(({ body }) => body.event_type_id),
      );
      // Every article of the batch at once, in one order: two batches sharing articles
      // (under types that do not overlap) never take them in crossing orders.
      await ingestLocksStore.lockArticles(
        tx,
        items.flatMap(({ body }) => (body.url ? [{ outletId: body.outlet_id, url: body.url }] : [])),
      );
      // Set-based first; a value the database refuses as data fails a whole multi-row
      // statement, so such a batch is ingested again line by line, each refusal answered
      // on its own line as the single call answers it.
      try {
        return await inSavepoint(tx, 'batch', () => ingestBatch(tx, { newId, changes, now: clock.now(), copies, ahead }, items));
      } catch (error) {
        if (!lineProblem(error)) throw error;
      }
      return ingestLineByLine(tx, items);
    });
    const added = outcomes.filter((outcome) => outcome.status === 201).length;
    await statistics.added(added);
    await ranges.wrote(added);
    await checkpointWhenDue(db, logger); // a bulk load writes the log fastest
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

    /** A bulk batch's lines checked and their texts read (line-checker.ts), for ingestArticles; numbered from 1, blank lines dropped. */
    checkLines(batch: readonly string[]): Promise<CheckedLine[]> {
      return lines.check(batch);
    },

    /** Lets the threads that check lines go. */
    close(): Promise<void> {
      return lines.close();
    },

    /**
     * Ingests one report taken from a news article; answers its id, event and report date, and
     * whether it was stored already (the same outlet and url), in which case nothing changed.
     */
    async ingestArticle(input: IngestArticleBody) {
      const text = readText(input);
      const ingested = await db.transaction((tx) => ingestArticle(tx, ingest, input, text));
      if (!ingested.existing) await ranges.wrote(1);
      return ingested;
    },

    /**
     * Ingests checked articles in one transaction, the clustering locks of their types and the
     * articles' locks taken first (ingest-locks.store.ts), set-based (article-batch.ts);
     * answers each one's outcome, in order.
     */
    async ingestArticles(lines: readonly ArticleLine[], ahead?: CopiesAhead): Promise<LineOutcome[]> {
      try {
        return await ingestArticlesAt(lines, ahead);
      } finally {
        ahead?.end();
      }
    },

    /**
     * Looks the lines' texts up for copy detection ahead of their batch (RecentCopies.lookAhead),
     * AHEAD_SLICE texts between turns of the event loop: a loader calls it for its next batch
     * while this one is written, and hands the answer to ingestArticles with that batch. Lines
     * without their texts read (ArticleLine.text) are looked up in the batch's transaction.
     */
    async lookAhead(lines: readonly Pick<ArticleLine, 'text'>[]): Promise<CopiesAhead> {
      const ahead = copies.beginAhead();
      try {
        let looked = 0;
        for (const { text } of lines) {
          if (!text) continue;
          copies.lookAhead(ahead, text);
          if (++looked % AHEAD_SLICE === 0) await setImmediate();
        }
        return ahead;
      } catch (error) {
        ahead.end();
        throw error;
      }
    },

    /** The source-neutral path, inside the caller's transaction (structured reports take it). */
    addReportIn: (tx: Queryable, report: NewReport) => addReport(tx, ingest, report),

    /** An event as the operator sees it: the search-event fields, counts as of now, and its fate. */
    async getEvent(id: string) {
      const [event] = await loadEventViews(db.reads, [id], { at: clock.now() });
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
        await ingestLocksStore.lockClustering(tx, [merged.event_type_id]);
        const [first, second] = [id, intoId].sort();
        await store.getEvent(tx, first!, true);
        await store.getEvent(tx, second!, true);
        if (merged.merged_into_event_id) throw new ProblemError('state-conflict', `Event ${id} is already merged into ${merged.merged_into_event_id}.`);
        const target = await store.getEvent(tx, intoId);
        if (!target || target.deleted_at) throw fieldProblem('/into_event_id', 'names no event');
        const survivor = target.merged_into_event_id ? (await store.getEvent(tx, target.merged_into_event_id, true))! : target;
        if (survivor.deleted_at) throw fieldProblem('/into_event_id', 'names an event that was merged into one since deleted');
        if (survivor.id === id) throw fieldProblem('/into_event_id', 'resolves to the event itself');
        if (survivor.event_type_id !== merged.event_type_id) throw fieldProblem('/into_event_id', 'names an event of another event type');
        // The survivor's state is recomputed below from its entities' survivors: those are
        // share-locked first, as ingest locks them, so an entity merge or deletion under way
        // is waited for (and the refresh reads what it wrote) or waits (and its own refresh
        // then finds the merged events' entities on the survivor).
        await referenceStore.resolveEntitiesLocked(tx, await store.entitiesOf(tx, [id, survivor.id]));
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
