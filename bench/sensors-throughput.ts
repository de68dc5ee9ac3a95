// Authenticated GET /v1/sensors against a bare Fastify HTTPS route running the same query,
// measured side by side in one run: the cost of everything the service adds to a request
// (the guard, budgets, hooks, validation, serialization, logging). Both list an account's 5
// sensors from the same kind of database (goal: ratio >= 0.90). BENCH_BARE=constant compares
// against a constant empty list instead (the 2026-11-22 measure: the guard over a stub, goal
// 0.6). Each server runs in its own process
// while autocannon, in this process, drives it over HTTPS/1.1 keep-alive. On a small machine
// the two compete for cores, so where `taskset` exists the load generator is pinned to CPU 0
// and the server to CPU 1, and the two servers are measured in alternating rounds; the
// result is the median of the rounds' ratios.
//
//   npm run bench                                          embedded database (PGlite)
//   BENCH_DATABASE_URL=postgres://… npm run bench          PostgreSQL
//   BENCH_SECONDS=20 BENCH_CONNECTIONS=50 BENCH_SENSORS=5 npm run bench
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchKey, gcSeconds, load as loadPath, pinned, post, serverEnv, startServer as start, stopServer as stop } from './servers.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';
const SENSORS = Number(process.env.BENCH_SENSORS ?? 5);
const sameQuery = process.env.BENCH_BARE !== 'constant';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-'));
const load = (port: number, headers: Record<string, string>, server: ChildProcess) =>
  loadPath(port, '/v1/sensors', headers, { connections: CONNECTIONS, seconds: SECONDS }, server);

/** Node options for both servers (say, --cpu-prof), so that they stay comparable. */
const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
const evmonPort = 19443;
const barePort = 19444;
const evmon = await start('src/main.ts', serverEnv(evmonPort, dataDir, DATABASE_URL), evmonPort, '/readyz', nodeArgs);
const key = await benchKey(evmonPort, ['SENSORS_READ', 'SENSORS_WRITE']);
for (let i = 0; i < (sameQuery ? SENSORS : 0); i++) {
  await post(evmonPort, '/v1/sensors', key, {
    name: `sensor ${i}`,
    filter: { required_source_news_outlet_ids: [randomUUID()] },
    actions: [{ type: 'webhook', url: `https://example.com/hooks/${i}` }],
  });
}

const bare = await start(
  'bench/bare-server.ts',
  { BENCH_DATA_DIR: dataDir, BENCH_PORT: String(barePort), ...(sameQuery ? { BENCH_DATABASE_URL: DATABASE_URL, BENCH_SENSORS: String(SENSORS) } : {}) },
  barePort,
  '/v1/sensors',
  nodeArgs,
);
// Both servers stay up; only the one being measured receives traffic.
const auth = { authorization: `Bearer ${key}` };
await load(evmonPort, auth, evmon); // warm-up, discarded
await load(barePort, {}, bare);
const rounds: { ours: Awaited<ReturnType<typeof load>>; baseline: Awaited<ReturnType<typeof load>>; gc: string }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const gcBefore = await gcSeconds(evmonPort);
  const ours = await load(evmonPort, auth, evmon);
  const gcAfter = await gcSeconds(evmonPort);
  const baseline = await load(barePort, {}, bare);
  // The service's garbage collection per request, by kind (its metrics; the bare route has none).
  const gc = Object.keys(gcAfter)
    .map((kind) => `${kind} ${(((gcAfter[kind]! - (gcBefore[kind] ?? 0)) * 1e6) / ours.requests).toFixed(1)}`)
    .join(', ');
  rounds.push({ ours, baseline, gc });
}
await stop(evmon);
await stop(bare);

const storage = DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite';
const ratios = rounds.map((r) => r.ours.rps / r.baseline.rps).sort((a, b) => a - b);
const median = ratios[Math.floor(ratios.length / 2)]!;
console.log(
  `storage: ${storage}; bare route: ${sameQuery ? `the same query (${SENSORS} sensors)` : 'constant JSON'}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, HTTPS/1.1 keep-alive; ${os.cpus().length} cores${pinned ? ', load on CPU 0, servers on CPU 1' : ''}`,
);
const cpu = (r: { cpuMicros: number | null; systemMicros: number | null }) =>
  r.cpuMicros === null ? 'n/a' : `${r.cpuMicros.toFixed(0)} µs (system ${r.systemMicros!.toFixed(0)})`;
for (const [i, r] of rounds.entries()) {
  console.log(
    `round ${i + 1}: bare Fastify ${r.baseline.rps.toFixed(0).padStart(6)} req/s (p99 ${r.baseline.p99} ms, CPU ${cpu(r.baseline)}/request)   GET /v1/sensors ${r.ours.rps.toFixed(0).padStart(6)} req/s (p99 ${r.ours.p99} ms, CPU ${cpu(r.ours)}/request, GC µs/request: ${r.gc}, non-2xx ${r.ours.non2xx})   ratio ${(r.ours.rps / r.baseline.rps).toFixed(2)}`,
  );
}
if (rounds.every((r) => r.ours.cpuMicros !== null && r.baseline.cpuMicros !== null)) {
  const cpuRatios = rounds.map((r) => r.baseline.cpuMicros! / r.ours.cpuMicros!).sort((a, b) => a - b);
  console.log(`median CPU per request ratio, bare / ours: ${cpuRatios[Math.floor(cpuRatios.length / 2)]!.toFixed(2)}`);
}
console.log(`median ratio ${median.toFixed(2)} (goal >= ${sameQuery ? '0.90' : '0.6'})`);
fs.rmSync(dataDir, { recursive: true, force: true });
