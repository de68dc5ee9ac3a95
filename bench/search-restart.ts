// The first searches after a restart, as a client sees them. The server is a process of its
// own (src/main.ts, as `npm start` runs it), started on the corpus and probed on /readyz
// until it answers (as a load balancer does before it sends a server traffic); then the
// widest searches a new user sends first, on a new connection: no filter over 365 days, a
// type over 365 days, then the first again. BENCH_RESTARTS times (default 3).
// Goal (search issue): the first search after a restart ≤ 100 ms at a million events.
//
// The corpus and its saved index are bench/search.ts's (run it once first, see its top):
//   BENCH_DATA_DIR=/tmp/evbench/pglite-data npx tsx bench/search-restart.ts
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/search-restart.ts
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';
import { searchKey, typeIds, widestSearches } from './search-mix.js';
import { pinned, startServer, stopServer } from './servers.js';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 3);
const env = {
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: process.env.BENCH_DATA_DIR ?? '/tmp/evbench/pglite-data',
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
  EVMON_LOG_LEVEL: 'warn',
};

// The key and the searches, made before the server starts (then this process lets go of the data folder).
const config = loadConfig(env);
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const key = await searchKey(runtime);
const searches = widestSearches(await typeIds(runtime));
const eventCount = (await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;
await runtime.close();
const tls = await loadTls(config);

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(
  `${config.database.kind}, ${eventCount.toLocaleString('en')} events, ${RESTARTS} restarts, ${new Date().toISOString()}${pinned ? ' (server on CPU 1, this process on CPU 0)' : ''}\n`,
);
console.log(`| restart | ready after | ${searches.map((s) => s.name).join(' | ')} | ${searches[0]!.name}, again |`);
console.log(`|---|---|${searches.map(() => '---|').join('')}---|`);
for (let restart = 1; restart <= RESTARTS; restart++) {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const server = await startServer('src/main.ts', { ...env, EVMON_PORT: String(port), EVMON_HOST: '127.0.0.1' }, port, '/readyz');
  const readyMs = performance.now() - started;
  const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 1 });
  const times: number[] = [];
  for (const { body } of [...searches, searches[0]!]) {
    const sent = performance.now();
    const response = await request(`https://127.0.0.1:${port}/v1/events/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`search answered ${response.statusCode}: ${text}`);
    times.push(performance.now() - sent);
  }
  await agent.close();
  await stopServer(server);
  console.log(`| ${restart} | ${(readyMs / 1000).toFixed(1)} s | ${times.map(fmt).join(' | ')} |`);
}
