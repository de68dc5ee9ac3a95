// Event search latency over HTTPS against the bare SQL of the same requests, in one run.
//
// Each search of a mix of filters is sent over HTTPS (one at a time, a new charged
// execution each time, or a continuation page); every read statement it runs (all but the
// charge, which writes) is recorded and replayed directly on the database, back to back, as
// its bare SQL time. p50 and p99 of both are printed per filter and for the whole mix.
// Before anything else, the first search of each of the widest cases after start (a cold
// process), while the search index in memory builds (as after a restart: searches it cannot
// answer yet count in SQL); then the build's time; after the rounds, the mix from 8 clients at
// once against 1, and the process's RSS.
// Goals (search issue): whole-mix p99 ≤ 20 ms at a million events, no case above 30 ms,
// HTTP p99 ≤ 1.2 × SQL p99, the first search after a restart ≤ 100 ms, 8 clients ≥ 1.6 × the
// throughput of 1 with p99 within 2 ×.
//
// The corpus is made beforehand (about 12 minutes for a million events):
//   EVMON_DATA_DIR=/tmp/evbench/pglite-data npx evmon demo --events 1000000 --seed 42
//   BENCH_DATA_DIR=/tmp/evbench/pglite-data npx tsx bench/search.ts
//   export EVMON_ENCRYPTION_KEY=$(openssl rand -base64 32)   # PostgreSQL needs one; the same for both
//   EVMON_DATABASE_URL=postgres://… npx evmon demo --events 1000000 --seed 42
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/search.ts
//   BENCH_ROUNDS=200 BENCH_REFERENCE_ROUNDS=<all> BENCH_CLIENTS=8 BENCH_CONCURRENT_SECONDS=15
import '../src/platform/gc-tuning.js'; // first, as in src/main.ts: the server runs in this process
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadTls } from '../src/platform/tls.js';
import type { QueryOptions } from '../src/platform/db/database.js';
import { receivedUpTo } from '../src/modules/corpus/event-view.js';
import { filteredEvents } from '../src/modules/filters/filtered-events.js';
import { normalizeFilter } from '../src/modules/filters/filter.js';
import { isManualClock } from '../src/platform/clock.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';
import { searchKey, searchMix, typeIds, widestSearches } from './search-mix.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const CONCURRENT_SECONDS = Number(process.env.BENCH_CONCURRENT_SECONDS ?? 15);
// The SQL face's reference runs in this many rounds (all by default): at ten million events each
// of its counts takes seconds, which over 40 rounds would be most of an hour.
const REFERENCE_ROUNDS = Number(process.env.BENCH_REFERENCE_ROUNDS ?? ROUNDS);
const OPS = 'bench-ops-token-0123456789';

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: process.env.BENCH_DATA_DIR ?? '/tmp/evbench/pglite-data',
  EVMON_OPS_TOKEN: OPS,
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
  EVMON_LOG_LEVEL: 'warn',
  // A corpus whose demo load was stopped early ends before today: BENCH_NOW sets the clock at its end.
  ...(process.env.BENCH_NOW ? { EVMON_TEST_CLOCK: '1' } : {}),
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
if (process.env.BENCH_NOW && isManualClock(runtime.clock)) runtime.clock.set(new Date(process.env.BENCH_NOW));
const { db } = runtime;
// (Counted at the end: counting now would read the corpus before the first, cold searches.)
if ((await db.query('SELECT 1 FROM events LIMIT 1000')).length < 1000)
  throw new Error('No corpus here: make one first with `npx evmon demo --events 1000000` (see the top of this file).');

// Record the read statements run outside transactions (the search's reads; its charge
// runs in a transaction and is not replayed).
let recording: { sql: string; params?: readonly unknown[] }[] | null = null;
/** Runs `work` and, while a request is being recorded, hands its time to `took`. */
async function timedWhileRecording<T>(work: () => Promise<T>, took: (ms: number) => void): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    if (recording) took(performance.now() - started);
  }
}
const query = db.query.bind(db);
/** The charge's time (the statement that commits) of the request being recorded. */
let chargeMs: number | null = null;
db.query = (async (sql: string, params?: readonly unknown[], options?: QueryOptions) => {
  if (options?.commits)
    return timedWhileRecording(
      () => query(sql, params, options),
      (ms) => (chargeMs = ms),
    );
  recording?.push({ sql, params });
  return query(sql, params, options);
}) as typeof db.query;
/** The database without the recording, for the reference. */
const unrecorded = { ...db, query };
// The time inside the search service (its reads, the index's count, the charge) of each
// recorded request: what HTTP adds over it is the per-request fixed cost (TLS, parsing, the
// key, rate limits, validation, serialization).
let serviceMs: number | null = null;
const serviceSearch = runtime.search.search;
runtime.search.search = (...args) =>
  timedWhileRecording(
    () => serviceSearch(...args),
    (ms) => (serviceMs = ms),
  );

