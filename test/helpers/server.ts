// Test servers: started in this process on a real HTTPS port (fast), or spawned as a real
// `node src/main.ts` process (restart, crash, SIGTERM, two processes on one database).
// EVMON_TEST_DATABASE_URL selects PostgreSQL; otherwise the embedded database in memory.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './ports.js';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loggerOptions } from '../../src/platform/logger.js';
import { loadTls } from '../../src/platform/tls.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { bearer, httpClient, type HttpClient } from './http.js';
import { type Owner, spawnOwned, tempDir } from './processes.js';

export const OPS_TOKEN = 'test-ops-token-0123456789';
export const PG_URL = process.env.EVMON_TEST_DATABASE_URL ?? null;
export const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * On PostgreSQL, a schema of its own for the servers of one test (dropped by `drop`); on the
 * embedded database nothing (each server has its own). For tests of work any process may pick
 * up, such as webhook attempts, which servers of other test files sharing the schema would
 * otherwise claim.
 */
export async function isolatedDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (PG_URL === null) return { env: {}, drop: async () => {} };
  const schema = `evmon_t${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL! });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { env: { EVMON_DATABASE_URL: url.toString() }, drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}

export interface TestServer {
  http: HttpClient;
  ops: OpsClient;
  runtime: Runtime;
  docsUrl: string;
  ca: string;
  logs: string[];
  close(): Promise<void>;
}

export interface OpsClient {
  post(path: string, body?: unknown): Promise<any>;
  get(path: string): Promise<any>;
  createAccount(body?: Record<string, unknown>): Promise<any>;
  createKey(accountId: string, scopes: string[], name?: string): Promise<string>;
}

/**
 * The key of webhook signing secrets on PostgreSQL, which refuses to start without one: the
 * same for every process of every test file, since the files share a schema and a process
 * refuses secrets sealed under a key it lacks. Tests of other keys use a database of their own
 * (isolatedDatabase). The embedded database keeps its key file, or a key of its process.
 */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 'evmon-test-encryption-key').toString('base64');

/** `env` with the test key when it names PostgreSQL and no key (an empty EVMON_ENCRYPTION_KEY stays: "unset"). */
export function withTestKey(env: Record<string, string>): Record<string, string> {
  const onPostgres = /^postgres(ql)?:/.test(env.EVMON_DATABASE_URL ?? '');
  return onPostgres && env.EVMON_ENCRYPTION_KEY === undefined ? { ...env, EVMON_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY } : env;
}

function baseEnv(env: Record<string, string>): Record<string, string> {
  return withTestKey({
    EVMON_DATABASE_URL: PG_URL ?? 'memory://',
    EVMON_OPS_TOKEN: OPS_TOKEN,
    EVMON_SEED: 'none',
    EVMON_TEST_CLOCK: '1',
    // The test clock is frozen, so every request of a file would fall in one edge window;
    // the edge policy is tested on its own with a low threshold.
    EVMON_EDGE_MAX_PER_MINUTE: '0',
    EVMON_LOG_LEVEL: 'info',
    ...env,
  });
}

/**
 * Starts a server in this process. Its public base URL is the address it listens on (the one
 * tests and the browser call), so that console forms come from the console's own origin; a
 * test may name another with EVMON_PUBLIC_BASE_URL.
 */
export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(env, await freePort());
    } catch (error) {
      // Another process took the port between the probe and the listen: try another.
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 3) throw error;
    }
  }
}

/**
 * A server on a database of its own (isolatedDatabase): for tests of work any process may pick
 * up. Closing it drops its schema too.
 */
export async function startIsolatedServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = await isolatedDatabase();
  const server = await startServer({ ...database.env, ...env });
  return {
    ...server,
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

async function startServerOnce(env: Record<string, string>, port: number): Promise<TestServer> {
  const dataDir = env.EVMON_DATA_DIR ?? tempDir();
  const config = loadConfig({
    EVMON_DATA_DIR: dataDir,
    EVMON_PORT: String(port),
    EVMON_HOST: '127.0.0.1',
    EVMON_PUBLIC_BASE_URL: `https://127.0.0.1:${port}`,
    ...baseEnv(env),
  });
  // Logs are kept in memory so tests can check what they contain.
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = pino(loggerOptions(config.logLevel, config.opsToken === null ? [] : [config.opsToken]), sink);
  const runtime = await createRuntime(config, logger);
  const tls = await loadTls(config);
  const app = await buildApp(runtime, tls);
  try {
    await app.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    await app.close();
    await runtime.close();
    throw error;
  }
  runtime.startBackground();
  const http = httpClient(`https://127.0.0.1:${port}`, tls.cert);
  return {
    http,
    ops: opsClient(http),
    runtime,
    docsUrl: config.docsUrl,
    ca: tls.cert,
    logs,
    async close() {
      await http.close();
      await app.close();
      await runtime.close();
    },
  };
}

