// The search index in memory (src/modules/filters/memory-index.ts) alone, at the corpus's size
// and at BENCH_COPIES times it (default 10: ten million events from a corpus of one million,
// where there is no disk or time for a real one). Each copy of an event is the same event
// under another id: the same day, type, entities, outlets and role values, so every posting
// list and role column is BENCH_COPIES times longer, as in a corpus that many times denser
// over the same year with no new entities (the counts' worst case).
//
// Printed, for the corpus (1 ×) and the copies (N ×):
//   - the build (reading the tables, then the copies' puts), and what the index holds after a
//     full GC (heap and typed arrays), per event;
//   - the copies' index saved to a file and loaded back (a restart's part of the time to ready);
//   - each case of the search mix (bench/search-mix.ts) that the index counts, timed on both
//     indexes in turn: the index's count and newest page alone, without the database. The
//     widest cases are counted from the day counts (day-counts.ts), whatever the corpus size.
//
// (The rows read are held until the copies are made: a million events take a few GB of heap.)
//   node --expose-gc --max-old-space-size=8192 --import tsx bench/search-index-scale.ts        (BENCH_DATA_DIR: a PGlite corpus)
//   BENCH_DATABASE_URL=postgres://… node --expose-gc --max-old-space-size=8192 --import tsx bench/search-index-scale.ts
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { countableByDay } from '../src/modules/filters/day-counts.js';
import { normalizeFilter } from '../src/modules/filters/filter.js';
import { compileWithRoleIds } from '../src/modules/filters/filtered-events.js';
import { type IndexedEvent, MemoryIndex } from '../src/modules/filters/memory-index.js';
import { loadIndex, saveIndex } from '../src/modules/filters/memory-index-file.js';
import { memoryIndexStore as store } from '../src/modules/filters/memory-index.store.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';
import { searchMix } from './search-mix.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const CHUNK = 5_000;
const COPIES = Number(process.env.BENCH_COPIES ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const FILE = process.env.BENCH_INDEX_FILE ?? '/tmp/evbench/scaled-index.bin';
if (!(COPIES >= 1 && COPIES <= 16)) throw new Error('BENCH_COPIES: 1 to 16 (a copy is told apart by one hex digit of its id)');
const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: process.env.BENCH_DATA_DIR ?? '/tmp/evbench/pglite-data',
  EVMON_SEED: 'none',
  EVMON_LOG_LEVEL: 'warn',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const held = () => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Copy `k` of an event's id: its version digit (the 15th character, '7' in a UUIDv7) replaced. */
const DIGITS = '0123456789abcdef'.replace('7', '');
function copyId(id: string, k: number): string {
  if (id[14] !== '7') throw new Error(`${id} is not a UUIDv7: its copies could not be told apart`);
  return k === 0 ? id : `${id.slice(0, 14)}${DIGITS[k - 1]}${id.slice(15)}`;
}

// The corpus as a build reads it, in the build's order: each event goes into the corpus's
// index, and its copies one after another into the other, so numbers follow first reports there too.
const before = held();
const single = new MemoryIndex();
const events: IndexedEvent[] = [];
let started = performance.now();
for (let after: string | null = null; ; ) {
  const chunk = await store.eventsAfter(runtime.db, after, CHUNK);
  for (const event of chunk) {
    single.put(event.id, event);
    events.push(event);
  }
  if (chunk.length < CHUNK) break;
  after = chunk[chunk.length - 1]!.id;
}
single.compact();
const readMs = performance.now() - started;
const afterSingle = held();
started = performance.now();
const scaled = new MemoryIndex();
for (const event of events) for (let k = 0; k < COPIES; k++) scaled.put(copyId(event.id, k), event);
scaled.compact();
const copyMs = performance.now() - started;
events.length = 0;
const afterScaled = held();
const perEvent = (bytes: number, index: MemoryIndex) => `${(bytes / index.size).toFixed(0)} bytes per event`;
console.log(
  `storage: ${config.database.kind}; the corpus ${single.size.toLocaleString('en')} events, the copies ${scaled.size.toLocaleString('en')} (${COPIES} ×)`,
);
console.log(`1 ×: read and built in ${s(readMs)}; held ${mb(afterSingle - before)}, ${perEvent(afterSingle - before, single)}`);
console.log(
  `${COPIES} ×: built in ${s(copyMs)} from the rows in memory; held ${mb(afterScaled - afterSingle)}, ${perEvent(afterScaled - afterSingle, scaled)}`,
);

// A restart's load of the copies' index: the file, then the index from its parts.
const position = (await store.readLog(runtime.db, null)).position;
const { epoch } = await store.identity(runtime.db);
started = performance.now();
const bytes = await saveIndex(FILE, { epoch, position, index: scaled.parts() });
const saveMs = performance.now() - started;
started = performance.now();
const saved = await loadIndex(FILE);
const loaded = MemoryIndex.fromParts(saved!.index);
const loadMs = performance.now() - started;
await rm(FILE);
console.log(
  `${COPIES} ×: saved in ${s(saveMs)} (${mb(bytes)}), loaded in ${s(loadMs)} (${loaded.size.toLocaleString('en')} events); process RSS ${mb(process.memoryUsage().rss)}\n`,
);

// The mix's cases the index counts, both indexes in turn each round.
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(`| case | count 1 × | count ${COPIES} × | 1 × p50 | 1 × p99 | ${COPIES} × p50 | ${COPIES} × p99 |`);
console.log('|---|---|---|---|---|---|---|');
const now = runtime.clock.now().getTime();
for (const { name, body } of await searchMix(runtime)) {
  const filter = normalizeFilter(body);
  if (countableByDay(filter)) {
    console.log(`| ${name} | the day counts | | | | | |`);
    continue;
  }
  const { compiled, roleIds } = await compileWithRoleIds(runtime.db, [filter]);
  const windowStartUs = (now - (body.lookback_days as number) * 86_400_000) * 1000;
  const timed = { single: [] as number[], scaled: [] as number[] };
  const counts = { single: 0, scaled: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [which, index] of [
      ['single', single],
      ['scaled', loaded],
    ] as const) {
      const t = performance.now();
      counts[which] = index.search(compiled[0]!, roleIds, windowStartUs, 21).count;
      timed[which].push(performance.now() - t);
    }
  }
  console.log(
    `| ${name} | ${counts.single.toLocaleString('en')} | ${counts.scaled.toLocaleString('en')} | ${fmt(percentile(timed.single, 50))} | ${fmt(percentile(timed.single, 99))} | ${fmt(percentile(timed.scaled, 50))} | ${fmt(percentile(timed.scaled, 99))} |`,
  );
}
await runtime.close();