const tls = await loadTls(config);
const app = await buildApp(runtime, tls);
// The server's own time for each recorded request (from its headers parsed to its answer
// written), which leaves out this process's client (undici, TLS on its side, reading the
// answer): the server's fixed cost is this less the service's time.
let serverMs: number | null = null;
app.server.on('request', (_request: unknown, response: NodeJS.EventEmitter) => {
  if (!recording) return;
  const arrived = performance.now();
  response.once('finish', () => {
    if (recording) serverMs = performance.now() - arrived;
  });
});
// As a server starts (src/main.ts): the search index loaded from its file, or its build
// started, and the widest search read once, before it listens (the rest of the background
// work is left out).
const indexStarted = performance.now();
await runtime.warmUp();
const warmUpMs = performance.now() - indexStarted;
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;
const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 1 });

const key = await searchKey(runtime);

const typeId = await typeIds(runtime);

// biome-ignore lint/suspicious/noExplicitAny: a benchmark reads whichever members it times
async function search(body: unknown, dispatcher = agent): Promise<any> {
  const response = await request(`https://127.0.0.1:${port}/v1/events/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`search answered ${response.statusCode}: ${text}`);
  return JSON.parse(text);
}

// The widest searches a new user sends first, timed first: nothing has read the corpus yet in
// this process (a restart; PostgreSQL's own cache may still hold it, the embedded one not).
const widest = widestSearches(typeId);
const cold: { name: string; ms: number; serviceMs: number }[] = [];
for (const { name, body } of widest) {
  recording = []; // (for the service's time; these statements are not replayed)
  const started = performance.now();
  await search(body);
  cold.push({ name, ms: performance.now() - started, serviceMs: serviceMs! });
  recording = null;
}

await runtime.searchIndex.built();
const indexBuiltMs = performance.now() - indexStarted;
const rssIndexedMb = process.memoryUsage().rss / 2 ** 20;
// (Said at once too: at ten million events the rounds that follow take a while.)
process.stderr.write(`search index built ${(indexBuiltMs / 1000).toFixed(1)} s after start; RSS then ${rssIndexedMb.toFixed(0)} MB\n`);

const mix = await searchMix(runtime, typeId);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Sample {
  http: number[];
  /** Inside the search service, charge included. */
  service: number[];
  /** Inside the server (its headers parsed to its answer written). */
  server: number[];
  /** The charge alone (a new execution's; a continuation has none). */
  charge: number[];
  sql: number[];
  /** The search as it was read before the day counts (receivedUpTo, then the SQL face's count and first page): the reference. */
  reference: number[];
  total: number;
  /** The read statements one search ran (the replayed ones; the charge is not among them). */
  statements: number;
}

/** The reference: count and first page by the SQL face alone, as every search was read before the day counts. */
async function referenceSearch(body: Record<string, unknown>): Promise<void> {
  const countedUpTo = await receivedUpTo(unrecorded);
  const windowStart = new Date(runtime.clock.now().getTime() - (body.lookback_days as number) * 86_400_000);
  const events = await filteredEvents(unrecorded, [normalizeFilter(body)], { countedUpTo, windowStart });
  await events.count();
  await events.page('newest-first', null, 21);
}
const samples = new Map<string, Sample>();
const paged = mix.find((m) => m.name === 'type, 30 days')!;
const cases = [...mix.map((m) => ({ name: m.name, body: () => m.body })), { name: 'continuation page of "type, 30 days"', body: () => null }];
for (const c of cases) samples.set(c.name, { http: [], service: [], server: [], charge: [], sql: [], reference: [], total: 0, statements: 0 });

// Warm-up: one round of every case, unmeasured.
for (const m of mix) await search(m.body);

// Each round sends every case over HTTPS, then replays every case's statements in the same
// order, so both passes meet the same cache conditions.
let cursor: string | null = null;
for (let round = 0; round < ROUNDS; round++) {
  const recorded: { name: string; statements: { sql: string; params?: readonly unknown[] }[] }[] = [];
  for (const c of cases) {
    let body = c.body();
    if (body === undefined || body === null) {
      // (A small corpus may hold one page of it: then pages of 5.)
      cursor ??= (await search(paged.body)).next_cursor ?? (await search({ ...paged.body, limit: 5 })).next_cursor;
      body = { cursor };
    }
    recording = [];
    chargeMs = null;
    serverMs = null;
    const started = performance.now();
    const answer = await search(body);
    const sample = samples.get(c.name)!;
    sample.http.push(performance.now() - started);
    sample.service.push(serviceMs!);
    // (Only when the server's answer finished before the client had read it.)
    if (serverMs !== null) sample.server.push(serverMs);
    if (chargeMs !== null) sample.charge.push(chargeMs);
    sample.total = answer.total_count;
    sample.statements = recording.length;
    recorded.push({ name: c.name, statements: recording });
    recording = null;
  }
  for (const { name, statements } of recorded) {
    const started = performance.now();
    for (const statement of statements) await query(statement.sql, statement.params);
    samples.get(name)!.sql.push(performance.now() - started);
  }
  for (const m of round < REFERENCE_ROUNDS ? mix : []) {
    const started = performance.now();
    await referenceSearch(m.body);
    samples.get(m.name)!.reference.push(performance.now() - started);
  }
}

/** The mix (no continuations) from `clients` clients at once, each on its own connection, for `seconds`. */
async function concurrently(clients: number, seconds: number) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const dispatcher = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 1 });
      for (let i = client; performance.now() < until; i++) {
        const started = performance.now();
        await search(mix[i % mix.length]!.body, dispatcher);
        latencies.push(performance.now() - started);
      }
      await dispatcher.close();
    }),
  );
  const mean = latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length;
  return { perSecond: latencies.length / seconds, mean, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}
const one = await concurrently(1, CONCURRENT_SECONDS);
const many = await concurrently(CLIENTS, CONCURRENT_SECONDS);
const rssMb = process.memoryUsage().rss / 2 ** 20;
const eventCount = (await query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(`\n${config.database.kind}, ${eventCount.toLocaleString('en')} events, ${ROUNDS} rounds, ${new Date().toISOString()}\n`);
console.log(`warm-up before listening (index loaded or its build started, the widest search read): ${fmt(warmUpMs)}`);
console.log(`first searches after start: ${cold.map((c) => `${c.name} ${fmt(c.ms)} (inside the service ${fmt(c.serviceMs)})`).join(', ')}`);
console.log(`search index built ${(indexBuiltMs / 1000).toFixed(1)} s after start; RSS then ${rssIndexedMb.toFixed(0)} MB\n`);
console.log(
  '| search | total_count | reads | HTTP p50 | HTTP p99 | service p50 | service p99 | HTTP / service p99 | SQL p50 | SQL p99 | HTTP / SQL p99 | reference p99 | HTTP p99 / reference p99 |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
const all = { http: [] as number[], service: [] as number[], sql: [] as number[], reference: [] as number[] };
const p99 = (values: number[]) => (values.length > 0 ? fmt(percentile(values, 99)) : '');
const over = (a: number[], b: number[]) => (b.length > 0 ? (percentile(a, 99) / percentile(b, 99)).toFixed(2) : '');
for (const [name, sample] of samples) {
  all.http.push(...sample.http);
  all.service.push(...sample.service);
  all.sql.push(...sample.sql);
  all.reference.push(...sample.reference);
  console.log(
    `| ${name} | ${sample.total.toLocaleString('en')} | ${sample.statements} | ${fmt(percentile(sample.http, 50))} | ${p99(sample.http)} | ${fmt(percentile(sample.service, 50))} | ${p99(sample.service)} | ${over(sample.http, sample.service)} | ${fmt(percentile(sample.sql, 50))} | ${p99(sample.sql)} | ${over(sample.http, sample.sql)} | ${p99(sample.reference)} | ${over(sample.http, sample.reference)} |`,
  );
}
console.log(
  `| **whole mix** | | | ${fmt(percentile(all.http, 50))} | **${p99(all.http)}** | ${fmt(percentile(all.service, 50))} | ${p99(all.service)} | **${over(all.http, all.service)}** | ${fmt(percentile(all.sql, 50))} | ${p99(all.sql)} | **${over(all.http, all.sql)}** | ${p99(all.reference)} | ${over(all.http, all.reference)} |`,
);
const servers = [...samples.values()].flatMap((sample) => sample.server);
console.log(
  `\ninside the server (headers parsed to answer written), whole mix (${servers.length} of ${all.http.length} requests): p50 ${fmt(percentile(servers, 50))}, p99 ${fmt(percentile(servers, 99))}; server p99 / service p99 ${over(servers, all.service)}`,
);
const charges = [...samples.values()].flatMap((sample) => sample.charge);
console.log(`\nthe charge (one statement that commits), inside the service: p50 ${fmt(percentile(charges, 50))}, p99 ${fmt(percentile(charges, 99))}`);
console.log(
  `\n1 client: ${one.perSecond.toFixed(1)} searches/s, p50 ${fmt(one.p50)}, p99 ${fmt(one.p99)}; ${CLIENTS} clients: ${many.perSecond.toFixed(1)} searches/s (${(many.perSecond / one.perSecond).toFixed(2)} ×), p50 ${fmt(many.p50)}, p99 ${fmt(many.p99)} (${(many.p99 / one.p99).toFixed(2)} ×); ${CONCURRENT_SECONDS} s each`,
);
// Little's law: clients that each wait for their answer before sending again wait, on average,
// clients ÷ (throughput ratio) times as long as one client does.
console.log(
  `mean latency ${fmt(one.mean)} → ${fmt(many.mean)} (${(many.mean / one.mean).toFixed(2)} ×; Little's law for ${CLIENTS} closed-loop clients at ${(many.perSecond / one.perSecond).toFixed(2)} × the throughput: ${(CLIENTS / (many.perSecond / one.perSecond)).toFixed(2)} ×)`,
);
console.log(`RSS of this process (server, database${config.database.kind === 'pglite' ? ' included' : ' client'} and load): ${rssMb.toFixed(0)} MB`);

await agent.close();
await app.close();
await runtime.close();
