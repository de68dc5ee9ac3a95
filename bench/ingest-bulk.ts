// Bulk ingest at database speed (issue 24, "Bulk"): BENCH_ARTICLES articles loaded through
// importArticles (the loader of evmon import and POST /ops/v1/articles/bulk), BENCH_BATCH per
// transaction, with 10,000 sensors and 10,000 beats subscribed, timed from the first batch
// until every corpus.event-changed job (the sensors' and the beats' matching) is done. Then,
// in the same run, the bare COPY of the same rows into empty clones of the same tables (same
// indexes, constraints and foreign keys), and the ratio of the two.
// Goals: >= 10,000 articles/s on PostgreSQL, >= 3,000/s on PGlite, until matching caught up.
// Printed: articles/s up to the last batch's commit ("load alone") and until matching caught
// up; the bare COPY's rate (the run's articles over the time to COPY all their rows); and the
// ratio of the two (until caught up / bare COPY); then, as a table, ready for RESULTS.md. Also
// the CPU per article (this process's, and the rest of the machine's: the database server's
// on PostgreSQL) and, on PostgreSQL, the bare COPY through two connections at once.
//
// In one process on the runtime, as a worker runs it: the job loop runs beside the load (it
// matches each batch's changes as they commit, as in production), and what is left is drained
// after the last batch. Webhooks are never sent: the webhook dispatcher is not started (its
// deliveries stay pending in the outbox) and the sensors' URL names a host that does not
// exist (.invalid), so the figures are matching, not sending.
//
// Subscribers: each sensor names 2 entities, each beat has 2 clauses of one entity each.
// Articles name entities of a pool of 10,000; all filters but a few name other entities
// (they never match), and BENCH_MATCHING (default 1%) of events match one sensor and one beat.
//
//   npx tsx bench/ingest-bulk.ts                                       embedded database on disk (as the service runs it), 30,000 articles
//   BENCH_DATABASE_URL=memory:// npx tsx bench/ingest-bulk.ts          embedded database in memory
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/ingest-bulk.ts      PostgreSQL (an empty schema), 100,000 articles
//   BENCH_ARTICLES=… BENCH_BATCH=5000 BENCH_DAYS=30 BENCH_SUBSCRIBERS=10000 BENCH_MATCHING=0.01
//   BENCH_PROFILE=1                     the costliest statements
//   BENCH_OVERLAP=0                     matching run after the load instead of beside it
//   BENCH_ANALYZE=1                     the corpus tables ANALYZEd after each batch (timed)
//   BENCH_SEARCH_INDEX=1                the search index in memory caught up beside the load, as every server process does
//
// Statistics: the bench does not ANALYZE the corpus tables (a first import starts from empty
// ones, PGlite has no autovacuum, and PostgreSQL's runs at most once a minute); with
// BENCH_ANALYZE=1 it shows what current statistics change.
//
// The bare COPY (bare-copy.ts) needs, on PostgreSQL, a superuser's connection to a server on
// this machine (server-side COPY files).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { importArticles } from '../src/modules/corpus/article-import.js';
import { BULK_MAX_LINES } from '../src/modules/corpus/events.routes.js';
import { bumpFilterVersion } from '../src/modules/corpus/filter-versions.store.js';
import { createRuntime } from '../src/runtime.js';
import { bulkArticles, bulkEventTypes } from './bulk-articles.js';
import { bareCopy } from './bare-copy.js';
import { cpuNow, cpuPerItem } from './cpu-time.js';
import { benchKeyEnv } from './encryption-key.js';
import { profileStatements } from './statement-profile.js';
import { beatClause, benchAccount, insertBeats, insertEntities, insertSensors } from './subscribers.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? '';
/** The run's data folder (the embedded database's, when on disk): made fresh, removed after. */
const DATA_DIR = `${os.tmpdir()}/evmon-bench-ingest-bulk`;
const onPostgres = /^postgres(ql)?:/.test(DATABASE_URL);
const ARTICLES = Number(process.env.BENCH_ARTICLES ?? (onPostgres ? 100_000 : 30_000));
const BATCH = Number(process.env.BENCH_BATCH ?? 5_000);
if (!(BATCH >= 1 && BATCH <= BULK_MAX_LINES)) throw new Error(`BENCH_BATCH must be from 1 to ${BULK_MAX_LINES}, as evmon import and the bulk call allow`);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const MATCHING = Number(process.env.BENCH_MATCHING ?? 0.01);
const PROFILE = process.env.BENCH_PROFILE === '1';
/** 0: matching waits for the last batch (cleaner statement profiles: on PGlite a statement's time includes its wait for the one connection). */
const OVERLAP = process.env.BENCH_OVERLAP !== '0';
/** 1: the corpus tables ANALYZEd after each batch, timed (what a loader keeping the planner's statistics current would pay). */
const ANALYZE = process.env.BENCH_ANALYZE === '1';
/** 1: the search index in memory built and caught up beside the load, every second, as in every server process. */
const SEARCH_INDEX = process.env.BENCH_SEARCH_INDEX === '1';
const NAMED = 10_000; // entities the articles name
const UNNAMED = 10_000; // entities only filters name
const OUTLETS = 20;
/** The corpus tables a load writes. */
const CORPUS_TABLES = ['events', 'reports', 'event_participants'];

