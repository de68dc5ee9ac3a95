// What ~1 MB bad request bodies cost the service, and what the other clients pay meanwhile.
// A body just under the 1 MiB limit, valid JSON but wrong for the route, passes every
// check that is about size and is refused only after it was parsed, walked and validated; a
// security probe sent such bodies (95,000 unknown fields). One evmon server (src/main.ts, its
// own process, no edge limit) takes, phase after phase, 7 clients that each POST one kind of
// bad body to /v1/sensors over and over (HTTPS/1.1 keep-alive, a key and a connection each, a
// fresh Idempotency-Key per request, on a plan whose REST budget never refuses):
//
//   unknown fields   {"k0":0,"k1":0,…}: 95,000 fields the schema does not know (1,033,891 bytes)
//   bad items        a filter's involved_entity_ids holding 100,000 numbers, not ids (~1 MB)
//   deep nesting     [[[[…]]]]: 500,000 levels (1,000,000 bytes)
//
// Each phase lasts BENCH_SECONDS (default 20) or BENCH_REQUESTS requests (default 20,000),
// whichever ends first, after a baseline phase with no load. Per phase: requests, answer
// statuses (and how many closed the connection), answer body sizes, mean latency as the
// clients see it; /healthz probed every 20 ms on a connection of its own from a worker thread
// (so the load's event loop does not delay the probe), its p50, p99 and max; the server's
// largest RSS (/proc/<pid>/status, every 100 ms) and CPU share; the first bytes of each
// phase's first answer.
//
//   node --import tsx bench/bad-bodies.ts                                   embedded database (memory)
//   node --import tsx bench/bad-bodies.ts --database postgres://…           PostgreSQL (an empty schema; or BENCH_DATABASE_URL)
//   BENCH_SECONDS=10 BENCH_BASELINE_SECONDS=5 BENCH_REQUESTS=5000 node --import tsx bench/bad-bodies.ts
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Agent, request } from 'undici';
import { cpuSeconds, ops, pinned, serverEnv, startServer, stopServer } from './servers.js';

const { values: args } = parseArgs({ options: { database: { type: 'string' } } });
const DATABASE_URL = args.database ?? process.env.BENCH_DATABASE_URL ?? 'memory://';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 10);
const MAX_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CLIENTS = 7;
const PROBE_EVERY_MS = 20;
const RSS_EVERY_MS = 100;
/** A request that takes longer than this counts as failed (and its phase ends no later). */
const TIMEOUT_MS = 30_000;
const PORT = 19447;
/** How much of a phase's first answer is printed. */
const SAMPLE_BYTES = 200;

/** {"k0":0,"k1":0,…}: `count` members, none of which the sensor schema knows. */
function unknownFields(count: number): Buffer {
  return Buffer.from(`{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`);
}

/** A sensor whose filter lists `count` numbers (9 digits each) where entity ids belong. */
function badItems(count: number): Buffer {
  const items = Array.from({ length: count }, (_, i) => 100_000_000 + i).join(',');
  return Buffer.from(`{"name":"x","filter":{"involved_entity_ids":[${items}]},"actions":[]}`);
}

/** [[[[…]]]]: arrays `levels` deep. */
function deepNesting(levels: number): Buffer {
  return Buffer.from(`${'['.repeat(levels)}${']'.repeat(levels)}`);
}

/** `count` API keys with SENSORS_WRITE, of one account on a plan whose REST budget a run never spends. */
async function sensorKeys(port: number, count: number): Promise<string[]> {
  const standard = (await ops(port, 'GET', '/ops/v1/plans', undefined)).data.find((p: { name: string }) => p.name === 'standard');
  const { object: _o, name: _n, ...fields } = standard;
  await ops(port, 'PUT', '/ops/v1/plans/bench_bad_bodies', { ...fields, rest_requests_per_minute: 2_000_000_000 });
  const account = await ops(port, 'POST', '/ops/v1/accounts', { plan: 'bench_bad_bodies' });
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    keys.push((await ops(port, 'POST', `/ops/v1/accounts/${account.id}/api-keys`, { name: `client ${i}`, scopes: ['SENSORS_WRITE'] })).key);
  }
  return keys;
}

/** What one phase's clients saw. */
interface Tally {
  requests: number;
  /** By status code, or by error code where no answer came. */
  statuses: Map<string, number>;
  answerBytes: number;
  answerMax: number;
  latencyMs: number;
  /** Answers that closed their connection (Connection: close). */
  closed: number;
  /** The first answer's status and first bytes, to show what the clients were told. */
  sample: string | null;
}

const newTally = (): Tally => ({ requests: 0, statuses: new Map(), answerBytes: 0, answerMax: 0, latencyMs: 0, closed: 0, sample: null });

function record(tally: Tally, status: string, bytes: number, ms: number, closed: boolean): void {
  tally.requests++;
  tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
  tally.answerBytes += bytes;
  tally.answerMax = Math.max(tally.answerMax, bytes);
  tally.latencyMs += ms;
  if (closed) tally.closed++;
}

