// Webhook deliveries, end to end: a server process (src/main.ts) with 10,000 sensors, a real
// HTTPS receiver in this process, articles ingested through the operator API.
//
//   1. Throughput: 400 sensors on one event type, 50 events of it ingested at once
//      (20,000 deliveries to one receiver host); deliveries per second from the first
//      arrival to the last. Goal: >= 2,000/s.
//   2. Latency: a steady 100 events/s for BENCH_SECONDS (default 30) over ten event types,
//      each event naming two entities of the 10,000 sensors' pool; for every `event.matched` that arrives, the time
//      from sending the ingest request to the arrival. Goal: p99 <= 200 ms.
//
// The load generator and receiver share this process; where `taskset` exists it is pinned to
// CPU 0 and the server to CPU 1 (the machine's two cores).
//
//   npx tsx bench/webhooks.ts                                          embedded database (PGlite)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/webhooks.ts         PostgreSQL (an empty schema)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { OPS_TOKEN, pinned, ROOT, serverEnv } from './servers.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_EVENTS_PER_SECOND ?? 100);
const SENSORS = Number(process.env.BENCH_SENSORS ?? 10_000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';
const PORT = 19543;
const CERT = path.join(ROOT, 'test/fixtures/webhook-receiver-cert.pem');

// The receiver: records when each delivery arrived, by event id and type.
const arrivals: { at: number; type: string; eventId: string }[] = [];
const receiver = https.createServer(
  { cert: fs.readFileSync(CERT), key: fs.readFileSync(path.join(ROOT, 'test/fixtures/webhook-receiver-key.pem')) },
  (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const at = performance.now();
      const parsed = JSON.parse(body);
      arrivals.push({ at, type: parsed.type, eventId: parsed.data.event?.id ?? parsed.data.event_id });
      res.writeHead(204).end();
    });
  },
);
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `https://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-webhooks-'));
const env = {
  ...serverEnv(PORT, dataDir, DATABASE_URL),
  EVMON_WEBHOOK_ALLOW_PRIVATE: '1',
  NODE_EXTRA_CA_CERTS: CERT,
};
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
const command = [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), '--import', 'tsx', 'src/main.ts'];
const server: ChildProcess = spawn(pinned ? 'taskset' : process.execPath, pinned ? ['-c', '1', process.execPath, ...command] : command, {
  cwd: ROOT,
  env: { ...process.env, ...env },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections: 64 });

// biome-ignore lint/suspicious/noExplicitAny: a benchmark reads whichever members it needs
async function call(method: string, url: string, body?: unknown, key = OPS_TOKEN): Promise<any> {
  const response = await request(`https://127.0.0.1:${PORT}${url}`, {
    method: method as never,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher,
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

for (let i = 0; ; i++) {
  if (server.exitCode !== null) throw new Error('the server exited');
  if (
    await call('GET', '/readyz').then(
      () => true,
      () => false,
    )
  )
    break;
  if (i > 600) throw new Error('the server did not become ready');
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Runs `work` over `items` with `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

// Set-up: a plan without a request budget to speak of, an account, a key, the corpus.
await call('PUT', '/ops/v1/plans/bench', {
  beats_max: 10,
  clauses_max: 100,
  default_spend_cap_credits: 1000,
  retention_days: 90,
  backfill_days: 7,
  search_credit_cost: 1,
  beat_entry_credit_cost: 1,
  rest_requests_per_minute: 10_000_000,
  mcp_requests_per_minute: 60,
  search_execution_retention_seconds: 86400,
  search_max_results: 1000,
});
const account = await call('POST', '/ops/v1/accounts', { plan: 'bench' });
const key = (await call('POST', `/ops/v1/accounts/${account.id}/api-keys`, { name: 'bench', scopes: ['SENSORS_READ', 'SENSORS_WRITE'] })).key as string;
const roles = [
  { code_name: 'party', name: 'Party', expected_type: 'NAMED_ENTITY' },
  { code_name: 'other', name: 'Other', expected_type: 'NAMED_ENTITY' },
];
const eventType = async (code: string) =>
  (await call('POST', '/ops/v1/event-types', { code_name: code, name: code, description: '', roles, sentence_template: '{party} and {other}' })).id as string;
const burstType = await eventType('bench_burst');
// Ingest takes a clustering lock per event type: a steady stream spreads over ten types, as a
// real one spreads over many.
const steadyTypes: string[] = [];
for (let i = 0; i < 10; i++) steadyTypes.push(await eventType(`bench_steady_${i}`));
const outlets: string[] = [];
for (let i = 0; i < 20; i++) outlets.push((await call('POST', '/ops/v1/outlets', { name: `Outlet ${i}` })).id);
const entities: string[] = Array.from({ length: SENSORS });
const setupStarted = performance.now();
await inParallel([...entities.keys()], 16, async (i) => (entities[i] = (await call('POST', '/ops/v1/entities', { name: `Entity ${i}` })).id));
const sensor = (filter: unknown) => call('POST', '/v1/sensors', { name: 'bench', filter, actions: [{ type: 'webhook', url: hookUrl }] }, key);
const BURST_SENSORS = 400;
await inParallel([...Array(SENSORS).keys()], 16, (i) =>
  i < BURST_SENSORS ? sensor({ event_type_id: burstType }) : sensor({ involved_entity_ids: [entities[i]] }),
);
console.log(
  `set-up: ${SENSORS} sensors (${BURST_SENSORS} on one type, the rest on one entity each) in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
);

