// Single-article ingest: POST /ops/v1/articles over HTTPS, 8 requests in flight, against the
// same articles' ingest called without HTTP and a bare floor of the same number of statements,
// in one run, so the ratios say where the time goes.
// Goal (PostgreSQL): ≥ 1,000 articles/s over HTTPS with p99 ≤ 50 ms.
//
// The corpus is of realistic shape: 3,000 entities, 12 outlets, three event types; articles
// come from ground-truth events, each reported by 1 to 6 outlets over hours to days (some
// published after later ones, some roles left out, some without happened_at, some mentions),
// sent roughly in the order they were received, so most cluster into an event opened by an
// earlier one. The first BENCH_WARMUP articles of each phase are not timed.
//
//   npx tsx bench/ingest-single.ts                                    embedded database (memory)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/ingest-single.ts    PostgreSQL (an empty schema)
//
// Phases, each on fresh articles of the same stream: (1) HTTPS, the client on a thread of its
// own (bench/post-load.ts); (2) the service call alone
// (runtime.events.ingestArticle, 8 at once), which also counts the statements per ingest;
// (3) bare: 8 at once, transactions of that many statements, each an indexed single-row read
// except one INSERT of a row into a scratch table (so the commit writes as an ingest's does).
// Each phase also prints its CPU per article: this process's (the HTTPS client's thread
// included) and the rest of the machine's, the database server's on an idle machine.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';
import { cpuNow, cpuPerItem } from './cpu-time.js';
import { benchKeyEnv } from './encryption-key.js';
import { postInWorker } from './post-load.js';
import { profileStatements } from './statement-profile.js';

