import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { claimAsRunning } from '../helpers/claims.js';
import { MCP_HEADERS, mcpClient, type McpClient } from '../helpers/mcp.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const ALL_SCOPES = ['SENSORS_READ', 'SENSORS_WRITE', 'EVENTS_READ', 'BEATS_READ', 'BEATS_WRITE'];
const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
});

describe('MCP endpoint', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let mcp: McpClient;
  let typeId: string;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    mcp = mcpClient(server);
    await server.ops.post('/clock', { now: NOW });
    typeId = (await corpus.eventType()).id;
    const outlet = await corpus.outlet();
    // 50 events, one entity each (none clusters with another).
    for (let i = 0; i < 50; i++) {
      await corpus.article({
        outlet_id: outlet,
        event_type_id: typeId,
        published_at: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
      });
    }
  });
  after(() => server.close());

  it('when a client initializes with 2025-06-18 or 2025-11-25, then that version is answered; a newer one gets 2025-11-25; older ones are HTTP 400', async () => {
    const { key } = await corpus.account(0, ['EVENTS_READ']);
    for (const version of ['2025-06-18', '2025-11-25']) {
      const answer = await mcp.post(key, initialize(version));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.result.protocolVersion, version);
      assert.deepEqual(answer.json.result.capabilities, { tools: { listChanged: false } });
      assert.equal(answer.headers['mcp-session-id'], undefined, 'stateless: no session');
      assert.match(answer.headers['content-type']!, /^application\/json/);
    }
    assert.equal((await mcp.post(key, initialize('2027-01-01'))).json.result.protocolVersion, '2025-11-25');
    for (const version of ['2025-03-26', '2024-11-05', 'draft']) {
      const refused = await mcp.post(key, initialize(version, 'init-old'));
      mcp.rpcError(refused, 400, -32602, 'validation-failed');
      assert.equal(refused.json.id, 'init-old');
    }
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-protocol-version': '2025-03-26' }), 400, -32600, 'validation-failed');
    const ping = await mcp.post(key, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-protocol-version': '2025-06-18' });
    assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 3, result: {} });
    const initialized = await mcp.post(key, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(initialized.status, 202);
    assert.equal(initialized.text, '');
  });

  it('when the transport rules are broken, then GET is 405, a wrong Accept 406, a batch or non-JSON 400, a foreign Origin 403, a bad key 401: each a JSON-RPC error with the status kept', async () => {
    const { key } = await corpus.account(0, ['EVENTS_READ']);
    const get = await server.http.request('GET', '/mcp', { headers: { authorization: `Bearer ${key}`, ...MCP_HEADERS } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' }), 406, -32001, 'not-acceptable');
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'text/event-stream' }), 406, -32001, 'not-acceptable');
    const batch = await mcp.post(key, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    mcp.rpcError(batch, 400, -32600, 'validation-failed');
    assert.equal(batch.json.id, null);
    mcp.rpcError(await mcp.post(key, { id: 1, method: 'ping' }), 400, -32600, 'validation-failed');
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: {}, method: 'ping' }), 400, -32600, 'validation-failed');
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 1, result: {} }), 400, -32600, 'validation-failed');
    const badParams = await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    assert.ok(
      mcp.rpcError(badParams, 400, -32602, 'validation-failed').errors.some((e: { pointer: string }) => e.pointer === '/params/capabilities'),
      badParams.text,
    );
    for (const method of ['resources/list', 'constructor', 'toString', '__proto__']) {
      const unknownMethod = await mcp.post(key, { jsonrpc: '2.0', id: 5, method });
      assert.equal(unknownMethod.status, 200, unknownMethod.text);
      assert.equal(unknownMethod.json.error.code, -32601);
    }
    mcp.rpcError(
      await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json, text/event-stream;q=0' }),
      406,
      -32001,
      'not-acceptable',
    );
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'idempotency-key': 'not a key!' }), 400, -32600, 'validation-failed');
    const garbled = await server.http.request('POST', '/mcp', {
      headers: { authorization: `Bearer ${key}`, ...MCP_HEADERS },
      rawBody: '{"jsonrpc": "2.0", "id": 1,',
    });
    mcp.rpcError(garbled, 400, -32700, 'validation-failed');
    mcp.rpcError(await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://attacker.example' }), 403, -32001, 'origin-not-allowed');
    // The service's own origin (EVMON_PUBLIC_BASE_URL) may call.
    assert.equal((await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: new URL(server.docsUrl).origin })).status, 200);
    const unauthenticated = await mcp.post('evk_unknown', { jsonrpc: '2.0', id: 9, method: 'ping' });
    const problem = mcp.rpcError(unauthenticated, 401, -32001, 'invalid-api-key');
    assert.equal(problem.retryable, false);
    assert.equal(problem.detail, 'The API key is not valid: it is unknown or has been revoked.', 'a key was sent: no how-to');
    assert.equal(unauthenticated.headers['www-authenticate'], 'Bearer');
  });

  it('when tools are listed, then a key sees only the tools of its scopes, each schema closed to unknown arguments', async () => {
    const names = async (scopes: string[]) => {
      const { key } = await corpus.account(0, scopes);
      const listed = await mcp.post(key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      assert.equal(listed.status, 200, listed.text);
      return listed.json.result.tools as { name: string; description: string; inputSchema: any }[];
    };
    assert.deepEqual(
      (await names(['SENSORS_WRITE'])).map((t) => t.name),
      [],
    );
    assert.deepEqual(
      (await names(['EVENTS_READ'])).map((t) => t.name),
      ['search_events', 'search_events_continue', 'get_event'],
    );
    assert.deepEqual(
      (await names(['BEATS_READ'])).map((t) => t.name),
      ['list_beats', 'get_beat', 'get_beat_entries', 'get_beat_entries_continue'],
    );
    const tools = await names(ALL_SCOPES);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_events', 'search_events_continue', 'get_event', 'list_beats', 'get_beat', 'create_beat', 'get_beat_entries', 'get_beat_entries_continue'],
    );
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      assert.ok(tool.description.length > 60, tool.name);
      assert.ok(!JSON.stringify(tool.inputSchema).includes('"$id"'), tool.name);
    }
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema]));
    assert.deepEqual(byName.get('search_events').required, ['lookback_days']);
    assert.equal(byName.get('search_events').properties.cursor, undefined);
    assert.deepEqual(Object.keys(byName.get('search_events_continue').properties).sort(), ['cursor', 'limit']);
    assert.deepEqual(byName.get('search_events_continue').required, ['cursor']);
    assert.deepEqual(byName.get('get_beat_entries_continue').required, ['beat_id', 'cursor']);
    assert.equal(byName.get('create_beat').properties.spend_cap_credits, undefined);
    assert.deepEqual(byName.get('get_beat').required, ['beat_id']);
  });

  it('when a call names an unknown tool, a tool out of its scope, or bad arguments, then it is refused before dispatch', async () => {
    const { id: accountId, key } = await corpus.account(5, ['EVENTS_READ']);
    mcp.rpcError(await mcp.call(key, 'delete_everything', {}), 400, -32602, 'validation-failed');
    mcp.rpcError(await mcp.call(key, 'list_beats', {}), 403, -32001, 'missing-scope');
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_events', {}, '/lookback_days'],
      ['search_events', { lookback_days: 30, cursor: 'abc' }, '/cursor'],
      ['search_events', { lookback_days: 31 }, '/lookback_days'],
      ['search_events_continue', { cursor: 'abc', lookback_days: 30 }, '/lookback_days'],
      ['search_events_continue', { limit: 5 }, '/cursor'],
    ];
    for (const [tool, args, pointer] of cases) {
      const problem = mcp.rpcError(await mcp.call(key, tool, args), 400, -32602, 'validation-failed');
      assert.ok(
        problem.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${tool} ${JSON.stringify(args)}: ${JSON.stringify(problem.errors)}`,
      );
    }
    assert.equal(await corpus.balance(accountId), 5, 'nothing refused was charged');
  });

  it('when search_events runs, then it charges once and answers the REST envelope; continue is free and does not carry limit over', async () => {
    const { id: accountId, key } = await corpus.account(5, ['EVENTS_READ']);
    const first = await mcp.result(key, 'search_events', { lookback_days: 7, event_type_id: typeId, limit: 2 });
    assert.equal(first.object, 'search_result');
    assert.equal(first.data.length, 2);
    assert.equal(first.total_count, 50);
    assert.equal(first.data[0].object, 'event');
    assert.equal(await corpus.balance(accountId), 4);
    const next = await mcp.result(key, 'search_events_continue', { cursor: first.next_cursor });
    assert.equal(next.data.length, 20, "the default page size, not the first call's 2");
    assert.equal(next.execution_id, first.execution_id);
    const last = await mcp.result(key, 'search_events_continue', { cursor: next.next_cursor, limit: 50 });
    assert.equal(last.data.length, 28);
    assert.equal(last.has_more, false);
    assert.equal(await corpus.balance(accountId), 4);
  });

  it('when a page of 50 events is answered, then its text stays compact (well under 25,000 tokens)', async () => {
    const { key } = await corpus.account(5, ['EVENTS_READ']);
    const page = await mcp.call(key, 'search_events', { lookback_days: 7, event_type_id: typeId, limit: 50 });
    const text = page.json.result.content[0].text as string;
    assert.equal(JSON.parse(text).data.length, 50);
    // About 4 characters a token for JSON: 60,000 characters is some 15,000 tokens.
    assert.ok(text.length < 60_000, `${text.length} characters`);
    assert.ok(!text.includes('\n'), 'no pretty-printing');
  });

  it('when a tool runs and fails, then HTTP 200 with isError and the problem under error, with its verdict', async () => {
    const { key } = await corpus.account(0, ['EVENTS_READ', 'BEATS_READ']);
    const broke = mcp.toolError(await mcp.call(key, 'search_events', { lookback_days: 7 }), 'insufficient-credits');
    assert.equal(broke.retryable, false);
    assert.equal(broke.status, 402);
    const missing = mcp.toolError(await mcp.call(key, 'get_beat', { beat_id: '01900000-0000-7000-8000-000000000000' }), 'not-entitled');
    assert.equal(missing.code, 'FORBIDDEN');
  });

  it('when an argument is bad in a way only the service sees (a bad cursor, a window without its end), then it is a -32602 refusal too', async () => {
    const { key } = await corpus.account(0, ['EVENTS_READ', 'BEATS_READ'], 'standard', { beats: true });
    mcp.rpcError(await mcp.call(key, 'search_events_continue', { cursor: 'not-a-cursor' }), 400, -32602, 'validation-failed');
    const noEnd = mcp.rpcError(
      await mcp.call(key, 'get_beat_entries', { beat_id: '01900000-0000-7000-8000-000000000000', from: NOW }),
      400,
      -32602,
      'validation-failed',
    );
    assert.ok(noEnd.errors.length > 0);
  });

  it('when a call is retried byte for byte under one Idempotency-Key, then it charges once and replays; another id under the key is 422; no key charges twice', async () => {
    const { id: accountId, key } = await corpus.account(10, ['EVENTS_READ']);
    const body = { jsonrpc: '2.0', id: 'search-1', method: 'tools/call', params: { name: 'search_events', arguments: { lookback_days: 7 } } };
    const idempotencyKey = `mcp-${unique()}`;
    const first = await mcp.post(key, body, { 'idempotency-key': idempotencyKey });
    const again = await mcp.post(key, body, { 'idempotency-key': idempotencyKey });
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.text, first.text);
    assert.equal(await corpus.balance(accountId), 9);
    mcp.rpcError(await mcp.post(key, { ...body, id: 'search-2' }, { 'idempotency-key': idempotencyKey }), 422, -32001, 'idempotency-key-conflict');
    // Keys do not cross transports: the same key on REST is another request.
    const rest = await server.http.request('POST', '/v1/events/search', {
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      body: { lookback_days: 7 },
    });
    assert.equal(rest.status, 422, rest.text);
    await mcp.post(key, body);
    await mcp.post(key, body);
    assert.equal(await corpus.balance(accountId), 7);
  });

  it('when the insufficient-credits call had a key, then the key is released and the same call runs once credits arrive', async () => {
    const { id: accountId, key } = await corpus.account(0, ['EVENTS_READ']);
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_events', arguments: { lookback_days: 7 } } };
    const idempotencyKey = `broke-${unique()}`;
    mcp.toolError(await mcp.post(key, body, { 'idempotency-key': idempotencyKey }), 'insufficient-credits');
    await corpus.ops('POST', `/accounts/${accountId}/credits`, { amount: 1 });
    const paid = await mcp.post(key, body, { 'idempotency-key': idempotencyKey });
    assert.equal(paid.json.result.isError, undefined, paid.text);
    assert.equal(paid.headers['idempotency-replayed'], undefined);
    assert.equal(await corpus.balance(accountId), 0);
  });

  it('when a call with the same Idempotency-Key is still running, then 409 idempotency-in-flight, retryable under a new key', async () => {
    const { key, id: accountId } = await corpus.account(5, ['EVENTS_READ']);
    const keyId = (await server.runtime.db.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1', [accountId]))[0]!.id;
    const body = { jsonrpc: '2.0', id: 'running', method: 'tools/call', params: { name: 'search_events', arguments: { lookback_days: 7 } } };
    const idempotencyKey = `running-${unique()}`;
    await claimAsRunning(server.runtime, { apiKeyId: keyId, key: idempotencyKey, transport: 'mcp', path: '/mcp', body, billed: true });
    const problem = mcp.rpcError(await mcp.post(key, body, { 'idempotency-key': idempotencyKey }), 409, -32001, 'idempotency-in-flight');
    assert.equal(problem.retryable, true);
    assert.match(problem.guidance, /new Idempotency-Key/);
  });

  it('when the MCP budget is spent, then 429 as a JSON-RPC error with Retry-After, and the REST budget is untouched', async () => {
    const plan = `mcp_${unique()}`;
    assert.equal((await corpus.ops('PUT', `/plans/${plan}`, { ...STANDARD_PLAN_FIELDS, mcp_requests_per_minute: 2 })).status, 200);
    const { key } = await corpus.account(0, ['EVENTS_READ'], plan);
    for (let i = 0; i < 2; i++) assert.equal((await mcp.post(key, { jsonrpc: '2.0', id: i, method: 'ping' })).status, 200);
    const limited = await mcp.post(key, { jsonrpc: '2.0', id: 3, method: 'ping' });
    const problem = mcp.rpcError(limited, 429, -32001, 'rate-limited');
    assert.equal(problem.retryable, true);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.headers['ratelimit-limit'], '2');
    const rest = await server.http.request('GET', '/v1/event-types', { headers: { authorization: `Bearer ${key}` } });
    assert.notEqual(rest.status, 429);
    assert.equal(rest.headers['ratelimit-limit'], '60');
  });

  it('when beats are used over MCP, then create_beat (no spend cap argument), list_beats, get_beat and entries work as over REST', async () => {
    const { key } = await corpus.account(100, ['BEATS_READ', 'BEATS_WRITE'], 'standard', { beats: true });
    mcp.rpcError(
      await mcp.call(key, 'create_beat', { name: 'Watch', clauses: [{ event_type_id: typeId }], spend_cap_credits: 5 }),
      400,
      -32602,
      'validation-failed',
    );
    const beat = await mcp.result(key, 'create_beat', { name: 'Watch', clauses: [{ event_type_id: typeId }] });
    assert.equal(beat.object, 'beat');
    assert.equal(beat.spend_cap_credits, STANDARD_PLAN_FIELDS.default_spend_cap_credits);
    await server.ops.post('/drain'); // the backfill
    assert.deepEqual(
      (await mcp.result(key, 'list_beats', {})).data.map((b: { id: string }) => b.id),
      [beat.id],
    );
    assert.equal((await mcp.result(key, 'get_beat', { beat_id: beat.id })).id, beat.id);
    const page = await mcp.result(key, 'get_beat_entries', { beat_id: beat.id, since: '', limit: 10 });
    assert.equal(page.object, 'beat_entries');
    assert.equal(page.data.length, 10);
    const rest = await mcp.result(key, 'get_beat_entries_continue', { beat_id: beat.id, cursor: page.next_cursor });
    assert.equal(rest.data.length, 20, "the default page of 20, not the first call's 10");
    mcp.rpcError(await mcp.call(key, 'get_beat_entries', { beat_id: beat.id, since: '', cursor: page.next_cursor }), 400, -32602, 'validation-failed');
  });
});
