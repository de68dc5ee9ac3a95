// Authenticated GET /v1/sensors against a bare Fastify HTTPS route returning the same JSON,
// measured side by side in one run (goal: ratio >= 0.6). Each server runs in its own process
// while autocannon, in this process, drives it over HTTPS/1.1 keep-alive. On a small machine
// the two compete for cores, so where `taskset` exists the load generator is pinned to CPU 0
// and the server to CPU 1, and the two servers are measured in alternating rounds; the
// result is the median of the rounds' ratios.
//
//   npm run bench                                          embedded database (PGlite)
//   BENCH_DATABASE_URL=postgres://… npm run bench          PostgreSQL
//   BENCH_SECONDS=20 BENCH_CONNECTIONS=50 npm run bench
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchKeyEnv } from './encryption-key.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const pinned = spawnSync('taskset', ['-cp', '0', String(process.pid)]).status === 0 && os.cpus().length >= 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';
const OPS_TOKEN = 'bench-ops-token-0123456789';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-'));

async function start(script: string, env: Record<string, string>, port: number, readyPath: string): Promise<ChildProcess> {
  const nodeArgs = script === 'src/main.ts' && process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const command = [...nodeArgs, '--import', 'tsx', script];
  const child = spawn(pinned ? 'taskset' : process.execPath, pinned ? ['-c', '1', process.execPath, ...command] : command, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const { request, Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const status = await request(`https://127.0.0.1:${port}${readyPath}`, { dispatcher })
      .then(async (r) => {
        await r.body.dump();
        return r.statusCode;
      })
      .catch(() => 0);
    if (status === 200) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${script} did not become ready`);
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function ops(port: number, method: string, url: string, body: unknown) {
  const { request, Agent } = await import('undici');
  const response = await request(`https://127.0.0.1:${port}${url}`, {
    method: method as never,
    headers: { authorization: `Bearer ${OPS_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: new Agent({ connect: { rejectUnauthorized: false } }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a benchmark reads whichever members it needs
  const json = (await response.body.json()) as Record<string, any>;
  if (response.statusCode >= 300) throw new Error(JSON.stringify(json));
  return json;
}

async function load(port: number, headers: Record<string, string>) {
  const result = await autocannon({ url: `https://127.0.0.1:${port}/v1/sensors`, connections: CONNECTIONS, duration: SECONDS, headers });
  const non2xx = result.non2xx + result.errors;
  return { rps: result.requests.average, p99: result.latency.p99, non2xx };
}

const evmonPort = 19443;
const barePort = 19444;
const evmon = await start(
  'src/main.ts',
  {
    EVMON_PORT: String(evmonPort),
    EVMON_HOST: '127.0.0.1',
    EVMON_DATA_DIR: dataDir,
    EVMON_DATABASE_URL: DATABASE_URL,
    ...benchKeyEnv(DATABASE_URL),
    EVMON_OPS_TOKEN: OPS_TOKEN,
    EVMON_SEED: 'none',
    EVMON_EDGE_MAX_PER_MINUTE: '0',
    EVMON_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  },
  evmonPort,
  '/readyz',
);
const standard = (await ops(evmonPort, 'GET', '/ops/v1/plans', undefined)).data.find((p: { name: string }) => p.name === 'standard');
const { object: _o, name: _n, ...fields } = standard;
await ops(evmonPort, 'PUT', '/ops/v1/plans/bench', { ...fields, rest_requests_per_minute: 2_000_000_000 });
const account = await ops(evmonPort, 'POST', '/ops/v1/accounts', { plan: 'bench' });
const key = (await ops(evmonPort, 'POST', `/ops/v1/accounts/${account.id}/api-keys`, { name: 'bench', scopes: ['SENSORS_READ'] })).key;

const bare = await start('bench/bare-server.ts', { BENCH_DATA_DIR: dataDir, BENCH_PORT: String(barePort) }, barePort, '/v1/sensors');
// Both servers stay up; only the one being measured receives traffic.
const auth = { authorization: `Bearer ${key}` };
await load(evmonPort, auth); // warm-up, discarded
await load(barePort, {});
const rounds: { ours: Awaited<ReturnType<typeof load>>; baseline: Awaited<ReturnType<typeof load>> }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const ours = await load(evmonPort, auth);
  const baseline = await load(barePort, {});
  rounds.push({ ours, baseline });
}
await stop(evmon);
await stop(bare);

const storage = DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite';
const ratios = rounds.map((r) => r.ours.rps / r.baseline.rps).sort((a, b) => a - b);
const median = ratios[Math.floor(ratios.length / 2)]!;
console.log(
  `storage: ${storage}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, HTTPS/1.1 keep-alive; ${os.cpus().length} cores${pinned ? ', load on CPU 0, servers on CPU 1' : ''}`,
);
for (const [i, r] of rounds.entries()) {
  console.log(
    `round ${i + 1}: bare Fastify ${r.baseline.rps.toFixed(0).padStart(6)} req/s (p99 ${r.baseline.p99} ms)   GET /v1/sensors ${r.ours.rps.toFixed(0).padStart(6)} req/s (p99 ${r.ours.p99} ms, non-2xx ${r.ours.non2xx})   ratio ${(r.ours.rps / r.baseline.rps).toFixed(2)}`,
  );
}
console.log(`median ratio ${median.toFixed(2)} (goal >= 0.6)`);
fs.rmSync(dataDir, { recursive: true, force: true });