export function opsClient(http: HttpClient, token = OPS_TOKEN): OpsClient {
  const expectOk = async (promise: Promise<{ status: number; json: any; text: string }>) => {
    const response = await promise;
    if (response.status >= 300) throw new Error(`operator call failed: ${response.status} ${response.text}`);
    return response.json;
  };
  const ops: OpsClient = {
    post: (p, body) => expectOk(http.request('POST', `/ops/v1${p}`, { body: body ?? {}, headers: bearer(token) })),
    get: (p) => expectOk(http.request('GET', `/ops/v1${p}`, { headers: bearer(token) })),
    createAccount: (body = {}) => ops.post('/accounts', body),
    async createKey(accountId, scopes, name = 'test key') {
      return (await ops.post(`/accounts/${accountId}/api-keys`, { name, scopes })).key;
    },
  };
  return ops;
}

export interface SpawnedServer {
  child: ChildProcess;
  ca: string;
  http: HttpClient;
  ops: OpsClient;
  output: () => string;
  /** Resolves once the output matches; throws if the process exits or the time runs out first. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
  exited: Promise<number | null>;
  /** Signals the process (SIGTERM unless told), SIGKILL after a grace (STOP_GRACE_MS); the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

// Made once per run by scripts/run-tests.mjs: the compiled sources, and an embedded database
// already created and migrated. Without them (a test file run on its own by node --test),
// processes run the sources through tsx and create their own database.
const BUILD = process.env.EVMON_TEST_SERVER_BUILD ?? null;
const DATA_TEMPLATE = process.env.EVMON_TEST_DATA_TEMPLATE ?? null;

/** `node` arguments that run a program of the project: from the build when there is one. */
export function programArgs(source: 'src/main.ts' | 'src/cli/main.ts'): string[] {
  return BUILD ? [path.join(BUILD, source.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', source];
}

/**
 * For a process on the embedded database on disk (EVMON_DATABASE_URL empty) whose data folder
 * has no database yet: a copy of the migrated template, which takes a fraction of the seconds
 * creating one does. What the process does with it is the same as with a database it made.
 */
export function prepareDataDir(env: Record<string, string>): void {
  const database = path.join(env.EVMON_DATA_DIR!, 'pglite');
  if (DATA_TEMPLATE && env.EVMON_DATABASE_URL === '' && !fs.existsSync(database)) {
    fs.cpSync(path.join(DATA_TEMPLATE, 'pglite'), database, { recursive: true });
  }
}

/**
 * How long one server process may take to be ready. A start takes 2 to 5 s on an idle 2-core
 * machine; 6 to 23 s (median 14 s) with two busy processes beside the test run (which runs two
 * files at a time) on a machine already loaded by others, load average 7 to 13.
 */
export const SPAWN_BUDGET_MS = 60_000;

/**
 * How long one process run to its end may take (an `evmon` command, test/helpers/evmon.ts; a
 * script): load the build, open the database, one command. 5 to 19 s (median 12 s) on the busy
 * machine above, `evmon demo` the longest.
 */
export const RUN_BUDGET_MS = 40_000;

/**
 * A test's time limit: the server starts and process runs it waits for at their budgets, and
 * what else it waits for.
 */
export function timeLimit({ starts = 0, runs = 0, otherMs = 30_000 }: { starts?: number; runs?: number; otherMs?: number }): number {
  return starts * SPAWN_BUDGET_MS + runs * RUN_BUDGET_MS + otherMs;
}

/**
 * Starts the server (`src/main.ts`) as a process that ends with `owner` (test/helpers/processes.ts)
 * and resolves once /readyz answers 200. The server listens on a port of the system's choosing
 * (EVMON_PORT=0) and names it in its "ready" log line, so parallel tests never race for a port.
 */
export async function spawnServer(
  owner: Owner,
  env: Record<string, string>,
  options: {
    expectFailure?: boolean;
    /** Hears the whole output so far at each new piece of it, while the process starts and after. */
    onOutput?: (output: string) => void;
  } = {},
): Promise<SpawnedServer> {
  const dataDir = env.EVMON_DATA_DIR ?? tempDir();
  const merged = baseEnv({ EVMON_DATA_DIR: dataDir, EVMON_PORT: '0', EVMON_HOST: '127.0.0.1', ...env });
  prepareDataDir(merged);
  const proc = spawnOwned(owner, process.execPath, programArgs('src/main.ts'), {
    cwd: ROOT,
    env: { ...process.env, ...merged },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { child, exited } = proc;
  let out = '';
  const heard = (piece: Buffer) => {
    out += piece;
    options.onOutput?.(out);
  };
  child.stdout!.on('data', heard);
  child.stderr!.on('data', heard);
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const certPath = path.join(dataDir, 'tls', 'cert.pem');
  let client: HttpClient | null = null;
  const deadline = Date.now() + SPAWN_BUDGET_MS;
  while (Date.now() < deadline && exitCode === undefined) {
    const port = /"port":(\d+)[^\n]*"msg":"ready"/.exec(out)?.[1];
    if (port && fs.existsSync(certPath)) {
      client ??= httpClient(`https://127.0.0.1:${port}`, fs.readFileSync(certPath, 'utf8'));
      const ready = await client.get('/readyz').catch(() => null);
      if (ready?.status === 200) break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exitCode !== undefined && !options.expectFailure) throw new Error(`server exited with ${exitCode}:\n${out}`);
  if (exitCode === undefined && !client) {
    await proc.stop('SIGKILL');
    throw new Error(`server did not start within ${SPAWN_BUDGET_MS} ms:\n${out}`);
  }
  const http = client ?? httpClient('https://127.0.0.1:1', '');
  let clientClosed = false;
  return {
    child,
    ca: fs.existsSync(certPath) ? fs.readFileSync(certPath, 'utf8') : '',
    http,
    ops: opsClient(http),
    output: () => out,
    async waitForOutput(pattern: RegExp, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(out)) {
        if (exitCode !== undefined || Date.now() > deadline)
          throw new Error(`${pattern} not in the output${exitCode !== undefined ? ` (exited ${exitCode})` : ''}:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    exited,
    /** Stops the process (if still running) and the client; calling it again is harmless. */
    async stop(signal = 'SIGTERM') {
      const code = await proc.stop(signal);
      if (!clientClosed) {
        clientClosed = true;
        await http.close();
      }
      return code;
    },
  };
}

/** Starts several servers; if one fails to start, the ones already started are stopped. */
export async function spawnServers(owner: Owner, count: number, env: Record<string, string>): Promise<SpawnedServer[]> {
  const started: SpawnedServer[] = [];
  try {
    for (let i = 0; i < count; i++) started.push(await spawnServer(owner, env));
    return started;
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    throw error;
  }
}

export { bearer, tempDir };
