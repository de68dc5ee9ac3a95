// GET /v1/events/{id} against a bare Fastify HTTPS route running the same read (the service's
// eventReads.get, bench/bare-server.ts with BENCH_ROUTE=event), side by side in one run, over
// a corpus already loaded (goal: ratio >= 0.90). Each request names one of BENCH_IDS events
// drawn at random from the live ones, so the reads spread over the corpus as a client's would.
// Servers on CPU 1, the load generator on CPU 0 (bench/servers.ts); alternating rounds, the
// result the median of the rounds' ratios.
//
//   BENCH_DATABASE_URL=postgres://…?options=-c%20search_path%3D<schema> EVMON_ENCRYPTION_KEY=… npx tsx bench/event-by-id.ts
//       PostgreSQL: the schema of a loaded corpus (evmon demo --events 1000000)
//   BENCH_CORPUS_DIR=/tmp/evmon-demo-100k npx tsx bench/event-by-id.ts
//       the embedded database: a data folder of a loaded corpus (the bare route reads a copy)
//   BENCH_SECONDS=10 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_IDS=10000
//   BENCH_SETTLE_SECONDS=120   wait after start for the search index build (a million events)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/open.js';
import { benchKeyEnv } from './encryption-key.js';
import { benchKey, load, pinned, serverEnv, startServer, stopServer } from './servers.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const IDS = Number(process.env.BENCH_IDS ?? 10_000);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 0);
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const CORPUS_DIR = process.env.BENCH_CORPUS_DIR;
if (!DATABASE_URL === !CORPUS_DIR) throw new Error('name a loaded corpus: BENCH_DATABASE_URL (PostgreSQL) or BENCH_CORPUS_DIR (an embedded data folder)');

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-event-'));
// The service's data folder: the corpus's own (embedded), or a fresh one (PostgreSQL: TLS only).
const serviceDir = CORPUS_DIR ?? path.join(runDir, 'service');
const databaseUrl = DATABASE_URL ?? '';
const bareDir = path.join(runDir, 'bare');
if (CORPUS_DIR) execFileSync('cp', ['-a', CORPUS_DIR, bareDir]); // one process per embedded folder

/** Live event ids, drawn at random (the bare copy holds the same ones). */
async function sampleIds(): Promise<string[]> {
  const config = loadConfig({
    ...(databaseUrl ? { EVMON_DATABASE_URL: databaseUrl } : {}),
    ...benchKeyEnv(databaseUrl),
    EVMON_DATA_DIR: CORPUS_DIR ? bareDir : serviceDir,
    EVMON_SEED: 'none',
  });
  const { db, close } = await openDatabase(config.database);
  try {
    const rows = await db.query<{ id: string }>(
      `SELECT id FROM events TABLESAMPLE SYSTEM (5) WHERE merged_into_event_id IS NULL AND deleted_at IS NULL LIMIT $1`,
      [IDS],
    );
    return rows.map((row) => row.id);
  } finally {
    await close();
  }
}
const ids = await sampleIds();
if (ids.length === 0) throw new Error('the corpus holds no live event');
let next = 0;
const nextPath = () => `/v1/events/${ids[next++ % ids.length]}`;

const evmonPort = 19447;
const barePort = 19448;
// On PostgreSQL an api process (no background work beside the reads); the embedded database has one process for both.
const evmon = await startServer(
  'src/main.ts',
  { ...serverEnv(evmonPort, serviceDir, databaseUrl), ...(DATABASE_URL ? { EVMON_ROLE: 'api' } : {}) },
  evmonPort,
  '/readyz',
);
const key = await benchKey(evmonPort, ['EVENTS_READ']);
const bare = await startServer(
  'bench/bare-server.ts',
  {
    BENCH_DATA_DIR: serviceDir,
    BENCH_PORT: String(barePort),
    BENCH_ROUTE: 'event',
    BENCH_DATABASE_URL: databaseUrl,
    BENCH_BARE_DATA_DIR: CORPUS_DIR ? bareDir : path.join(runDir, 'bare-tls'),
  },
  barePort,
  `/v1/events/${ids[0]}`,
);
// The service builds its search index in memory after start (a minute or two at a million
// events): reads measured meanwhile would share its core with the build.
await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
const auth = { authorization: `Bearer ${key}` };
const run = (port: number, headers: Record<string, string>, server: typeof evmon) =>
  load(port, nextPath, headers, { connections: CONNECTIONS, seconds: SECONDS }, server);
await run(evmonPort, auth, evmon); // warm-up, discarded
await run(barePort, {}, bare);
const rounds: { ours: Awaited<ReturnType<typeof run>>; baseline: Awaited<ReturnType<typeof run>> }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // The one that goes first alternates.
  const first = round % 2 === 0;
  const ours = first ? await run(evmonPort, auth, evmon) : null;
  const baseline = await run(barePort, {}, bare);
  rounds.push({ ours: ours ?? (await run(evmonPort, auth, evmon)), baseline });
}
await stopServer(evmon);
await stopServer(bare);

const storage = DATABASE_URL ? 'PostgreSQL' : 'PGlite';
console.log(
  `storage: ${storage}; ${ids.length} events drawn; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s, HTTPS/1.1 keep-alive; ${os.cpus().length} cores${pinned ? ', load on CPU 0, servers on CPU 1' : ''}`,
);
const cpu = (r: { cpuMicros: number | null }) => (r.cpuMicros === null ? 'n/a' : `${r.cpuMicros.toFixed(0)} µs`);
for (const [i, r] of rounds.entries()) {
  console.log(
    `round ${i + 1}: bare ${r.baseline.rps.toFixed(0)} req/s (p99 ${r.baseline.p99} ms, CPU ${cpu(r.baseline)}/request, non-2xx ${r.baseline.non2xx})   ` +
      `GET /v1/events/{id} ${r.ours.rps.toFixed(0)} req/s (p99 ${r.ours.p99} ms, CPU ${cpu(r.ours)}/request, non-2xx ${r.ours.non2xx})   ratio ${(r.ours.rps / r.baseline.rps).toFixed(2)}`,
  );
}
const ratios = rounds.map((r) => r.ours.rps / r.baseline.rps).sort((a, b) => a - b);
const middle = ratios.length / 2;
// An even number of rounds: the mean of the two middle ones.
const median = ratios.length % 2 === 1 ? ratios[Math.floor(middle)]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
console.log(`median ratio ${median.toFixed(2)} (goal >= 0.90)`);
fs.rmSync(runDir, { recursive: true, force: true });
