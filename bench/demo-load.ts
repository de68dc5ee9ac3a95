// The demo corpus at scale (issue 24, "Demo"): `evmon demo`'s own generator and loader
// (generateDemoCorpus: articles about BENCH_EVENTS ground-truth events, through bulk ingest),
// timed, with the process's peak resident memory, the database's size after it, and the
// clustering's B-cubed precision and recall against the ground truth.
// Goals: 10 million events on PostgreSQL in <= 60 minutes, 1 million on PGlite in <= 10,
// peak RSS <= 2 GB; B-cubed precision >= 0.99, recall >= 0.97.
//
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/demo-load.ts        PostgreSQL (an empty schema)
//   npx tsx bench/demo-load.ts                                        embedded, on disk in BENCH_DATA_DIR
//   BENCH_EVENTS=1000000 BENCH_SEED=42 BENCH_BATCH=10000
//   BENCH_PROFILE=1        the costliest statements of the load
//
// Progress goes to standard error every 50,000 events, with the rate of that stretch, so a
// slowdown as the corpus grows shows.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { generateDemoCorpus } from '../src/modules/demo/demo-corpus.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';
import { profileStatements } from './statement-profile.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? '';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000); // as `evmon demo` writes them
const DATA_DIR = process.env.BENCH_DATA_DIR ?? `${os.tmpdir()}/evmon-bench-demo`;

const runtime = await createRuntime(
  loadConfig({ EVMON_DATABASE_URL: DATABASE_URL, ...benchKeyEnv(DATABASE_URL), EVMON_DATA_DIR: DATA_DIR, EVMON_SEED: 'none' }),
  pino({ level: 'warn' }),
);
const profile = process.env.BENCH_PROFILE === '1' ? profileStatements(runtime.db) : null;
profile?.start();
const started = performance.now();
let stretchStarted = started;
let stretchEvents = 0;
const summary = await generateDemoCorpus(runtime, {
  events: EVENTS,
  seed: SEED,
  batchSize: BATCH,
  progress: (done) => {
    if (done - stretchEvents < 50_000 && done < EVENTS) return;
    const now = performance.now();
    const rate = (done - stretchEvents) / ((now - stretchStarted) / 1000);
    process.stderr.write(
      `${done} events, ${Math.round((now - started) / 1000)} s, ${Math.round(rate)} events/s in the last stretch, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB\n`,
    );
    stretchEvents = done;
    stretchStarted = now;
  },
});
const size =
  runtime.db.kind === 'pglite'
    ? null
    : (await runtime.db.query<{ size: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS size'))[0]!.size;
process.stdout.write(
  `${JSON.stringify({
    ...summary,
    storage: runtime.db.kind,
    database_size: size,
    events_per_second: Math.round(EVENTS / summary.seconds),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  })}\n`,
);
if (profile) {
  const { statements, transactions } = profile.totals();
  process.stdout.write(`costliest statements: ${statements.toFixed(1)} s in statements, ${transactions.toFixed(1)} s in whole transactions\n`);
  process.stdout.write(`| total | calls | mean | statement |\n|---|---|---|---|\n${profile.top(15).join('\n')}\n`);
}
await runtime.close();
