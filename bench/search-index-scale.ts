// The search index in memory (src/modules/search/index/memory-index.ts) alone, at the corpus's size
// and at BENCH_COPIES times it (default 10: ten million events from a corpus of one million,
// where there is no disk or time for a real one). Each copy of an event is the same event
// under another id: the same day, type, entities, outlets and role values, so every posting
// list and role column is BENCH_COPIES times longer, as in a corpus that many times denser
// over the same year with no new entities (the counts' worst case).
//
// Printed, for the corpus (1 ×) and the copies (N ×):
//   - each index's build from the rows read, its save to a file and its load back (a restart's
//     part of the time to ready), and what it holds once loaded (heap and typed arrays, after
//     full GCs), per event;
//   - each case of the search mix (bench/search-mix.ts) that the index counts, timed on both
//     indexes in turn: the index's count and newest page alone, without the database. The
//     widest cases are counted from the day counts (day-counts.ts), whatever the corpus size.
//
// (The rows read are held until both indexes are built: a million events take about 3 GB of heap.)
//   node --expose-gc --max-old-space-size=8192 --import tsx bench/search-index-scale.ts        (BENCH_DATA_DIR: a PGlite corpus)
//   BENCH_DATABASE_URL=postgres://… node --expose-gc --max-old-space-size=8192 --import tsx bench/search-index-scale.ts
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { countableByDay } from '../src/modules/search/index/day-counts.js';
import { normalizeFilter } from '../src/modules/filters/filter.js';
import { compileWithRoleIds } from '../src/modules/filters/filtered-events.js';
import type { IndexedEvent } from '../src/modules/search/index/indexed-event.js';
import { MemoryIndex } from '../src/modules/search/index/memory-index.js';
import { loadIndex, saveIndex } from '../src/modules/search/index/memory-index-file.js';
import { memoryIndexStore as store } from '../src/modules/search/index/memory-index.store.js';
import { createRuntime } from '../src/runtime.js';
import { corpusConfig } from './corpus-config.js';
import { searchMix, typeIds } from './search-mix.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const CHUNK = 5_000;
const COPIES = Number(process.env.BENCH_COPIES ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const FILE = process.env.BENCH_INDEX_FILE ?? '/tmp/evbench/scaled-index.bin';
if (!(COPIES >= 1 && COPIES <= 16)) throw new Error('BENCH_COPIES: 1 to 16 (a copy is told apart by one hex digit of its id)');
const config = corpusConfig();
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const held = () => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Copy `k` of an event's id: its version digit (the 15th character, '7' in a UUIDv7) replaced. */
const DIGITS = '0123456789abcdef'.replace('7', '');
function copyId(id: string, k: number): string {
  if (id[14] !== '7') throw new Error(`${id} is not a UUIDv7: its copies could not be told apart`);
  return k === 0 ? id : `${id.slice(0, 14)}${DIGITS[k - 1]}${id.slice(15)}`;
}

// The corpus as a build reads it, in the build's order. The corpus's index holds each event,
// the other its copies one after another, so numbers follow first reports there too. Each is
// saved once built, then both are loaded back: what each holds is measured as it loads, with
// nothing else in memory (the rows read are gone by then), and the copies' load is a restart's.
const started = performance.now();
const events: IndexedEvent[] = [];
for (let after: string | null = null; ; ) {
  const chunk = await store.eventsAfter(runtime.db, after, CHUNK);
  events.push(...chunk);
  if (chunk.length < CHUNK) break;
  after = chunk[chunk.length - 1]!.id;
}
const readMs = performance.now() - started;
const position = (await store.readLog(runtime.db, null)).position;
const { epoch } = await store.identity(runtime.db);
/** Builds an index of `copies` of each event read, compacted as a server's is once built, and saves it; answers the build's time, the save's and the file's size. */
async function buildAndSave(copies: number, file: string) {
  const index = new MemoryIndex();
  let started = performance.now();
  for (const event of events) for (let k = 0; k < copies; k++) index.put(copyId(event.id, k), event);
  index.compact();
  const buildMs = performance.now() - started;
  started = performance.now();
  const bytes = await saveIndex(file, { epoch, position, index: index.parts() });
  return { buildMs, saveMs: performance.now() - started, bytes };
}
/** Loads the index saved in `file` (then removed); answers it, the load's time and what it holds. */
async function load(file: string) {
  const before = held();
  const started = performance.now();
  const saved = await loadIndex(file);
  const index = MemoryIndex.fromParts(saved!.index);
  const loadMs = performance.now() - started;
  await rm(file);
  return { index, loadMs, bytes: held() - before };
}
const singleFile = `${FILE}.single`;
const scaledFile = `${FILE}.scaled`; // two names even when BENCH_COPIES is 1
const singleBuilt = await buildAndSave(1, singleFile);
const scaledBuilt = await buildAndSave(COPIES, scaledFile);
events.length = 0;
const single = await load(singleFile);
const scaled = await load(scaledFile);
const perEvent = (bytes: number, index: MemoryIndex) => `${(bytes / index.size).toFixed(0)} bytes per event`;
console.log(
  `storage: ${config.database.kind}; the corpus ${single.index.size.toLocaleString('en')} events, the copies ${scaled.index.size.toLocaleString('en')} (${COPIES} ×)`,
);
console.log(`reading the tables: ${s(readMs)}`);
for (const [name, built, loaded] of [
  ['1 ×', singleBuilt, single],
  [`${COPIES} ×`, scaledBuilt, scaled],
] as const) {
  console.log(
    `${name}: built in ${s(built.buildMs)} from the rows in memory, saved in ${s(built.saveMs)} (${mb(built.bytes)}), loaded in ${s(loaded.loadMs)}; held ${mb(loaded.bytes)}, ${perEvent(loaded.bytes, loaded.index)}`,
  );
}
console.log(`process RSS: ${mb(process.memoryUsage().rss)}\n`);

// The mix's cases the index counts, both indexes in turn each round.
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(`| case | count 1 × | count ${COPIES} × | 1 × p50 | 1 × p99 | ${COPIES} × p50 | ${COPIES} × p99 |`);
console.log('|---|---|---|---|---|---|---|');
const now = runtime.clock.now().getTime();
for (const { name, body } of await searchMix(runtime, await typeIds(runtime))) {
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
      ['single', single.index],
      ['scaled', scaled.index],
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