const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 6_000);
const DIRECT = Number(process.env.BENCH_DIRECT ?? 3_000);
const BARE = Number(process.env.BENCH_BARE ?? 3_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const IN_FLIGHT = 8;
const OPS = 'bench-ops-token-0123456789';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-ingest-single`,
  EVMON_OPS_TOKEN: OPS,
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const tls = await loadTls(config);
const app = await buildApp(runtime, tls);
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;

// A seeded generator, so runs are comparable.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const below = (n: number) => Math.floor(random() * n);
const pick = <T>(items: readonly T[]) => items[below(items.length)]!;

// Reference data.
const stamp = Date.now().toString(36);
const outlets = await Promise.all(Array.from({ length: 12 }, (_, i) => runtime.reference.createOutlet({ name: `Outlet ${i}`, domain: `news${i}.example` })));
const entities: string[] = [];
for (let i = 0; i < 3_000; i++) entities.push((await runtime.reference.createEntity({ name: `Company ${i}`, type: 'ORGANIZATION' })).id);
const types = [
  await runtime.reference.createEventType({
    code_name: `deal_${stamp}`,
    name: 'Deal',
    description: '',
    roles: [
      { code_name: 'buyer', name: 'Buyer', expected_type: 'NAMED_ENTITY' },
      { code_name: 'seller', name: 'Seller', expected_type: 'NAMED_ENTITY' },
      { code_name: 'price', name: 'Price', expected_type: 'CURRENCY' },
      { code_name: 'closing', name: 'Closing', expected_type: 'DATE' },
    ],
    sentence_template: '{buyer} agreed to buy {seller} for {price}',
  }),
  await runtime.reference.createEventType({
    code_name: `lawsuit_${stamp}`,
    name: 'Lawsuit',
    description: '',
    roles: [
      { code_name: 'plaintiff', name: 'Plaintiff', expected_type: 'NAMED_ENTITY' },
      { code_name: 'defendant', name: 'Defendant', expected_type: 'NAMED_ENTITY' },
      { code_name: 'claim', name: 'Claim', expected_type: 'CURRENCY' },
    ],
    sentence_template: '{plaintiff} sued {defendant}',
  }),
  await runtime.reference.createEventType({
    code_name: `plant_${stamp}`,
    name: 'Plant opening',
    description: '',
    roles: [
      { code_name: 'company', name: 'Company', expected_type: 'NAMED_ENTITY' },
      { code_name: 'site', name: 'Site', expected_type: null },
      { code_name: 'jobs', name: 'Jobs', expected_type: 'NUMBER' },
    ],
    sentence_template: '{company} opened a plant in {site}',
  }),
];

type Article = Record<string, unknown> & { received_at: string };

/** The articles of one ground-truth event, starting at `start`. */
function eventArticles(start: number, n: number): Article[] {
  const type = pick(types);
  const [a, b] = [pick(entities), pick(entities)];
  const day = new Date(start).toISOString().slice(0, 10);
  const full: Record<string, Record<string, unknown>> = {
    buyer: { entity_id: a },
    seller: { entity_id: b },
    price: { amount: { value: 1_000_000 * (1 + below(900)), unit: 'USD' } },
    closing: { date: new Date(start + 30 * DAY_MS).toISOString().slice(0, 10) },
    plaintiff: { entity_id: a },
    defendant: { entity_id: b },
    claim: { amount: { value: 50_000 * (1 + below(100)), unit: 'EUR' } },
    company: { entity_id: a },
    site: { text: pick(['Lyon', 'Austin', 'Osaka', 'Leeds', 'Porto']) },
    jobs: { amount: { value: 100 * (1 + below(20)), unit: '' } },
  };
  const codes = types.find((t) => t.id === type.id)!.roles.map((role: { code_name: string }) => role.code_name);
  const reporters = [...outlets].sort(() => random() - 0.5).slice(0, 1 + below(6));
  return reporters.map((outlet, i) => {
    // Spread over hours to days; a few published (and received) before the first one seen.
    const published = start + (i === 0 ? 0 : below(i < 3 ? 12 : 60) * HOUR_MS) - (random() < 0.1 ? below(6) * HOUR_MS : 0);
    const roles = codes
      .filter((_code: string, j: number) => j === 0 || random() > 0.2) // the first (an entity) always, the others mostly
      .map((code: string) => ({ role: code, ...full[code] }));
    return {
      outlet_id: outlet.id,
      event_type_id: type.id,
      published_at: new Date(published).toISOString(),
      received_at: new Date(published + (1 + below(30)) * 60_000).toISOString(),
      ...(random() < 0.7 ? { happened_at: day } : {}),
      roles,
      ...(random() < 0.3 ? { mentioned_entity_ids: [pick(entities)] } : {}),
      headline: `Story ${n}-${i}`,
      url: `https://${outlet.domain}/${stamp}/${n}/${i}`,
    };
  });
}

/** `count` articles of events spread over a timeline, in the order they were received. */
let clock = Date.UTC(2025, 0, 1);
let eventNumber = 0;
function articles(count: number): Article[] {
  const made: Article[] = [];
  while (made.length < count) {
    clock += 20 * 60_000; // an event every 20 minutes of the timeline
    made.push(...eventArticles(clock, eventNumber++));
  }
  return made.slice(0, count).sort((x, y) => x.received_at.localeCompare(y.received_at));
}

/** Runs `work` over `items`, `IN_FLIGHT` at a time; answers the rate and latencies after the warm-up. */
async function timed<T>(items: readonly T[], work: (item: T) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  let started = 0;
  let cpuAtStart = cpuNow();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < items.length) {
        const i = next++;
        if (i === WARMUP) {
          started = performance.now();
          cpuAtStart = cpuNow();
        }
        const begin = performance.now();
        await work(items[i]!);
        if (i >= WARMUP) latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuPerItem(cpuAtStart, cpuNow(), latencies.length);
  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    rate: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    count: latencies.length,
    cpu,
  };
}

