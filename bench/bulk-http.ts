// Bulk ingest as users run it, against the loader alone, side by side in one run: the same
// articles (bench/bulk-articles.ts) into fresh databases (embedded on disk, or PostgreSQL), four ways:
//   http:        a server process (src/main.ts's, background work and all) fed by this client
//                process, POST /ops/v1/articles/bulk one batch at a time, then POST /ops/v1/drain;
//   http, 2:     the same with two batches in flight (the client sends the next while the
//                server writes this one);
//   loader:      importArticles in this process, as bench/ingest-bulk.ts runs it (the job loop
//                beside it, no search index in memory), then the jobs drained;
//   loader+index: the same with the search index in memory caught up beside it, as every
//                server process keeps it.
// No subscribers. Timed from the first batch until matching is drained. Then the floor: the
// rows the first way stored (events, reports, participants) COPYed into empty clones of their
// tables (bench/bare-copy.ts), and on PostgreSQL through two connections at once as well.
//
//   npx tsx bench/bulk-http.ts                                  embedded, on disk
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/x npx tsx bench/bulk-http.ts
//       PostgreSQL: a superuser's connection to a server on this machine; each way gets a fresh
//       database of its own (evmon_bench_http_N, the URL's database name replaced), dropped after
//   BENCH_ARTICLES=30000 BENCH_BATCH=2000 BENCH_DAYS=300 BENCH_ENTITIES=5000
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { importArticles } from '../src/modules/corpus/article-import.js';
import { createRuntime } from '../src/runtime.js';
import { bareCopy } from './bare-copy.js';
import { bulkArticles, bulkEventTypes } from './bulk-articles.js';
import { freePort } from '../test/helpers/ports.js';
import { benchKeyEnv } from './encryption-key.js';
import { OPS_TOKEN, serverEnv, startServer, stopServer } from './servers.js';
import { insertEntities } from './subscribers.js';

const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 30_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 300);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 5_000);
const OUTLETS = 20;
const ROOT_DIR = path.join(os.tmpdir(), 'evmon-bench-bulk-http');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? '';

/** Where way `i` stores: a data folder, and on PostgreSQL a database of its own ('' for the embedded one). */
interface Store {
  dir: string;
  url: string;
}

/** Way `i`'s store, emptied: its folder removed, and its database made anew on PostgreSQL. */
async function freshStore(i: number): Promise<Store> {
  const dir = path.join(ROOT_DIR, String(i));
  fs.rmSync(dir, { recursive: true, force: true });
  if (!SERVER_URL) return { dir, url: '' };
  const url = new URL(SERVER_URL);
  url.pathname = `/evmon_bench_http_${i}`;
  await onServer(`DROP DATABASE IF EXISTS evmon_bench_http_${i}`, `CREATE DATABASE evmon_bench_http_${i}`);
  return { dir, url: url.toString() };
}

async function dropStore(i: number, store: Store): Promise<void> {
  fs.rmSync(store.dir, { recursive: true, force: true });
  if (store.url) await onServer(`DROP DATABASE IF EXISTS evmon_bench_http_${i}`);
}

/** Statements on the PostgreSQL server's own database, outside any transaction (CREATE DATABASE runs only there). */
async function onServer(...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

const runtimeOn = ({ dir, url }: Store) =>
  createRuntime(loadConfig({ EVMON_DATABASE_URL: url, ...benchKeyEnv(url), EVMON_DATA_DIR: dir, EVMON_SEED: 'none' }), pino({ level: 'warn' }));

/** A fresh store with the reference data the articles name; answers the articles' lines. */
async function prepare(store: Store): Promise<string[]> {
  const runtime = await runtimeOn(store);
  try {
    const outlets = [];
    for (let i = 0; i < OUTLETS; i++) outlets.push((await runtime.reference.createOutlet({ name: `Outlet ${i}` })).id);
    const types = await bulkEventTypes(runtime, 'bench_http', Date.now());
    const entities = await insertEntities(runtime.db, ENTITIES, runtime.clock.now());
    return bulkArticles({ articles: ARTICLES, outlets, types, entities, start: new Date(Date.now() - DAYS * 86_400_000), days: DAYS, seed: 48 }).lines;
  } finally {
    await runtime.close();
  }
}

const batchesOf = (lines: readonly string[]) => Array.from({ length: Math.ceil(lines.length / BATCH) }, (_, i) => lines.slice(i * BATCH, (i + 1) * BATCH));

/** Through a server process: batches posted with `inFlight` at once, then a drain; answers the seconds. */
async function overHttp({ dir, url }: Store, lines: readonly string[], inFlight: number): Promise<number> {
  const port = await freePort();
  const server = await startServer('src/main.ts', serverEnv(port, dir, url), port, '/readyz');
  const agent = new Agent({ connect: { rejectUnauthorized: false }, connections: inFlight, bodyTimeout: 0, headersTimeout: 0 });
  const post = async (url: string, body: string, contentType: string) => {
    const response = await request(`https://127.0.0.1:${port}/ops/v1${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': contentType, 'idempotency-key': randomUUID() },
      body,
      dispatcher: agent,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 500)}`);
    return text;
  };
  try {
    const started = performance.now();
    const queue = batchesOf(lines);
    const sender = async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        const answer = JSON.parse(await post('/articles/bulk', batch.join('\n'), 'application/x-ndjson'));
        if (answer.accepted + answer.existing !== batch.length) throw new Error(`a batch was refused in part: ${answer.refused} lines`);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, sender));
    await post('/drain', '{}', 'application/json');
    return (performance.now() - started) / 1000;
  } finally {
    await agent.close();
    await stopServer(server);
  }
}

