// MCP search_events against REST POST /v1/events/search, side by side in one run: the same
// filters, each a new charged execution, over HTTPS to one in-process server. Rounds
// alternate the two transports (REST then MCP, then MCP then REST) so both meet the same
// cache conditions. p50 and p99 of each, and the MCP/REST ratio.
// Goal: MCP ≤ 1.2 × REST at p50 and p99.
//
// On an empty database it first generates a demo corpus of BENCH_EVENTS events (default
// 50,000).
//   npx tsx bench/mcp.ts                                   embedded database (memory)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/mcp.ts  PostgreSQL (an empty schema)
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { demoCorpusServer } from './fixtures.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 150);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);

const { config, runtime, eventCount, base, agent, close } = await demoCorpusServer('mcp', EVENTS);
const { db } = runtime;

await runtime.accounts.putPlan('bench_mcp', {
  beats_max: 10,
  clauses_max: 100,
  default_spend_cap_credits: 1000,
  retention_days: 90,
  backfill_days: 7,
  search_credit_cost: 1,
  beat_entry_credit_cost: 1,
  rest_requests_per_minute: 1_000_000,
  mcp_requests_per_minute: 1_000_000,
  search_execution_retention_seconds: 86400,
  search_max_results: 1000,
});
const account = await runtime.accounts.createAccount({ plan: 'bench_mcp', credit_balance: 10_000_000 });
const key = (await runtime.accounts.createApiKey(account.id, { name: 'bench', scopes: ['EVENTS_READ'] })).key!;

const types = await db.query<{ id: string }>('SELECT id FROM event_types ORDER BY code_name');
const [popular] = await db.query<{ entity_id: string }>(
  `SELECT entity_id FROM (SELECT x.id AS entity_id FROM events e CROSS JOIN LATERAL unnest(e.involved_entity_ids) AS x(id) WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL) AS named GROUP BY entity_id ORDER BY count(*) DESC LIMIT 1`,
);
const filters: Record<string, unknown>[] = [
  { lookback_days: 30, event_type_id: types[0]!.id },
  { lookback_days: 7 },
  { lookback_days: 90, involved_entity_ids: [popular!.entity_id] },
  { lookback_days: 30, limit: 50 },
];

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const response = await request(`${base}${path}`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  const elapsed = performance.now() - started;
  if (response.statusCode !== 200 || text.includes('"isError":true')) throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return elapsed;
}
let rpcId = 0;
const rest = (filter: Record<string, unknown>) => post('/v1/events/search', filter);
const mcp = (filter: Record<string, unknown>) =>
  post(
    '/mcp',
    { jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name: 'search_events', arguments: filter } },
    { accept: 'application/json, text/event-stream' },
  );

for (const filter of filters) {
  await rest(filter);
  await mcp(filter);
}
const times = { rest: [] as number[], mcp: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  for (const filter of filters) {
    if (round % 2 === 0) {
      times.rest.push(await rest(filter));
      times.mcp.push(await mcp(filter));
    } else {
      times.mcp.push(await mcp(filter));
      times.rest.push(await rest(filter));
    }
  }
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const row = (p: number) => ({
  rest_ms: +percentile(times.rest, p).toFixed(2),
  mcp_ms: +percentile(times.mcp, p).toFixed(2),
  ratio: +(percentile(times.mcp, p) / percentile(times.rest, p)).toFixed(2),
});
console.log(JSON.stringify({ database: config.database.kind, events: eventCount, requests_each: times.rest.length, p50: row(50), p99: row(99) }, null, 2));
await close();