// Each article opens an event of its own: happened_at dates a week apart are outside the
// clustering window of each other.
let articles = 0;
const article = (typeId: string, pair: [string, string]) =>
  call('POST', '/ops/v1/articles', {
    outlet_id: outlets[Math.floor(Math.random() * outlets.length)],
    event_type_id: typeId,
    happened_at: new Date(Date.UTC(1900, 0, 1) + articles++ * 7 * 86_400_000).toISOString().slice(0, 10),
    roles: [
      { role: 'party', entity_id: pair[0] },
      { role: 'other', entity_id: pair[1] },
    ],
  });
const randomIndex = () => Math.floor(Math.random() * SENSORS);
/** Entities from BURST_SENSORS on are watched, one sensor each. */
const watchedIn = (a: number, b: number) => new Set([a, b].filter((i) => i >= BURST_SENSORS)).size;

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

// 1. Throughput.
const BURST_EVENTS = 50;
arrivals.length = 0;
const unwatched = (await call('POST', '/ops/v1/entities', { name: 'Unwatched' })).id as string;
await inParallel([...Array(BURST_EVENTS).keys()], 8, () => article(burstType, [unwatched, unwatched]));
const expected = BURST_EVENTS * BURST_SENSORS;
const complete = await until(() => arrivals.length >= expected, 300_000);
const burst = arrivals.filter((a) => a.type === 'event.matched');
const span = (burst.at(-1)!.at - burst[0]!.at) / 1000;
const perSecond = burst.length / span;
console.log(`throughput: ${burst.length} of ${expected} deliveries in ${span.toFixed(2)} s: ${Math.round(perSecond)}/s${complete ? '' : ' (incomplete)'}`);

// 2. Latency at a steady rate.
arrivals.length = 0;
const sentAt = new Map<string, number>();
const pending: Promise<void>[] = [];
const ingestTimes: number[] = [];
const total = SECONDS * RATE;
const started = performance.now();
let late = 0;
let failed = 0;
let expectedDeliveries = 0;
for (let i = 0; i < total; i++) {
  const due = started + (i * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  else late++;
  const at = performance.now();
  const [a, b] = [randomIndex(), randomIndex()];
  pending.push(
    article(steadyTypes[i % steadyTypes.length]!, [entities[a]!, entities[b]!]).then(
      (report) => {
        expectedDeliveries += watchedIn(a, b);
        sentAt.set(report.incident_id, at);
        ingestTimes.push(performance.now() - at);
      },
      () => void failed++, // a server that cannot keep up refuses or times out
    ),
  );
}
await Promise.all(pending);
const ingestSeconds = (performance.now() - started) / 1000;
await until(() => arrivals.length >= expectedDeliveries, 60_000);
await new Promise((resolve) => setTimeout(resolve, 1000));
const latencies = arrivals.filter((a) => a.type === 'event.matched' && sentAt.has(a.eventId)).map((a) => a.at - sentAt.get(a.eventId)!);
console.log(
  `latency at ${RATE} events/s for ${ingestSeconds.toFixed(1)} s (${total} events, ${late} sent late, ${failed} ingest requests failed): ${latencies.length} deliveries, ` +
    `(${expectedDeliveries} expected), p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; ` +
    `the ingest requests alone: p50 ${percentile(ingestTimes, 50).toFixed(1)} ms, p99 ${percentile(ingestTimes, 99).toFixed(1)} ms`,
);

server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
receiver.closeAllConnections();
receiver.close();
await dispatcher.close();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, ${DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite'}${pinned ? ', pinned' : ''}`,
);
