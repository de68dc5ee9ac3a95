// Continuation pages (a search's pages after its first) on a loaded corpus,
// two ways side by side in one run, per case of the search mix:
//   index:  the way the service reads them, the search index's candidates checked in SQL by id;
//   SQL:    the SQL face alone, as it runs where the index cannot answer (while it is built).
// (Until migration 031 made event_role_values a view, a third way timed the SQL face on the
// covering indexes it had before migrations 027 and 029: bench/RESULTS.md keeps its figures.)
// Each page is the 20 events after the 20th newest match, cut off at the reports received now.
// Printed: p50 and p99 per case and way, in ms.
//
//   BENCH_DATABASE_URL=postgres://…?options=-c%20search_path%3D<schema> npx tsx bench/continuations.ts
//   BENCH_DATA_DIR=<EVMON_DATA_DIR of a loaded corpus> npx tsx bench/continuations.ts
//   BENCH_ROUNDS=50
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { receivedUpTo } from '../src/modules/corpus/event-view.js';
import { type CandidateSource, filteredEvents } from '../src/modules/filters/filtered-events.js';
import { normalizeFilter } from '../src/modules/filters/filter.js';
import { DAY_MS } from '../src/platform/clock.js';
import { createRuntime } from '../src/runtime.js';
import { corpusConfig } from './corpus-config.js';
import { searchMix, typeIds } from './search-mix.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const PAGE = 20;

const config = corpusConfig();
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const built = performance.now();
await runtime.searchIndex.start();
await runtime.searchIndex.built();
console.log(`search index ready in ${((performance.now() - built) / 1000).toFixed(1)} s`);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const cases = (await searchMix(runtime, await typeIds(runtime))).filter((c) => !c.name.startsWith('no filter, 365'));
const countedUpTo = await receivedUpTo(db);
const now = Date.now();

type Way = 'index' | 'SQL';
const timings = new Map<string, Record<Way, number[]>>();
async function timeWay(way: Way) {
  for (const { name, body } of cases) {
    const filter = normalizeFilter(body as Parameters<typeof normalizeFilter>[0]);
    const windowStart = new Date(now - (body.lookback_days as number) * DAY_MS);
    const source: CandidateSource | undefined = way === 'index' ? runtime.searchIndex : undefined;
    const events = await filteredEvents(db, [filter], { countedUpTo, windowStart }, source);
    const [after] = (await events.page('newest-first', null, PAGE)).slice(-1);
    const times = timings.get(name) ?? timings.set(name, { index: [], SQL: [] }).get(name)!;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      await events.page('newest-first', after ?? null, PAGE);
      times[way].push(performance.now() - started);
    }
  }
}

await timeWay('index');
await timeWay('SQL');

console.log(`\ncontinuation pages (${PAGE} events after the ${PAGE}th), ${ROUNDS} rounds; p50 / p99 in ms`);
console.log('| case | index (the service) | SQL face alone |');
console.log('| --- | --- | --- |');
const cell = (values: number[]) => `${percentile(values, 0.5).toFixed(2)} / ${percentile(values, 0.99).toFixed(2)}`;
for (const [name, times] of timings) console.log(`| ${name} | ${cell(times.index)} | ${cell(times.SQL)} |`);
const all = (way: Way) => [...timings.values()].flatMap((times) => times[way]);
console.log(`| whole mix | ${cell(all('index'))} | ${cell(all('SQL'))} |`);
await runtime.close();