const config = loadConfig({
  EVMON_DATABASE_URL: DATABASE_URL,
  ...benchKeyEnv(DATABASE_URL),
  EVMON_DATA_DIR: DATA_DIR,
  EVMON_SEED: 'none',
});
fs.rmSync(DATA_DIR, { recursive: true, force: true });
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const profile = PROFILE ? profileStatements(db) : null;
const now = runtime.clock.now();
const count = async (sql: string, params: unknown[] = []) => (await db.query<{ n: number }>(sql, params))[0]!.n;
const seconds = (from: number) => (performance.now() - from) / 1000;
const thousands = (n: number) => Math.round(n).toLocaleString('en');
const step = (what: string) => process.stderr.write(`${what}…\n`);

// Reference data.
step('reference data');
const account = await benchAccount(runtime, 'bench-bulk');
const outlets = (await Promise.all(Array.from({ length: OUTLETS }, (_, i) => runtime.reference.createOutlet({ name: `Outlet ${i}` })))).map((o) => o.id);
const run = Date.now();
const types = await bulkEventTypes(runtime, `bench_bulk`, run);
const typeIds = types.map((t) => t.id);

const named = await insertEntities(db, NAMED, now, `Company ${run}`);
const unnamed = (await insertEntities(db, UNNAMED, now, `Unnamed ${run}`)).map((e) => e.id);

// Subscribers. An event names 2 of the NAMED entities, so `hot` filters on one named entity
// each make about 2 x hot / NAMED of events match.
const hot = Math.round((MATCHING * NAMED) / 2);
const rnd = (n: number) => Math.floor(Math.random() * n);
/** The entities of subscriber `i`'s `k`th filter: a named entity of its own for the first `hot` subscribers, else unnamed ones. */
const filterEntity = (i: number, k: number) => (i < hot && k === 0 ? named[i]!.id : unnamed[rnd(unnamed.length)]!);

step(`${SUBSCRIBERS} sensors and ${SUBSCRIBERS} beats`);
const subscribers = Array.from({ length: SUBSCRIBERS }, (_, i) => i);
await insertSensors(
  runtime,
  account.id,
  subscribers.map((i) => [filterEntity(i, 0), filterEntity(i, 1)]),
  (i) => new URL(`https://hooks-${i}.bench.invalid/evmon`),
  now,
);
await insertBeats(
  db,
  account.id,
  subscribers.map((i) => [0, 1].map((k) => beatClause({ involved_entity_ids: [filterEntity(i, k)] }))),
  now,
);
await db.transaction(async (tx) => {
  await bumpFilterVersion(tx, 'sensors');
  await bumpFilterVersion(tx, 'beats');
});
// As autovacuum would have left them after such inserts.
if (db.kind === 'postgres') for (const table of ['entities', 'sensors', 'beats', 'jobs']) await db.query(`ANALYZE ${table}`);

step(`${thousands(ARTICLES)} articles`);
const corpus = bulkArticles({ articles: ARTICLES, outlets, types, entities: named, start: new Date(Date.UTC(2026, 0, 1)), days: DAYS, seed: 24 });
async function* lines() {
  yield* corpus.lines;
}

