// What making the demo corpus's articles costs, without any database: the world (names,
// ids) and then every article of BENCH_EVENTS events, in batches as `evmon demo` loads them.
// Prints articles per second of generation and the process's peak resident memory.
//
//   npx tsx bench/demo-generation.ts                       1,000,000 events
//   BENCH_EVENTS=10000000 BENCH_SEED=42 npx tsx bench/demo-generation.ts
import { performance } from 'node:perf_hooks';
import { demoArticleBatches } from '../src/modules/demo/demo-articles.js';
import { DEMO_EVENT_TYPES } from '../src/modules/demo/demo-event-types.js';
import { buildWorld } from '../src/modules/demo/demo-world.js';
import { systemClock } from '../src/platform/clock.js';
import { idGenerator } from '../src/platform/ids.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000);

// The service's own ids (UUIDv7): what the world holds is what a real run holds.
const newId = idGenerator(systemClock());
const started = performance.now();
const world = buildWorld({
  events: EVENTS,
  seed: SEED,
  now: new Date(),
  newId,
  typeIds: new Map(DEMO_EVENT_TYPES.map((t) => [t.code_name, newId()])),
});
const worldSeconds = (performance.now() - started) / 1000;

const generating = performance.now();
const cpuBefore = process.cpuUsage();
let articles = 0;
let lastReport = generating;
for (const batch of demoArticleBatches(world, { events: EVENTS, seed: SEED, batchSize: BATCH })) {
  articles += batch.articles.length;
  if (performance.now() - lastReport > 10_000) {
    lastReport = performance.now();
    process.stderr.write(`${batch.eventsDone} / ${EVENTS} events, ${articles} articles\n`);
  }
}
const seconds = (performance.now() - generating) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const entities = Object.values(world.pools).reduce((n, p) => n + p.ids.length + p.aliasIds.length, 0);
process.stdout.write(
  `${JSON.stringify({
    events: EVENTS,
    entities,
    world_seconds: Math.round(worldSeconds * 10) / 10,
    articles,
    generation_seconds: Math.round(seconds * 10) / 10,
    articles_per_second: Math.round(articles / seconds),
    // On a machine others load too, CPU time says more than the clock.
    cpu_seconds: Math.round(cpuSeconds * 10) / 10,
    articles_per_cpu_second: Math.round(articles / cpuSeconds),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
