// Corpus benchmarks, printed side by side:
// - ingest throughput in reports/s: one article per HTTPS request (POST /ops/v1/articles,
//   8 at a time), and the bulk path (NDJSON import, 500 articles per transaction);
// - matching throughput of one changed event against 10,000 and 100,000 saved filters
//   (goal: the second no more than 1.5 times slower, which shows matching is indexed).
//
//   npx tsx bench/corpus.ts                                     embedded database (memory)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/corpus.ts     PostgreSQL
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { importArticles } from '../src/modules/corpus/article-import.js';
import type { EventFacts } from '../src/modules/filters/event-facts.js';
import type { CompiledFilter } from '../src/modules/filters/filter.js';
import { FilterIndex } from '../src/modules/filters/matching.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';
import { dealEventType } from './fixtures.js';
import { benchKeyEnv } from './encryption-key.js';

const SINGLE = Number(process.env.BENCH_SINGLE ?? 2_000);
const BULK = Number(process.env.BENCH_BULK ?? 20_000);
const OPS = 'bench-ops-token-0123456789';

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-corpus`,
  EVMON_OPS_TOKEN: OPS,
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const tls = await loadTls(config);
const app = await buildApp(runtime, tls);
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;
const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 8 });

// Reference data: 20 outlets, 5,000 organizations, one event type with two entity roles.
const outlets = await Promise.all(Array.from({ length: 20 }, (_, i) => runtime.reference.createOutlet({ name: `Outlet ${i}` })));
const entities: string[] = [];
for (let i = 0; i < 5_000; i++) entities.push((await runtime.reference.createEntity({ name: `Company ${i}`, type: 'ORGANIZATION' })).id);
const type = await dealEventType(runtime);
let n = 0;
const article = () => {
  n++;
  const day = new Date(Date.UTC(2026, 0, 1) + (n % 300) * 86_400_000).toISOString();
  return {
    outlet_id: outlets[n % outlets.length]!.id,
    event_type_id: type.id,
    published_at: day,
    received_at: day,
    roles: [
      { role: 'buyer', entity_id: entities[(n * 7) % entities.length]! },
      { role: 'seller', entity_id: entities[(n * 13) % entities.length]! },
      { role: 'price', amount: { value: n * 1000, unit: 'USD' } },
    ],
  };
};

// Single: one article per request, 8 requests in flight.
let started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < SINGLE) {
      next++;
      const response = await request(`https://127.0.0.1:${port}/ops/v1/articles`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPS}`, 'content-type': 'application/json' },
        body: JSON.stringify(article()),
        dispatcher: agent,
      });
      await response.body.dump();
      if (response.statusCode !== 201) throw new Error(`ingest answered ${response.statusCode}`);
    }
  }),
);
const singleRate = SINGLE / ((performance.now() - started) / 1000);

// Bulk: the NDJSON import path.
async function* lines() {
  for (let i = 0; i < BULK; i++) yield JSON.stringify(article());
}
started = performance.now();
const bulk = await importArticles(runtime.events, lines());
const bulkRate = bulk.imported / ((performance.now() - started) / 1000);
await app.close();
await runtime.close();

// Matching. Events involve entities of a pool of 2,000 ("hot") and one of 50 types. Each
// index holds the same 1,000 filters that can match (500 on a type, 500 on hot entities) plus
// filters on other entities (200,000 "cold" ones, half with a type) that never match: so the
// number of matches per event is the same at both sizes, and any extra cost at 100,000 comes
// from looking at filters that do not match, which an index avoids.
const hot = Array.from({ length: 2_000 }, (_, i) => `hot${i}`);
const cold = Array.from({ length: 200_000 }, (_, i) => `cold${i}`);
const types = Array.from({ length: 50 }, (_, i) => `t${i}`);
let seed = 1;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
const compiled = (eventTypeId: string | null, entities: string[] | null): CompiledFilter => ({
  eventTypeId,
  entities: entities ? new Set(entities) : null,
  scope: 'MENTIONED',
  outlets: null,
  sourceKind: 'ANY',
  represented: null,
  minReports: 1,
  minIndependent: 1,
  roleFilters: [],
});
const filter = (i: number): CompiledFilter => {
  if (i < 500) return compiled(types[i % types.length]!, null);
  if (i < 1_000) return compiled(null, [pick(hot)]);
  return compiled(random() < 0.5 ? pick(types) : null, [pick(cold), pick(cold)]);
};
const events: EventFacts[] = Array.from({ length: 2_000 }, (_, i) => ({
  eventId: `ev${i}`,
  eventTypeId: pick(types),
  live: true,
  involved: new Set(Array.from({ length: 6 }, () => pick(hot))),
  participants: new Set(),
  reports: [{ sourceKind: 'ARTICLE', sourceId: 'o1', outletId: 'o1', represented: new Set(), values: [], group: 'r1', date: 0, seq: 1 }],
}));
function measure(size: number) {
  const index = new FilterIndex();
  seed = 7; // the same filters at both sizes, as far as the smaller goes
  for (let i = 0; i < size; i++) index.set(`f${i}`, filter(i));
  let matched = 0;
  for (const event of events.slice(0, 200)) matched += index.match(event).length; // warm-up
  const begin = performance.now();
  for (let round = 0; round < 5; round++) for (const event of events) matched += index.match(event).length;
  const perEvent = ((performance.now() - begin) * 1000) / (events.length * 5);
  return { perEvent, matched: matched / (events.length * 5 + 200) };
}
const small = measure(10_000);
const large = measure(100_000);

console.log(`storage: ${runtime.db.kind}; ${os.cpus().length} cores; Node ${process.version}`);
console.log(`ingest, one article per HTTPS request (8 in flight): ${singleRate.toFixed(0)} reports/s over ${SINGLE}`);
console.log(`ingest, NDJSON bulk import (500 per transaction):    ${bulkRate.toFixed(0)} reports/s over ${bulk.imported}`);
console.log(`matching one event against  10,000 filters: ${small.perEvent.toFixed(1)} µs/event (${small.matched.toFixed(1)} matches/event)`);
console.log(`matching one event against 100,000 filters: ${large.perEvent.toFixed(1)} µs/event (${large.matched.toFixed(1)} matches/event)`);
console.log(`ratio 100k / 10k: ${(large.perEvent / small.perEvent).toFixed(2)} (goal <= 1.5)`);