// The timed load: the job loop matches beside it; then what is left is drained.
const deliveries = () => count('SELECT count(*)::int AS n FROM sensor_deliveries d JOIN sensors s ON s.id = d.sensor_id WHERE s.account_id = $1', [account.id]);
const entries = () => count('SELECT count(*)::int AS n FROM beat_entries be JOIN beats b ON b.id = be.beat_id WHERE b.account_id = $1', [account.id]);
const matchingLeft = () => count(`SELECT count(*)::int AS n FROM jobs WHERE kind LIKE 'corpus.event-changed:%' AND status IN ('pending', 'running')`);
step('loading');
if (OVERLAP) runtime.jobs.start();
if (SEARCH_INDEX) await runtime.searchIndex.start();
profile?.start();
const batchMs: number[] = [];
const started = performance.now();
const cpuAtStart = cpuNow();
let batchStarted = started;
let linesDone = 0;
const loader: typeof runtime.events = ANALYZE
  ? {
      ...runtime.events,
      async ingestArticles(items, ahead) {
        const outcomes = await runtime.events.ingestArticles(items, ahead);
        for (const table of CORPUS_TABLES) await db.exec(`ANALYZE ${table}`);
        return outcomes;
      },
    }
  : runtime.events;
const summary = await importArticles(loader, lines(), {
  batchSize: BATCH,
  onBatch: (lines) => {
    if (lines === linesDone) return; // the closing flush of an empty batch
    linesDone = lines;
    batchMs.push(performance.now() - batchStarted);
    batchStarted = performance.now();
  },
  onProblem: (problem) => {
    throw new Error(`line ${problem.line} refused: ${problem.detail}`);
  },
});
const loadSeconds = seconds(started);
const loadProfile = profile && { top: profile.top(12), ...profile.totals() };
profile?.reset();
const leftAtLoadEnd = await matchingLeft();
await runtime.jobs.drain();
const caughtUpSeconds = seconds(started);
const cpuPerArticle = cpuPerItem(cpuAtStart, cpuNow(), ARTICLES);
profile?.stop();
await runtime.jobs.stop();
if ((await matchingLeft()) > 0) throw new Error('matching jobs left after the drain');
const failed = await count(`SELECT count(*)::int AS n FROM jobs WHERE kind LIKE 'corpus.event-changed:%' AND status = 'failed'`);
const madeEvents = await count('SELECT count(*)::int AS n FROM events WHERE event_type_id = ANY($1::uuid[])', [typeIds]);
const matchingJobs = await count(`SELECT count(*)::int AS n FROM jobs WHERE kind LIKE 'corpus.event-changed:%' AND created_at >= $1`, [now]);
const made = { deliveries: await deliveries(), entries: await entries() };

// The bare COPY of this run's rows of each corpus table.
step('bare COPY');
const ofRun = `SELECT id FROM events WHERE event_type_id = ANY('{${typeIds.join(',')}}'::uuid[])`;
const selections = new Map([
  ['events', `SELECT * FROM events WHERE id IN (${ofRun})`],
  ['reports', `SELECT * FROM reports WHERE event_id IN (${ofRun})`],
  ['event_participants', `SELECT * FROM event_participants WHERE event_id IN (${ofRun})`],
]);
const copied = await bareCopy(db, selections);
const copySeconds = copied.reduce((sum, table) => sum + table.seconds, 0);
// On PostgreSQL, also through two connections at once: the database alone on every core of a
// two-core machine, the most any loader (which also parses, checks and clusters) could reach here.
const copiedTogether = onPostgres ? await bareCopy(db, selections, 2) : null;
const togetherSeconds = copiedTogether?.reduce((sum, table) => sum + table.seconds, 0) ?? null;

// The machine and the results.
const storage =
  db.kind === 'postgres'
    ? await postgresStorage()
    : DATABASE_URL === 'memory://'
      ? 'PGlite in memory (this process)'
      : `PGlite on disk (this process, ${diskOf(DATA_DIR)})`;
