// What a model reads over MCP, in characters: the `initialize` result, the `tools/list`
// result for a key with every scope, and one 20-result `search_events` page (the JSON-RPC
// result and the tool's text alone). A size, not a timing: the same corpus gives the same
// figures on any machine.
//
// On an empty database it first generates a demo corpus of BENCH_EVENTS events (default
// 2,000, seed 42).
//   npx tsx bench/mcp-sizes.ts                                   embedded database (memory)
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/mcp-sizes.ts  PostgreSQL (an empty schema)
import { request } from 'undici';
import { SCOPES } from '../src/platform/scopes.js';
import { demoCorpusServer } from './fixtures.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);

const { config, runtime, base, agent, close } = await demoCorpusServer('mcp-sizes', EVENTS);

const account = await runtime.accounts.createAccount({
  plan: 'standard',
  credit_balance: 1_000,
  entitlements: { structured_reporting: true, entity_reporting: true, beats: true },
});
const key = (await runtime.accounts.createApiKey(account.id, { name: 'sizes', scopes: [...SCOPES] })).key!;

let rpcId = 0;
/** The JSON-RPC `result` of one call. */
async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await request(`${base}/mcp`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const answer = (await response.body.json()) as { result?: Record<string, unknown> };
  if (response.statusCode !== 200 || !answer.result || answer.result.isError)
    throw new Error(`${method} answered ${response.statusCode}: ${JSON.stringify(answer)}`);
  return answer.result;
}

const initialize = await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sizes', version: '1' } });
const tools = await rpc('tools/list', {});
const page = await rpc('tools/call', { name: 'search_events', arguments: { lookback_days: 365, limit: 20 } });
const text = (page.content as { text: string }[])[0]!.text;
const envelope = JSON.parse(text) as { data: unknown[] };
if (envelope.data.length !== 20) throw new Error(`the page holds ${envelope.data.length} events, not 20`);

const chars = (value: unknown) => JSON.stringify(value).length;
console.log(
  JSON.stringify(
    {
      database: config.database.kind,
      initialize_result: chars(initialize),
      tools_list_result: chars(tools),
      tools: (tools.tools as { name: string }[]).map((tool) => ({ name: tool.name, chars: chars(tool) })),
      search_page_result: chars(page),
      search_page_text: text.length,
      search_page_per_event: Math.round(text.length / 20),
    },
    null,
    2,
  ),
);
await close();
