// What the request metrics cost a REST read: authenticated GET /v1/sensors (a key look-up,
// budget, scope, and the account's sensors read from the database) on two servers that
// differ only in the request metrics (bench/evmon-server.ts, on and off), measured in
// alternating rounds in one run (goal: with metrics within 3 % of without). The server that
// goes first alternates from round to round; the result is the median of the rounds' ratios.
// Servers on CPU 1, the load generator on CPU 0 (bench/servers.ts). On a machine others load
// too, throughput swings by more than the 3 % sought; so each round also reads the server's
// CPU time (Linux /proc) and prints CPU microseconds per request, which contention moves less;
// and, first, the cost of observing one request is timed in this process alone.
//
//   npx tsx bench/metrics-overhead.ts                                  embedded database, each server its own in memory
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/metrics-overhead.ts  PostgreSQL, one database for both
//   BENCH_SECONDS=5 BENCH_ROUNDS=6 BENCH_CONNECTIONS=50
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { serviceMetrics } from '../src/platform/metrics.js';
import { benchKey, load, pinned, serverEnv, startServer, stopServer } from './servers.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';

async function server(port: number, metrics: boolean) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-'));
  const env = {
    ...serverEnv(port, dataDir, DATABASE_URL),
    BENCH_REQUEST_METRICS: metrics ? '1' : '0',
  };
  const child = await startServer('bench/evmon-server.ts', env, port, '/readyz');
  const headers = { authorization: `Bearer ${await benchKey(port, ['SENSORS_READ'])}` };
  return {
    async run() {
      return load(port, '/v1/sensors', headers, { connections: CONNECTIONS, seconds: SECONDS }, child);
    },
    async stop() {
      await stopServer(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Nanoseconds per observed request, over a mix of a few label sets as a server sees them. */
function observeCost(): number {
  const idle = { poolUse: () => ({ total: 1, idle: 1, waiting: 0 }) };
  const metrics = serviceMetrics({ jobs: async () => [], deliveries: async () => ({ due: 0, scheduled: 0, oldestDueSeconds: 0 }), pools: { main: idle } });
  const routes = ['/v1/sensors', '/v1/sensors/:id', '/v1/events/search', '/v1/beats/:id/entries'];
  const calls = 2_000_000;
  const start = performance.now();
  for (let i = 0; i < calls; i++) metrics.request('GET', routes[i & 3]!, i % 7 === 0 ? 404 : 200, 0.0042);
  return ((performance.now() - start) * 1e6) / calls;
}
observeCost(); // warm-up
const observeNs = Math.min(observeCost(), observeCost(), observeCost());

// Both servers stay up; only the one being measured receives traffic.
const on = await server(19445, true);
const off = await server(19446, false);
await on.run(); // warm-up, discarded
await off.run();
const rounds: { on: Awaited<ReturnType<typeof on.run>>; off: Awaited<ReturnType<typeof off.run>> }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    const first = await on.run();
    rounds.push({ on: first, off: await off.run() });
  } else {
    const first = await off.run();
    rounds.push({ off: first, on: await on.run() });
  }
}
await on.stop();
await off.stop();

const storage = DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite';
const ratios = rounds.map((r) => r.on.rps / r.off.rps);
const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.floor(sorted.length / 2)]!) / 2;
};
const median = medianOf(ratios);
const cpu = (r: { cpuMicros: number | null }) => (r.cpuMicros === null ? 'n/a' : `${r.cpuMicros.toFixed(0)} µs`);
console.log(
  `storage: ${storage}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, HTTPS/1.1 keep-alive; ${os.cpus().length} cores${pinned ? ', load on CPU 0, servers on CPU 1' : ''}`,
);
for (const [i, r] of rounds.entries()) {
  console.log(
    `round ${i + 1} (${i % 2 === 0 ? 'on first' : 'off first'}): metrics off ${r.off.rps.toFixed(0).padStart(6)} req/s (p99 ${r.off.p99} ms, CPU ${cpu(r.off)}/request, non-2xx ${r.off.non2xx})   metrics on ${r.on.rps.toFixed(0).padStart(6)} req/s (p99 ${r.on.p99} ms, CPU ${cpu(r.on)}/request, non-2xx ${r.on.non2xx})   ratio ${(r.on.rps / r.off.rps).toFixed(3)}`,
  );
}
console.log(`observing one request (the onResponse hook's work): ${observeNs.toFixed(0)} ns, in this process alone`);
console.log(`median throughput ratio, on / off: ${median.toFixed(3)} (goal >= 0.97)`);
if (rounds.every((r) => r.on.cpuMicros !== null && r.off.cpuMicros !== null)) {
  const cpuRatio = medianOf(rounds.map((r) => r.on.cpuMicros! / r.off.cpuMicros!));
  console.log(`median CPU per request ratio, on / off: ${cpuRatio.toFixed(3)} (1.03 would be the 3 % sought)`);
}
