// Structured reporting over HTTPS, in one process (the server in-process, its background jobs
// running as in production):
//
//   1. Filing throughput: BENCH_REPORTS (default 4,000) reports, each with an Idempotency-Key,
//      sent by BENCH_CONCURRENCY (default 32) clients at once over 20 accounts; reports per
//      second from the first request to the last 201. Processing runs meanwhile.
//      Goal on PostgreSQL: >= 300 reports/s.
//   2. Filing to event: a steady BENCH_RATE (default 50) reports per second for BENCH_SECONDS
//      (default 20); for each, the time from sending it to its incident_id being set
//      (watched every 5 ms in the database). Goal on PostgreSQL: p99 <= 1 s.
//
// Each report names two of 2,000 entities, so some cluster into events of earlier ones.
// With BENCH_HOLD_PROCESSING=1, part 1 runs with background work stopped (filing alone), then
// times processing the backlog alone, and the run ends there.
//
//   npx tsx bench/reporting.ts                                   embedded database (memory)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/reporting.ts  PostgreSQL (an empty schema)
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';
import { dealEventType } from './fixtures.js';
import { benchKeyEnv } from './encryption-key.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 4_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ACCOUNTS = 20;

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-reporting`,
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const tls = await loadTls(config);
const app = await buildApp(runtime, tls);
await app.listen({ port: 0, host: '127.0.0.1' });
if (!process.env.BENCH_HOLD_PROCESSING) runtime.startBackground();
const base = `https://localhost:${(app.server.address() as { port: number }).port}`;
const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: CONCURRENCY });
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const rnd = (n: number) => Math.floor(Math.random() * n);

// Accounts on a plan whose REST budget never stops the run.
await runtime.accounts.putPlan('bench_reporting', {
  beats_max: 10,
  clauses_max: 100,
  default_spend_cap_credits: 1000,
  retention_days: 90,
  backfill_days: 7,
  search_credit_cost: 1,
  beat_entry_credit_cost: 1,
  rest_requests_per_minute: 1_000_000,
  mcp_requests_per_minute: 60,
  search_execution_retention_seconds: 86400,
  search_max_results: 1000,
});
const keys: string[] = [];
for (let i = 0; i < ACCOUNTS; i++) {
  const account = await runtime.accounts.createAccount({
    display_name: `Reporter ${i}`,
    plan: 'bench_reporting',
    entitlements: { structured_reporting: true },
  });
  keys.push((await runtime.accounts.createApiKey(account.id, { name: 'bench', scopes: ['REPORTS_READ', 'REPORTS_WRITE'] })).key!);
}
const type = await dealEventType(runtime);
const entities: string[] = [];
for (let i = 0; i < 2_000; i++) entities.push((await runtime.reference.createEntity({ name: `Company ${i}`, type: 'ORGANIZATION' })).id);

/** Files one report with a fresh Idempotency-Key; answers its id. */
async function file(): Promise<string> {
  const body = JSON.stringify({
    event_type_id: type.id,
    happened_at: new Date(Date.now() - rnd(3 * 86_400_000)).toISOString(),
    roles: [
      { role: 'buyer', entity_id: entities[rnd(entities.length)] },
      { role: 'seller', entity_id: entities[rnd(entities.length)] },
      { role: 'price', amount: { value: 1_000_000 + rnd(1_000_000), unit: 'USD' } },
    ],
  });
  const response = await request(`${base}/v1/reports`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${keys[rnd(keys.length)]}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 201) throw new Error(`filing answered ${response.statusCode}: ${text}`);
  return (JSON.parse(text) as { id: string }).id;
}

// 1. Throughput.
let sent = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (sent < REPORTS) {
      sent++;
      await file();
    }
  }),
);
const filingSeconds = (performance.now() - started) / 1000;
console.error(`filed ${REPORTS} in ${filingSeconds.toFixed(1)} s: ${Math.round(REPORTS / filingSeconds)} reports/s`);
if (process.env.BENCH_HOLD_PROCESSING) {
  const drainStart = performance.now();
  runtime.startBackground();
  await runtime.drain();
  console.error(
    `processed in ${((performance.now() - drainStart) / 1000).toFixed(1)} s: ${Math.round(REPORTS / ((performance.now() - drainStart) / 1000))} reports/s`,
  );
  process.exit(0);
}
await runtime.drain();
const processedSeconds = (performance.now() - started) / 1000;

// 2. Filing to event, at a steady rate.
const pending = new Map<string, number>(); // report id → when its request was sent
const latencies: number[] = [];
let watching = true;
const watcher = (async () => {
  while (watching || pending.size > 0) {
    const ids = [...pending.keys()];
    if (ids.length > 0) {
      const done = await db.query<{ id: string }>('SELECT id FROM structured_reports WHERE id = ANY($1::uuid[]) AND incident_id IS NOT NULL', [ids]);
      const at = performance.now();
      for (const { id } of done) {
        latencies.push(at - pending.get(id)!);
        pending.delete(id);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
})();
const inFlight: Promise<void>[] = [];
const steadyStart = performance.now();
for (let i = 0; i < RATE * SECONDS; i++) {
  const due = steadyStart + (i * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const sentAt = performance.now();
  inFlight.push(file().then((id) => void pending.set(id, sentAt)));
}
await Promise.all(inFlight);
watching = false;
await watcher;

const events = (await db.query<{ n: number }>('SELECT count(DISTINCT incident_id)::int AS n FROM structured_reports'))[0]!.n;
console.log(
  JSON.stringify(
    {
      database: config.database.kind,
      cpus: os.cpus().length,
      filing: {
        reports: REPORTS,
        concurrency: CONCURRENCY,
        reports_per_second: Math.round(REPORTS / filingSeconds),
        all_processed_per_second: Math.round(REPORTS / processedSeconds),
      },
      steady: {
        rate: RATE,
        reports: latencies.length,
        to_incident_ms: { p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), max: Math.round(Math.max(...latencies)) },
      },
      events,
    },
    null,
    2,
  ),
);
await app.close();
await runtime.close();
await agent.close();
