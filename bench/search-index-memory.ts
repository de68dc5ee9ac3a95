// The search index in memory (src/modules/filters/memory-index.ts), built alone from a corpus:
// its build time, and what it holds after a full GC (heap and typed arrays), per event.
// Nothing else runs in the process, so the figures are the index's own, apart from the
// database (PGlite's memory is its own WebAssembly heap, outside both figures).
//
//   node --expose-gc --import tsx bench/search-index-memory.ts        (BENCH_DATA_DIR: a PGlite corpus)
//   BENCH_DATABASE_URL=postgres://… node --expose-gc --import tsx bench/search-index-memory.ts
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { MemoryIndex } from '../src/modules/filters/memory-index.js';
import { memoryIndexStore } from '../src/modules/filters/memory-index.store.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const CHUNK = 5_000;
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
  return { heap: heapUsed, typed: arrayBuffers };
};
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

const before = held();
const started = performance.now();
let readMs = 0;
const index = new MemoryIndex();
for (let after: string | null = null; ; ) {
  const readStarted = performance.now();
  const chunk = await memoryIndexStore.eventsAfter(runtime.db, after, CHUNK);
  readMs += performance.now() - readStarted;
  for (const event of chunk) index.put(event.id, event);
  if (chunk.length < CHUNK) break;
  after = chunk[chunk.length - 1]!.id;
}
index.compact(); // as a server does once its build is done
const buildMs = performance.now() - started;
const built = held();
const heap = built.heap - before.heap;
const typed = built.typed - before.typed;
console.log(`storage: ${config.database.kind}; ${index.size.toLocaleString('en')} events`);
console.log(`build: ${(buildMs / 1000).toFixed(1)} s, of which reading the tables ${(readMs / 1000).toFixed(1)} s`);
console.log(`held after a full GC: heap ${mb(heap)}, typed arrays ${mb(typed)}; ${((heap + typed) / index.size).toFixed(0)} bytes per event`);
console.log(`process RSS: ${mb(process.memoryUsage().rss)}`);
await runtime.close();