// 1. HTTPS, from a load generator on a thread of its own (its CPU counts as this process's).
const httpsCpuAtStart = cpuNow();
const httpsLoad = await postInWorker({
  url: `https://127.0.0.1:${port}/ops/v1/articles`,
  headers: { authorization: `Bearer ${OPS}` },
  bodies: articles(WARMUP + ARTICLES),
  inFlight: IN_FLIGHT,
  warmup: WARMUP,
  ca: tls.cert.toString(),
  status: 201,
});
const https = { ...httpsLoad, cpu: cpuPerItem(httpsCpuAtStart, cpuNow(), WARMUP + ARTICLES) };

// 2. The service call alone, counting the statements each ingest runs (BEGIN and COMMIT aside).
let statements = 0;
const transaction = db.transaction.bind(db);
db.transaction = ((work) =>
  transaction((tx) =>
    work({
      ...tx,
      query: (sql, params, options) => {
        statements++;
        return tx.query(sql, params, options);
      },
    }),
  )) as typeof db.transaction;
// BENCH_PROFILE=1: where this phase's time goes, per statement (bench/statement-profile.ts).
const profile = process.env.BENCH_PROFILE === '1' ? profileStatements(db) : null;
profile?.start();
const direct = await timed(articles(WARMUP + DIRECT), async (body) => {
  await runtime.events.ingestArticle(body as never);
});
profile?.stop();
const perIngest = statements / (WARMUP + DIRECT);
db.transaction = transaction;

// 3. Bare: as many statements per transaction, no clustering, no HTTP.
await db.exec('DROP TABLE IF EXISTS bench_bare; CREATE TABLE bench_bare (id bigserial PRIMARY KEY, body text NOT NULL)');
const reads = Math.max(0, Math.round(perIngest) - 1);
const bare = await timed(
  Array.from({ length: WARMUP + BARE }, (_, i) => i),
  async (i) => {
    await db.transaction(async (tx) => {
      for (let j = 0; j < reads; j++) await tx.query('SELECT id FROM news_outlets WHERE id = $1', [outlets[(i + j) % outlets.length]!.id]);
      await tx.query('INSERT INTO bench_bare (body) VALUES ($1)', [`row ${i}`]);
    });
  },
);
await db.exec('DROP TABLE bench_bare');

const [{ events, reports }] = (await db.query<{ events: number; reports: number }>(
  'SELECT (SELECT count(*)::int FROM events WHERE merged_into_event_id IS NULL) AS events, (SELECT count(*)::int FROM reports) AS reports',
)) as [{ events: number; reports: number }];
await app.close();
await runtime.close();

const line = (name: string, r: Pick<Awaited<ReturnType<typeof timed>>, 'rate' | 'p50' | 'p99' | 'count' | 'cpu'>) =>
  `${name.padEnd(44)} ${r.rate.toFixed(0).padStart(6)}/s   p50 ${r.p50.toFixed(1).padStart(5)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   (${r.count})` +
  `   CPU per item: this process ${r.cpu.node.toFixed(2)} ms, the rest ${r.cpu.rest.toFixed(2)} ms`;
console.log(`storage: ${db.kind}; ${os.cpus().length} cores; Node ${process.version}; ${IN_FLIGHT} in flight`);
console.log(`corpus at the end: ${reports} reports in ${events} events; ${entities.length} entities, ${outlets.length} outlets, ${types.length} event types`);
console.log(line('POST /ops/v1/articles over HTTPS', https));
console.log(line('ingestArticle without HTTP', direct));
console.log(line(`bare: ${reads} reads + 1 INSERT per transaction`, bare));
console.log(`statements per ingest: ${perIngest.toFixed(1)} (BEGIN and COMMIT aside)`);
console.log(`ratios: HTTPS / service ${(direct.rate / https.rate).toFixed(2)}, service / bare ${(bare.rate / direct.rate).toFixed(2)}`);
if (profile) {
  const { statements, transactions } = profile.totals();
  console.log(`ingestArticle without HTTP: ${statements.toFixed(1)} s in statements, ${transactions.toFixed(1)} s in whole transactions`);
  console.log(`| total | calls | mean | statement |\n|---|---|---|---|\n${profile.top(15).join('\n')}`);
}