/** One client: POSTs `body` with its key until the deadline or until the phase has sent MAX_REQUESTS. */
async function client(agent: Agent, key: string, body: Buffer, phase: { deadline: number; sent: number }, tally: Tally): Promise<void> {
  while (performance.now() < phase.deadline && phase.sent < MAX_REQUESTS) {
    phase.sent++;
    const started = performance.now();
    try {
      const response = await request(`https://127.0.0.1:${PORT}/v1/sensors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
        dispatcher: agent,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      let bytes = 0;
      for await (const chunk of response.body) {
        tally.sample ??= `${response.statusCode} ${(chunk as Buffer).subarray(0, SAMPLE_BYTES).toString('utf8')}`;
        bytes += (chunk as Buffer).length;
      }
      record(tally, String(response.statusCode), bytes, performance.now() - started, response.headers.connection === 'close');
    } catch (error) {
      record(tally, (error as { code?: string }).code ?? (error as Error).message, 0, performance.now() - started, false);
      await sleep(50); // a server gone must not make this a busy loop
    }
  }
}

/** The /healthz prober, plain JavaScript on a worker thread (Node 20 does not load TypeScript there). */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { performance } = require('node:perf_hooks');
const { port, ca, everyMs, timeoutMs } = workerData;
// On Linux a thread has a priority of its own: the prober's above the load clients' (which share
// its core), so that it measures the server's delay rather than its own wait for the core.
// Only root may raise a priority; elsewhere the prober runs as it is, and says so.
let raised = true;
try { require('node:os').setPriority(-10); } catch { raised = false; }
parentPort.postMessage({ raised });
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca, servername: 'localhost' });
let stopped = false;
parentPort.on('message', () => { stopped = true; agent.destroy(); parentPort.close(); });
function probe() {
  if (stopped) return;
  const started = performance.now();
  let done = false;
  const finish = (status) => {
    if (done) return;
    done = true;
    parentPort.postMessage({ at: performance.timeOrigin + started, ms: performance.now() - started, status });
    setTimeout(probe, Math.max(0, started + everyMs - performance.now()));
  };
  const req = https.get({ host: '127.0.0.1', port, path: '/healthz', agent, servername: 'localhost', timeout: timeoutMs }, (res) => {
    res.resume();
    res.on('end', () => finish(String(res.statusCode)));
    res.on('error', (e) => finish(e.code ?? e.message));
  });
  req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
  req.on('error', (e) => finish(e.code ?? e.message));
}
probe();
`;

interface Probe {
  /** When it was sent (milliseconds since the epoch). */
  at: number;
  ms: number;
  status: string;
}

/** Starts the prober; its probes accumulate in `probes` until `stop`. */
function startProber(ca: Buffer): { probes: Probe[]; stop: () => Promise<void> } {
  const probes: Probe[] = [];
  const worker = new Worker(PROBER, { eval: true, workerData: { port: PORT, ca: ca.toString(), everyMs: PROBE_EVERY_MS, timeoutMs: TIMEOUT_MS } });
  worker.on('message', (message: Probe | { raised: boolean }) => {
    if ('raised' in message) console.log(`prober thread priority raised above the load: ${message.raised ? 'yes' : 'no (not root)'}`);
    else probes.push(message);
  });
  return {
    probes,
    async stop() {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.postMessage('stop');
      await exited;
    },
  };
}

/** Kilobytes of the process's resident set, or null where /proc is missing. */
function rssKb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Samples the process's RSS every RSS_EVERY_MS; `stop` answers the largest seen (kB), or null. */
function sampleRss(pid: number): { stop: () => number | null } {
  let max: number | null = rssKb(pid);
  const timer = setInterval(() => {
    const kb = rssKb(pid);
    if (kb !== null) max = Math.max(max ?? 0, kb);
  }, RSS_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      return max;
    },
  };
}

const now = () => performance.timeOrigin + performance.now();
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface PhaseResult {
  name: string;
  bodyBytes: number | null;
  tally: Tally;
  seconds: number;
  probes: Probe[];
  rssMaxKb: number | null;
  cpuSeconds: number | null;
}

/** One phase: the clients POST `body` (none in the baseline) while the prober and the RSS sampler run. */
async function runPhase(
  name: string,
  body: Buffer | null,
  seconds: number,
  server: ChildProcess,
  clients: { agent: Agent; key: string }[],
  allProbes: Probe[],
): Promise<PhaseResult> {
  const tally = newTally();
  const rss = sampleRss(server.pid!);
  const cpuBefore = cpuSeconds(server.pid!);
  const start = now();
  if (body === null) await sleep(seconds * 1000);
  else {
    const phase = { deadline: performance.now() + seconds * 1000, sent: 0 };
    await Promise.all(clients.map(({ agent, key }) => client(agent, key, body, phase, tally)));
  }
  const end = now();
  const cpuAfter = cpuSeconds(server.pid!);
  const cpu = cpuBefore && cpuAfter ? cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system : null;
  const probes = allProbes.filter((p) => p.at >= start && p.at < end);
  return { name, bodyBytes: body?.length ?? null, tally, seconds: (end - start) / 1000, probes, rssMaxKb: rss.stop(), cpuSeconds: cpu };
}

const exited = (server: ChildProcess) => server.exitCode !== null || server.signalCode !== null;
const int = (n: number) => Math.round(n).toLocaleString('en');
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** One row of the table (markdown). */
function row(r: PhaseResult): string {
  const { tally } = r;
  const statuses = [...tally.statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status} ×${int(n)}`);
  const answers = tally.requests === 0 ? '-' : `${int(tally.answerBytes / tally.requests)} / ${int(tally.answerMax)}`;
  const latency = tally.requests === 0 ? '-' : ms(tally.latencyMs / tally.requests);
  const times = r.probes
    .filter((p) => p.status === '200')
    .map((p) => p.ms)
    .sort((a, b) => a - b);
  const failed = r.probes.length - times.length;
  const health = times.length === 0 ? 'none answered' : `${ms(percentile(times, 50))} / ${ms(percentile(times, 99))} / ${ms(times.at(-1)!)}`;
  const cpu = r.cpuSeconds === null ? 'n/a' : `${Math.round((r.cpuSeconds / r.seconds) * 100)} %`;
  return [
    r.name,
    r.bodyBytes === null ? '-' : int(r.bodyBytes),
    `${int(tally.requests)} (${(tally.requests / r.seconds).toFixed(1)}/s)`,
    statuses.join(', ') || '-',
    tally.closed === 0 ? '0' : int(tally.closed),
    answers,
    latency,
    `${health} (${int(r.probes.length)}${failed > 0 ? `, ${int(failed)} failed` : ''})`,
    r.rssMaxKb === null ? 'n/a' : `${int(r.rssMaxKb / 1024)} MiB`,
    cpu,
  ].join(' | ');
}

function printTable(results: PhaseResult[]): void {
  console.log(
    '\n| phase | body bytes | requests | statuses | conn. closed | answer bytes mean / max | latency mean | /healthz p50 / p99 / max (probes) | server RSS max | server CPU |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) console.log(`| ${row(r)} |`);
  console.log('\nfirst answer of each phase (its first bytes):');
  for (const r of results) if (r.tally.sample !== null) console.log(`${r.name}: ${r.tally.sample.replaceAll('\n', ' ')}`);
}

/** A key no account has: refused (401) before the body is read, which Node then reads and drops. */
const UNKNOWN_KEY = `evk_${'A'.repeat(43)}`;

// [name, body, the key to send instead of the client's own]. The floor phase is what receiving
// 1 MB over TLS costs with no JavaScript reading it: the least any refusal of such a body costs.
const phases: [string, Buffer, string?][] = [
  ['floor: 401, body not read', unknownFields(95_000), UNKNOWN_KEY],
  ['unknown fields', unknownFields(95_000)],
  ['bad items', badItems(100_000)],
  ['deep nesting', deepNesting(500_000)],
];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-'));
const results: PhaseResult[] = [];
let server: ChildProcess | null = null;
try {
  server = await startServer('src/main.ts', serverEnv(PORT, dataDir, DATABASE_URL), PORT, '/readyz');
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
  const keys = await sensorKeys(PORT, CLIENTS);
  const clients = keys.map((key) => ({ key, agent: new Agent({ connect: { ca, servername: 'localhost' }, connections: 1 }) }));
  const storage = DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite';
  console.log(
    `storage: ${storage}; ${CLIENTS} clients POST /v1/sensors, phases of ${SECONDS} s or ${int(MAX_REQUESTS)} requests, baseline ${BASELINE_SECONDS} s; /healthz every ${PROBE_EVERY_MS} ms; HTTPS/1.1 keep-alive; ${os.cpus().length} cores${pinned ? ', load on CPU 0, server on CPU 1' : ''}; ${process.version}`,
  );
  const prober = startProber(ca);
  results.push(await runPhase('baseline', null, BASELINE_SECONDS, server, clients, prober.probes));
  for (const [name, body, key] of phases) {
    if (exited(server)) break;
    const phaseClients = key === undefined ? clients : clients.map(({ agent }) => ({ agent, key }));
    const result = await runPhase(name, body, SECONDS, server, phaseClients, prober.probes);
    results.push(result);
    console.log(`${name}: ${int(result.tally.requests)} requests in ${result.seconds.toFixed(1)} s`);
  }
  await prober.stop();
  await Promise.all(clients.map(({ agent }) => agent.close()));
  printTable(results);
  if (exited(server)) console.log(`\nthe server exited (code ${server.exitCode}, signal ${server.signalCode})`);
} finally {
  if (server && !exited(server)) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
