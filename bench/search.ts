// Event search latency over HTTPS against the bare SQL of the same requests, in one run.
//
// Each search of a mix of filters is sent over HTTPS (one at a time, a new charged
// execution each time, or a continuation page); every read statement it runs outside its
// charge transaction is recorded and replayed directly on the database, back to back, as its
// bare SQL time. p50 and p99 of
// both are printed per filter and for the whole mix.
// Goals: HTTP p99 ≤ 1.5 × SQL p99; PGlite p99 ≤ 20 ms; PostgreSQL p99 ≤ 8 ms.
//
// The corpus is made beforehand (about 12 minutes for a million events):
//   EVMON_DATA_DIR=/tmp/evbench/pglite-data npx evmon demo --events 1000000 --seed 42
//   BENCH_DATA_DIR=/tmp/evbench/pglite-data npx tsx bench/search.ts
//   export EVMON_ENCRYPTION_KEY=$(openssl rand -base64 32)   # PostgreSQL needs one; the same for both
//   EVMON_DATABASE_URL=postgres://… npx evmon demo --events 1000000 --seed 42
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/search.ts
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const OPS = 'bench-ops-token-0123456789';

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: process.env.BENCH_DATA_DIR ?? '/tmp/evbench/pglite-data',
  EVMON_OPS_TOKEN: OPS,
  EVMON_SEED: 'none',
  EVMON_EDGE_MAX_PER_MINUTE: '0',
  EVMON_LOG_LEVEL: 'warn',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const eventCount = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;
if (eventCount < 1000) throw new Error('No corpus here: make one first with `npx evmon demo --events 1000000` (see the top of this file).');

// Record the read statements run outside transactions (the search's reads; its charge
// runs in a transaction and is not replayed).
let recording: { sql: string; params?: readonly unknown[] }[] | null = null;
const query = db.query.bind(db);
db.query = (async (sql: string, params?: readonly unknown[]) => {
  recording?.push({ sql, params });
  return query(sql, params);
}) as typeof db.query;

const tls = await loadTls(config);
const app = await buildApp(runtime, tls);
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;
const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 1 });

// An account that can afford every search, on a plan whose budget never stops the run.
const planName = `bench_${Date.now()}`;
await db.query(
  `INSERT INTO plans SELECT $1, beats_max, clauses_max, default_spend_cap_credits, retention_days, backfill_days, search_credit_cost,
          beat_entry_credit_cost, 1000000, 1000000, search_execution_retention_seconds, search_max_results, created_at, updated_at
     FROM plans WHERE name = 'standard'`,
  [planName],
);
const account = await runtime.accounts.createAccount({ plan: planName, credit_balance: 10_000_000 });
const key = (await runtime.accounts.createApiKey(account.id, { name: 'bench', scopes: ['EVENTS_READ'] })).key;

// Filter ingredients drawn from the corpus.
const types = await db.query<{ id: string; code_name: string }>('SELECT id, code_name FROM event_types ORDER BY code_name');
const typeId = (code: string) => types.find((t) => t.code_name === code)!.id;
const popular = await db.query<{ entity_id: string; n: number }>(
  'SELECT entity_id, count(*)::int AS n FROM event_entities GROUP BY entity_id ORDER BY count(*) DESC LIMIT 40',
);
const [rare] = await db.query<{ entity_id: string }>(
  'SELECT entity_id FROM event_entities GROUP BY entity_id HAVING count(*) BETWEEN 3 AND 10 ORDER BY entity_id LIMIT 1',
);
const outlets = await db.query<{ id: string }>('SELECT id FROM news_outlets ORDER BY id LIMIT 3');
const list = await runtime.reference.createEntityList({
  name: 'bench list',
  owner_account_id: null,
  entity_ids: popular.slice(20, 40).map((p) => p.entity_id),
});