/** In this process, as bench/ingest-bulk.ts loads (with the search index beside it when `withIndex`); answers the seconds. */
async function inProcess(store: Store, lines: readonly string[], withIndex: boolean): Promise<number> {
  const runtime = await runtimeOn(store);
  try {
    runtime.jobs.start();
    if (withIndex) await runtime.searchIndex.start();
    const started = performance.now();
    async function* each() {
      yield* lines;
    }
    const summary = await importArticles(runtime.events, each(), { batchSize: BATCH });
    if (summary.refused > 0) throw new Error(`${summary.refused} lines refused`);
    await runtime.jobs.drain();
    const took = (performance.now() - started) / 1000;
    await runtime.jobs.stop();
    return took;
  } finally {
    await runtime.close();
  }
}

/** The bare COPY of the rows a way stored (through `connections` at once); answers the seconds. */
async function bareCopyOf(store: Store, connections: number): Promise<number> {
  const runtime = await runtimeOn(store);
  try {
    const selections = new Map([
      ['events', 'SELECT * FROM events'],
      ['reports', 'SELECT * FROM reports'],
      ['event_participants', 'SELECT * FROM event_participants'],
    ]);
    return (await bareCopy(runtime.db, selections, connections)).reduce((sum, table) => sum + table.seconds, 0);
  } finally {
    await runtime.close();
  }
}

const ways: { name: string; run: (store: Store, lines: readonly string[]) => Promise<number> }[] = [
  { name: 'HTTP bulk from a client process, one batch at a time', run: (store, lines) => overHttp(store, lines, 1) },
  { name: 'HTTP bulk from a client process, two batches in flight', run: (store, lines) => overHttp(store, lines, 2) },
  { name: 'the loader in one process (bench/ingest-bulk.ts)', run: (store, lines) => inProcess(store, lines, false) },
  { name: 'the loader in one process, the search index in memory beside it', run: (store, lines) => inProcess(store, lines, true) },
];
const results: { name: string; seconds: number }[] = [];
try {
  for (const [i, way] of ways.entries()) {
    const store = await freshStore(i);
    const lines = await prepare(store);
    process.stderr.write(`${way.name}…\n`);
    results.push({ name: way.name, seconds: await way.run(store, lines) });
    if (i === 0) {
      // The floor, on the rows the first way stored.
      process.stderr.write('bare COPY…\n');
      results.push({ name: 'bare COPY of the rows stored, one connection', seconds: await bareCopyOf(store, 1) });
      if (store.url) results.push({ name: 'bare COPY of the rows stored, two connections at once', seconds: await bareCopyOf(store, 2) });
    }
    await dropStore(i, store);
  }
} finally {
  fs.rmSync(ROOT_DIR, { recursive: true, force: true });
}
const cpu = os.cpus();
console.log(
  `\nmachine: ${cpu.length} cores, Node ${process.version}; ${SERVER_URL ? 'PostgreSQL' : 'PGlite on disk'}; ${ARTICLES.toLocaleString('en')} articles, batches of ${BATCH}, ${DAYS} days, ${OUTLETS} outlets, ${ENTITIES} organizations, no subscribers`,
);
console.log('| way | seconds until drained | articles/s |');
console.log('| --- | --- | --- |');
for (const { name, seconds } of results) console.log(`| ${name} | ${seconds.toFixed(1)} | ${Math.round(ARTICLES / seconds).toLocaleString('en')} |`);