await runtime.close();
fs.rmSync(DATA_DIR, { recursive: true, force: true });
const loadRate = summary.imported / loadSeconds;
const caughtUpRate = summary.imported / caughtUpSeconds;
const copyRate = summary.imported / copySeconds;
const sortedBatches = [...batchMs].sort((a, b) => a - b);
const cpu = os.cpus();
console.log(`\nmachine: ${cpu.length} cores (${cpu[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}; ${storage}`);
console.log(
  `settings: ${thousands(summary.imported)} articles (${thousands(madeEvents)} events, over ${DAYS} days, ${OUTLETS} outlets, 3 event types), batches of ${thousands(BATCH)}; ` +
    `${thousands(SUBSCRIBERS)} sensors and ${thousands(SUBSCRIBERS)} beats, ${hot} of each on entities the articles name; ` +
    `matching ${OVERLAP ? 'beside the load' : 'after the load'}; ${ANALYZE ? 'corpus tables ANALYZEd after each batch' : 'no ANALYZE'}; ` +
    `${SEARCH_INDEX ? 'the search index in memory caught up beside the load' : 'no search index in memory'}; ` +
    'webhooks not sent (dispatcher not started)',
);
console.log(
  `batches: ${batchMs.length}, median ${(sortedBatches[Math.floor(sortedBatches.length / 2)]! / 1000).toFixed(2)} s, slowest ${(sortedBatches.at(-1)! / 1000).toFixed(2)} s; ` +
    `matching jobs ${thousands(matchingJobs)} (${leftAtLoadEnd} left when the last batch committed, ${failed} failed)`,
);
console.log(`bare COPY per table: ${copied.map((t) => `${t.table} ${thousands(t.rows)} rows ${t.seconds.toFixed(2)} s`).join(', ')}`);
if (togetherSeconds !== null) {
  console.log(`bare COPY through 2 connections at once: ${thousands(summary.imported / togetherSeconds)}/s (${togetherSeconds.toFixed(1)} s)`);
}
console.log('');
console.log(
  `CPU per article until caught up: this process ${cpuPerArticle.node.toFixed(2)} ms, the rest (the database server, on PostgreSQL) ${cpuPerArticle.rest.toFixed(2)} ms; ` +
    `${(((cpuPerArticle.node + cpuPerArticle.rest) * caughtUpRate) / 1000).toFixed(2)} of ${os.cpus().length} cores busy`,
);
console.log('| storage | articles | load alone | until matching caught up | deliveries | beat entries | bare COPY | loader / COPY |');
console.log('|---|---|---|---|---|---|---|---|');
console.log(
  `| ${db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'} | ${thousands(summary.imported)} | ${thousands(loadRate)}/s (${loadSeconds.toFixed(1)} s) | ` +
    `**${thousands(caughtUpRate)}/s** (${caughtUpSeconds.toFixed(1)} s) | ${thousands(made.deliveries)} | ${thousands(made.entries)} | ` +
    `${thousands(copyRate)}/s (${copySeconds.toFixed(1)} s) | ${(caughtUpRate / copyRate).toFixed(2)} |`,
);
console.log(`goal: >= ${db.kind === 'postgres' ? '10,000' : '3,000'} articles/s until matching caught up`);
if (profile && loadProfile) {
  // Statements that overlap (a pool of connections; on PGlite, the queue for its one connection) are each counted in full.
  const table = (title: string, rows: string[], totals: { statements: number; transactions: number }) => {
    console.log(`\n${title}: ${totals.statements.toFixed(1)} s in statements, ${totals.transactions.toFixed(1)} s in whole transactions`);
    console.log('| total | calls | mean | statement |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(row);
  };
  table(`costliest statements while loading (${loadSeconds.toFixed(1)} s)`, loadProfile.top, loadProfile);
  table(`costliest statements of the drain after it (${(caughtUpSeconds - loadSeconds).toFixed(1)} s)`, profile.top(12), profile.totals());
}

/** PostgreSQL's version and what its data directory is stored on. */
async function postgresStorage(): Promise<string> {
  const setting = async (name: string) => (await db.query<Record<string, string>>(`SHOW ${name}`))[0]![name]!;
  let disk = 'storage unknown';
  try {
    disk = diskOf(await setting('data_directory'));
  } catch {
    // Another machine's server, or no right to read the setting.
  }
  return `PostgreSQL ${await setting('server_version')}, ${disk}`;
}

/** What a folder is stored on, as df tells it. */
function diskOf(folder: string): string {
  const line = execFileSync('df', ['-hT', folder], { encoding: 'utf8' }).trim().split('\n').at(-1)!.split(/\s+/);
  return `data on ${line[0]} (${line[1]}, ${line[2]}, ${line[5]} used)`;
}