const mix: { name: string; body: Record<string, unknown> }[] = [
  { name: 'type, 30 days', body: { lookback_days: 30, event_type_id: typeId('earthquake') } },
  { name: 'no filter, 7 days', body: { lookback_days: 7 } },
  { name: 'popular entity, 90 days', body: { lookback_days: 90, involved_entity_ids: [popular[0]!.entity_id] } },
  { name: 'rare entity, 365 days', body: { lookback_days: 365, involved_entity_ids: [rare!.entity_id] } },
  { name: 'entity list (20), 30 days', body: { lookback_days: 30, involved_entity_list_ids: [list.id] } },
  {
    name: 'type + outlets + min_reports 2, 30 days',
    body: { lookback_days: 30, event_type_id: typeId('acquisition'), required_source_news_outlet_ids: outlets.map((o) => o.id), min_reports: 2 },
  },
  {
    name: 'type + amount role filter, 90 days',
    body: { lookback_days: 90, event_type_id: typeId('funding_round'), role_filters: [{ kind: 'amount_gte', role_code_name: 'amount', min_value: 1e9 }] },
  },
];

// biome-ignore lint/suspicious/noExplicitAny: a benchmark reads whichever members it times
async function search(body: unknown): Promise<any> {
  const response = await request(`https://127.0.0.1:${port}/v1/events/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`search answered ${response.statusCode}: ${text}`);
  return JSON.parse(text);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Sample {
  http: number[];
  sql: number[];
  total: number;
}
const samples = new Map<string, Sample>();
const cases = [...mix.map((m) => ({ name: m.name, body: () => m.body })), { name: 'continuation page of "type, 30 days"', body: () => null }];
for (const c of cases) samples.set(c.name, { http: [], sql: [], total: 0 });

// Warm-up: one round of every case, unmeasured.
for (const m of mix) await search(m.body);

// Each round sends every case over HTTPS, then replays every case's statements in the same
// order, so both passes meet the same cache conditions.
let cursor: string | null = null;
for (let round = 0; round < ROUNDS; round++) {
  const recorded: { name: string; statements: { sql: string; params?: readonly unknown[] }[] }[] = [];
  for (const c of cases) {
    let body = c.body();
    if (body === undefined || body === null) {
      cursor ??= (await search(mix[0]!.body)).next_cursor;
      body = { cursor };
    }
    recording = [];
    const started = performance.now();
    const answer = await search(body);
    const sample = samples.get(c.name)!;
    sample.http.push(performance.now() - started);
    sample.total = answer.total_count;
    recorded.push({ name: c.name, statements: recording });
    recording = null;
  }
  for (const { name, statements } of recorded) {
    const started = performance.now();
    for (const statement of statements) await query(statement.sql, statement.params);
    samples.get(name)!.sql.push(performance.now() - started);
  }
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(`\n${config.database.kind}, ${eventCount.toLocaleString('en')} events, ${ROUNDS} rounds, ${new Date().toISOString()}\n`);
console.log('| search | total_count | HTTP p50 | HTTP p99 | SQL p50 | SQL p99 | p99 ratio |');
console.log('|---|---|---|---|---|---|---|');
const all = { http: [] as number[], sql: [] as number[] };
for (const [name, sample] of samples) {
  all.http.push(...sample.http);
  all.sql.push(...sample.sql);
  const ratio = percentile(sample.http, 99) / percentile(sample.sql, 99);
  console.log(
    `| ${name} | ${sample.total.toLocaleString('en')} | ${fmt(percentile(sample.http, 50))} | ${fmt(percentile(sample.http, 99))} | ${fmt(percentile(sample.sql, 50))} | ${fmt(percentile(sample.sql, 99))} | ${ratio.toFixed(2)} |`,
  );
}
const ratio = percentile(all.http, 99) / percentile(all.sql, 99);
console.log(
  `| **whole mix** | | ${fmt(percentile(all.http, 50))} | **${fmt(percentile(all.http, 99))}** | ${fmt(percentile(all.sql, 50))} | ${fmt(percentile(all.sql, 99))} | **${ratio.toFixed(2)}** |`,
);

await agent.close();
await app.close();
await runtime.close();
