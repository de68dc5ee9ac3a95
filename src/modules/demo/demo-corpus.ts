// A deterministic demo corpus, made the way a real one is: news articles about ground-truth
// events (demo-articles.ts), loaded through the bulk ingest path, which clusters them into
// events by the service's own rule. Reference data (outlets, entities with realistic names,
// the demo event types) is written first; duplicate entity records are merged through the
// reference service before any article names them. The same seed and size give the same
// articles (ids aside, which follow the clock). At the end the clustering is measured against
// the ground truth, B-cubed precision and recall over every article loaded, and so is copy
// detection: pairwise precision and recall of the copy groups against the true stories.
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { EventsService } from '../corpus/events.service.js';
import type { CopiesAhead } from '../corpus/recent-copies.js';
import type { ReferenceService } from '../corpus/reference.service.js';
import { referenceStore } from '../corpus/reference.store.js';
import { foldDayCounts } from '../search/index/day-counts.js';
import { bcubed } from './bcubed.js';
import { type CopyQuality, copyQuality } from './copy-quality.js';
import { type ArticleLine, readText } from '../corpus/new-report.js';
import { type DemoPart, demoArticleBatches, TRUE_EVENT_OF_URL } from './demo-articles.js';
import { DEMO_EVENT_TYPES } from './demo-event-types.js';
import { buildWorld, type DemoWorld } from './demo-world.js';

export interface DemoDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  reference: ReferenceService;
  /** lookAhead, when given, looks the next batch's texts up while one is written. */
  events: Pick<EventsService, 'ingestArticles'> & Partial<Pick<EventsService, 'lookAhead'>>;
}

export interface DemoOptions {
  events: number;
  seed?: number;
  /** Articles per ingest transaction. */
  batchSize?: number;
  /** After each batch: the events whose articles are all loaded. */
  progress?: (done: number, total: number) => void;
  /** Once the events of the last RECENT_DAYS days are loaded (they go first), with how many there are. */
  recentLoaded?: (events: number) => void | Promise<void>;
  /** Checked between batches: once aborted, the batches written so far stay and the rest are not made. */
  signal?: AbortSignal;
}

export interface DemoSummary {
  /** Ground-truth events the articles were written about. */
  events: number;
  /** Articles loaded, each one report. */
  reports: number;
  /** Events the service formed from them. */
  stored_events: number;
  /** Duplicate entity records merged into their entity before loading. */
  merged_entities: number;
  /** Clustering against the ground truth, over all articles loaded. */
  bcubed_precision: number;
  bcubed_recall: number;
  /** Copy detection against the true stories (copy-quality.ts), figures to 4 decimals. */
  copies: CopyQuality;
  /** Reports loaded per second of loading (generation included, set-up and measuring not). */
  reports_per_second: number;
  seconds: number;
}

export const DEFAULT_DEMO_SEED = 20261122;

/** The demo event types' ids by code name: created once, reused by later runs on the same database. */
async function demoEventTypeIds(deps: DemoDeps): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const { frequency: _, roles, ...spec } of DEMO_EVENT_TYPES) {
    const existing = await referenceStore.eventTypeByCode(deps.db, spec.code_name);
    const id =
      existing?.id ??
      (await deps.reference.createEventType({ ...spec, roles: roles.map(({ code_name, name, expected_type }) => ({ code_name, name, expected_type })) })).id;
    ids.set(spec.code_name, id);
  }
  return ids;
}

/** Outlets and entities, duplicate records included, in one transaction. */
async function writeReferenceData(db: Database, world: DemoWorld, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await referenceStore.bulkInsertOutlets(tx, world.outlets, now);
    for (const pool of Object.values(world.pools)) {
      for (let i = 0; i < pool.ids.length; i += 5_000) {
        const rows = pool.ids.slice(i, i + 5_000).map((id, j) => ({ id, name: pool.named(i + j).name, type: pool.type }));
        await referenceStore.bulkInsertEntities(tx, rows, now);
      }
      const duplicates: { id: string; name: string; type: string }[] = [];
      pool.aliasSlot.forEach((slot, index) => {
        if (slot >= 0) duplicates.push({ id: pool.aliasIds[slot]!, name: pool.named(index).alias, type: pool.type });
      });
      await referenceStore.bulkInsertEntities(tx, duplicates, now);
    }
  });
}

