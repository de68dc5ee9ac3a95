// What the HTTP throughput benchmarks share: server processes started and stopped, operator
// calls, an account whose budget never stops a run, and an autocannon load of one GET path.
// On a small machine the load generator and the servers compete for cores, so where
// `taskset` exists this process (the load generator) is pinned to CPU 0 and the servers to
// CPU 1; `pinned` says whether that happened.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { benchKeyEnv } from './encryption-key.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const OPS_TOKEN = 'bench-ops-token-0123456789';
export const pinned = spawnSync('taskset', ['-cp', '0', String(process.pid)]).status === 0 && os.cpus().length >= 2;

/**
 * An evmon server's environment for a benchmark: listening on `port` on the loopback, its data
 * in `dataDir`, on `databaseUrl` (with the benches' encryption key on PostgreSQL), no demo
 * corpus, no edge limit, the benches' operator token, and BENCH_LOG_LEVEL (warn).
 */
export function serverEnv(port: number, dataDir: string, databaseUrl: string): Record<string, string> {
  return {
    EVMON_PORT: String(port),
    EVMON_HOST: '127.0.0.1',
    EVMON_DATA_DIR: dataDir,
    EVMON_DATABASE_URL: databaseUrl,
    ...benchKeyEnv(databaseUrl),
    EVMON_OPS_TOKEN: OPS_TOKEN,
    EVMON_SEED: 'none',
    EVMON_EDGE_MAX_PER_MINUTE: '0',
    EVMON_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  };
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/** Starts `node --import tsx <script>` (on CPU 1 when pinned) and resolves once `readyPath` answers 200. */
export async function startServer(
  script: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  const command = [...nodeArgs, '--import', 'tsx', script];
  const child = spawn(pinned ? 'taskset' : process.execPath, pinned ? ['-c', '1', process.execPath, ...command] : command, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    // BENCH_SERVER_STDOUT=F keeps each server's standard output in F-<port> (what V8's
    // --trace-gc prints, given in BENCH_NODE_ARGS, say).
    stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? fs.openSync(`${process.env.BENCH_SERVER_STDOUT}-${port}`, 'w') : 'ignore', 'inherit'],
  });
  await waitReady(child, port, readyPath);
  return child;
}

/** Resolves once `readyPath` answers 200, polled every 100 ms up to `attempts` times; throws if the process exits first. */
export async function waitReady(child: ChildProcess, port: number, readyPath: string, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (child.exitCode !== null) throw new Error(`the server on port ${port} exited with ${child.exitCode}`);
    const status = await request(`https://127.0.0.1:${port}${readyPath}`, { dispatcher: insecure })
      .then(async (r) => {
        await r.body.dump();
        return r.statusCode;
      })
      .catch(() => 0);
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server on port ${port} did not become ready`);
}

export async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** `method` `url` with a bearer token (and, for POST, a fresh Idempotency-Key); the JSON answer, or throws unless 2xx. */
async function call(port: number, method: string, url: string, token: string, body: unknown) {
  const response = await request(`https://127.0.0.1:${port}${url}`, {
    method: method as never,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: insecure,
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${response.statusCode}: ${text}`);
  // biome-ignore lint/suspicious/noExplicitAny: a benchmark reads whichever members it needs
  return JSON.parse(text) as Record<string, any>;
}

/**
 * The seconds the evmon server at `port` has spent collecting garbage so far, by kind (minor,
 * major, incremental, weakcb), from its metrics (prom-client's nodejs_gc_duration_seconds).
 */
export async function gcSeconds(port: number): Promise<Record<string, number>> {
  const response = await request(`https://127.0.0.1:${port}/ops/v1/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` }, dispatcher: insecure });
  const text = await response.body.text();
  const seconds: Record<string, number> = {};
  for (const [, kind, value] of text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)$/gm)) seconds[kind!] = Number(value);
  return seconds;
}

/** An operator call. */
export const ops = (port: number, method: string, url: string, body: unknown) => call(port, method, url, OPS_TOKEN, body);

/** POST `body` to `url` with an API key. */
export const post = (port: number, url: string, key: string, body: unknown) => call(port, 'POST', url, key, body);

/** An API key with these scopes, of an account on a plan (`bench`) whose REST budget a run never spends. */
export async function benchKey(port: number, scopes: string[]): Promise<string> {
  const standard = (await ops(port, 'GET', '/ops/v1/plans', undefined)).data.find((p: { name: string }) => p.name === 'standard');
  const { object: _o, name: _n, ...fields } = standard;
  await ops(port, 'PUT', '/ops/v1/plans/bench', { ...fields, rest_requests_per_minute: 2_000_000_000 });
  const account = await ops(port, 'POST', '/ops/v1/accounts', { plan: 'bench' });
  return (await ops(port, 'POST', `/ops/v1/accounts/${account.id}/api-keys`, { name: 'bench', scopes })).key;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User and system CPU seconds of a process so far (null where /proc is missing). */
export function cpuSeconds(pid: number): { user: number; system: number } | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND }; // utime, stime (fields 14 and 15)
  } catch {
    return null;
  }
}

/**
 * GET `path` (or the path `path()` names, request by request) over HTTPS/1.1 keep-alive for `seconds` from `connections` connections. Given the
 * server's process, also its CPU microseconds per request (which other load on the machine
 * moves less than throughput).
 */
export async function load(
  port: number,
  path: string | (() => string),
  headers: Record<string, string>,
  { connections, seconds }: { connections: number; seconds: number },
  server?: ChildProcess,
) {
  const cpuBefore = server ? cpuSeconds(server.pid!) : null;
  // A path function names each request's path (a different event each time, say).
  const paths =
    typeof path === 'string'
      ? { url: `https://127.0.0.1:${port}${path}` }
      : { url: `https://127.0.0.1:${port}${path()}`, requests: [{ setupRequest: (request: object) => ({ ...request, path: path() }) }] };
  const result = await autocannon({ ...paths, connections, duration: seconds, headers });
  const cpuAfter = server ? cpuSeconds(server.pid!) : null;
  const non2xx = result.non2xx + result.errors;
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests.total;
  const spent = cpuBefore === null || cpuAfter === null ? null : { user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system };
  const cpuMicros = spent === null ? null : perRequest(spent.user + spent.system);
  // The kernel's share (the sockets, TLS records written): user-space profiles never see it.
  const systemMicros = spent === null ? null : perRequest(spent.system);
  return { rps: result.requests.average, requests: result.requests.total, p99: result.latency.p99, non2xx, cpuMicros, systemMicros };
}