/** Merges every duplicate record into its entity, as an operator resolving entities would. */
async function mergeDuplicates(reference: ReferenceService, world: DemoWorld, signal?: AbortSignal): Promise<number> {
  let merged = 0;
  for (const pool of Object.values(world.pools)) {
    for (let index = 0; index < pool.aliasSlot.length; index++) {
      const slot = pool.aliasSlot[index]!;
      if (slot < 0) continue;
      signal?.throwIfAborted();
      await reference.mergeEntity(pool.aliasIds[slot]!, pool.ids[index]!);
      merged++;
    }
  }
  return merged;
}

/**
 * B-cubed of the articles of these outlets (a demo run's own), clusters being the events they
 * are in now and classes the true events their urls name; and how many events they form.
 */
export async function clusteringQuality(db: Queryable, outletIds: readonly string[]) {
  const cells = await db.query<{ shared: number; stored: number; truth: number; times: number }>(
    `WITH loaded AS (
       SELECT COALESCE(e.merged_into_event_id, e.id) AS stored, ${TRUE_EVENT_OF_URL('r.url')} AS truth
         FROM reports r JOIN events e ON e.id = r.event_id
        WHERE r.outlet_id = ANY($1::uuid[])
     ), cells AS (
       SELECT stored, truth, count(*)::int AS shared FROM loaded GROUP BY stored, truth
     ), sized AS (
       SELECT shared, sum(shared) OVER (PARTITION BY stored)::int AS stored_size, sum(shared) OVER (PARTITION BY truth)::int AS truth_size FROM cells
     )
     SELECT shared, stored_size AS stored, truth_size AS truth, count(*)::int AS times FROM sized GROUP BY 1, 2, 3`,
    [outletIds],
  );
  const quality = bcubed(cells.map((c) => ({ shared: c.shared, cluster: c.stored, truth: c.truth, times: c.times })));
  // The cells of one stored event add up to its size, so each stored event counts 1 here.
  const storedEvents = Math.round(cells.reduce((sum, c) => sum + (c.times * c.shared) / c.stored, 0));
  return { ...quality, storedEvents };
}

/** A batch of demo articles, texts read, with the events whose articles are all in it or before, and its copy look-ahead. */
interface PreparedBatch {
  lines: ArticleLine[];
  eventsDone: number;
  ahead?: CopiesAhead;
}

/** Ingests one batch of demo articles, texts read; the reports stored. */
async function loadBatch(deps: DemoDeps, { lines, ahead }: PreparedBatch, signal?: AbortSignal): Promise<number> {
  if (signal?.aborted) {
    ahead?.end(); // never written: its look-ahead is let go
    signal.throwIfAborted();
  }
  const outcomes = await deps.events.ingestArticles(lines, ahead);
  for (const outcome of outcomes) {
    // Every article is new and valid: anything else is a fault of the generator.
    const body = lines[outcome.line - 1]!.body;
    if (outcome.status === 400) throw new Error(`demo article refused: ${outcome.problem.detail} ${JSON.stringify(body)}`);
    if (outcome.status === 200) throw new Error(`demo article stored twice: ${body.url}`);
  }
  // The embedded database answers in microtasks, so without this a corpus seeded while the
  // server listens would hold the event loop until the last batch: requests wait at most one.
  await setImmediate();
  return outcomes.length;
}

/** Articles made between two turns of the event loop while the batch before is written (PREPARED_SLICE). */
const PREPARED_SLICE = 10;

/**
 * The demo's batches of `size` articles with their texts read (ingest's lines), each made while
 * the one before it is written: the articles come from the generator PREPARED_SLICE at a time
 * (the same articles in the same order as batches of `size`), with a turn of the event loop
 * between slices, so the database's answers to the batch being written are taken between them
 * (at most one slice, about 1.5 ms, late). On PostgreSQL the database then works while the
 * loader makes and reads the next batch; the embedded database shares the thread, and loses
 * only the turns. Making stops at the next slice once `stop` is aborted. A batch's events done
 * are those whose last article is in its last slice or before (a size not a multiple of
 * PREPARED_SLICE may count a few whose last article opens the next batch).
 */
async function* preparedBatches(world: DemoWorld, options: { events: number; seed: number; size: number; part: DemoPart; stop: AbortSignal }) {
  const read: Omit<ArticleLine, 'line'>[] = [];
  let eventsDone = 0;
  const batch = (articles: Omit<ArticleLine, 'line'>[]) => ({ lines: articles.map((article, i) => ({ ...article, line: i + 1 })), eventsDone });
  for (const slice of demoArticleBatches(world, { ...options, batchSize: PREPARED_SLICE })) {
    for (const body of slice.articles) read.push({ body, text: readText(body) });
    eventsDone = slice.eventsDone;
    while (read.length >= options.size) yield batch(read.splice(0, options.size));
    await setImmediate();
    if (options.stop.aborted) return;
  }
  if (read.length > 0) yield batch(read);
}

export async function generateDemoCorpus(deps: DemoDeps, options: DemoOptions): Promise<DemoSummary> {
  const started = performance.now();
  const { db, clock, newId } = deps;
  const now = clock.now();
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const world = buildWorld({ events: options.events, seed, now, newId, typeIds: await demoEventTypeIds(deps) });
  await writeReferenceData(db, world, now);
  const mergedEntities = await mergeDuplicates(deps.reference, world, options.signal);

  const loading = performance.now();
  let reports = 0;
  // The last days first, so that a new server's first minutes have recent news to search;
  // then the rest of the year, each part in publish order.
  let partsDone = 0;
  for (const part of ['recent', 'older'] as const) {
    let partDone = 0;
    // The next batch is made while this one is written; when a write fails (or the load is
    // aborted), the one being made is dropped, and so is its own failure: the caller gets the first.
    const stop = new AbortController();
    const batches = preparedBatches(world, { events: options.events, seed, size: options.batchSize ?? 1_000, part, stop: stop.signal });
    const prepare = async (): Promise<PreparedBatch | null> => {
      const made = await batches.next();
      if (made.done) return null;
      // And its texts looked up for copy detection, in the turns this one's write leaves.
      const ahead = deps.events.lookAhead && !stop.signal.aborted ? await deps.events.lookAhead(made.value.lines) : undefined;
      return { ...made.value, ahead };
    };
    const preparing = () => {
      const made = prepare();
      made.catch(() => undefined); // awaited below, unless a write fails first
      return made;
    };
    let next = preparing();
    try {
      for (let batch = await next; batch !== null; batch = await next) {
        next = preparing();
        reports += await loadBatch(deps, batch, options.signal);
        partDone = batch.eventsDone;
        options.progress?.(partsDone + partDone, options.events);
      }
    } finally {
      stop.abort();
      // A batch made but never written lets its look-ahead go.
      next.then(
        (unused) => unused?.ahead?.end(),
        () => undefined,
      );
    }
    partsDone += partDone;
    if (part === 'recent') await options.recentLoaded?.(partDone);
  }
  const loadSeconds = (performance.now() - loading) / 1000;

  // The day counts' deltas folded, as a server's first sweep would (the widest searches read
  // them: 395,000 delta rows over 29,000 keys after a million events, unfolded). Then fresh
  // statistics for the searches that follow: the embedded database has no autovacuum daemon,
  // and without them the planner scans whole tables.
  while ((await foldDayCounts(db)) > 0); // 10,000 keys a statement
  await db.exec(db.kind === 'pglite' ? 'VACUUM ANALYZE' : 'ANALYZE');
  // And a checkpoint (the embedded database has no checkpointer): its folder then keeps only the
  // log segment being written, and a start after a crash has nothing of the load to replay.
  if (db.kind === 'pglite') await db.exec('CHECKPOINT');
  // Read over the whole corpus, without the statement timeout requests have: a million events'
  // reports take longer to group than a request may, the more on a busy machine.
  const outletIds = world.outlets.map((o) => o.id);
  const { quality, copies } = await db.transaction(async (tx) => {
    await tx.query('SET LOCAL statement_timeout = 0');
    return { quality: await clusteringQuality(tx, outletIds), copies: await copyQuality(tx, outletIds) };
  });
  const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
  const share = (n: number | null) => (n === null ? null : round(n, 4));
  return {
    events: options.events,
    reports,
    stored_events: quality.storedEvents,
    merged_entities: mergedEntities,
    bcubed_precision: round(quality.precision, 4),
    bcubed_recall: round(quality.recall, 4),
    copies: { ...copies, precision: share(copies.precision), recall: share(copies.recall), copyShare: share(copies.copyShare) },
    reports_per_second: Math.round(reports / Math.max(loadSeconds, 0.001)),
    seconds: round((performance.now() - started) / 1000, 1),
  };
}
