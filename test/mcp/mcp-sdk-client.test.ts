// The official MCP SDK's client against the endpoint, as a model's host meets it: connect, list
// tools, search and page, read beat entries; the discovery tools, titles, annotations and
// instructions, the size of tools/list, arguments still validated as strictly as their REST
// schemas, and an unusable entity list in search_events as a tool that ran and failed, with
// nothing charged (decisions.md, 2026-11-25).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { envelope, refusal, sdkClients, type SdkClients } from '../helpers/mcp-sdk.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const EVERY_SCOPE = ['SENSORS_READ', 'SENSORS_WRITE', 'EVENTS_READ', 'REPORTS_READ', 'REPORTS_WRITE', 'BEATS_READ', 'BEATS_WRITE'];
const ENTITLED = { structured_reporting: true, beats: true };
const BAD_ARGUMENT = -32602;
const REFUSED = -32001;
const READS = { readOnlyHint: true, openWorldHint: false };
const SPENDS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

describe('MCP with the official SDK client', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let clients: SdkClients;
  let typeId: string;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    clients = sdkClients(server);
    await server.ops.post('/clock', { now: NOW });
    typeId = (await corpus.eventType()).id;
    const outlet = await corpus.outlet();
    for (let i = 0; i < 5; i++) {
      await corpus.article({
        outlet_id: outlet,
        event_type_id: typeId,
        published_at: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
      });
    }
  });
  after(async () => {
    await clients.close();
    await server.close();
  });

  const connect = (key: string) => clients.connect(key);

  it('when the SDK client connects, then it negotiates a served version, lists the tools of its key, searches and pages', async () => {
    const { key } = await corpus.account(3, ['EVENTS_READ']);
    const client = await connect(key);
    try {
      assert.equal(client.getServerVersion()?.name, 'event-monitoring-api');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['search_events', 'search_events_continue', 'get_event'],
      );
      const first = envelope(await client.callTool({ name: 'search_events', arguments: { lookback_days: 7, event_type_id: typeId, limit: 3 } }));
      assert.equal(first.data.length, 3);
      assert.equal(first.total_count, 5);
      const next = envelope(await client.callTool({ name: 'search_events_continue', arguments: { cursor: first.next_cursor } }));
      assert.equal(next.data.length, 2);
      assert.equal(next.has_more, false);
      // Refused as bad arguments: the SDK raises the JSON-RPC error.
      await assert.rejects(client.callTool({ name: 'search_events', arguments: { lookback_days: 8 } }), /lookback_days/);
      await assert.rejects(client.callTool({ name: 'search_events_continue', arguments: { cursor: 'garbage' } }), /cursor/);
      await client.ping();
    } finally {
      await client.close();
    }
  });

  it('when the SDK client reads beat entries, then it creates a beat and polls its entries', async () => {
    const { key } = await corpus.account(100, ['BEATS_READ', 'BEATS_WRITE'], 'standard', { beats: true });
    const client = await connect(key);
    try {
      const beat = envelope(await client.callTool({ name: 'create_beat', arguments: { name: 'SDK watch', clauses: [{ event_type_id: typeId }] } }));
      await server.ops.post('/drain');
      const entries = envelope(await client.callTool({ name: 'get_beat_entries', arguments: { beat_id: beat.id, last: '7d' } }));
      assert.equal(entries.object, 'beat_entries');
      assert.equal(entries.total_count, 5);
      assert.equal(entries.data.length, 5);
    } finally {
      await client.close();
    }
  });

  /** Runs `use` with a client connected under `key`, closing it after. */
  async function withClient<T>(key: string, use: (client: Client) => Promise<T>): Promise<T> {
    const client = await clients.connect(key);
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }
  const rest = async (key: string, path: string) => {
    const answer = await server.http.request('GET', `/v1${path}`, { headers: bearer(key) });
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };

  it('when a key with every scope lists the tools, then ten, each with a title and the annotations of decisions.md, a type on every string with a format, in at most 7 KB', async () => {
    const { key } = await corpus.account(0, EVERY_SCOPE, 'standard', ENTITLED);
    await withClient(key, async (client) => {
      const listed = await client.listTools();
      const { tools } = listed;
      assert.deepEqual(
        tools.map((tool) => tool.name),
        [
          'search_events',
          'search_events_continue',
          'get_event',
          'list_event_types',
          'search_entities',
          'list_beats',
          'get_beat',
          'create_beat',
          'get_beat_entries',
          'get_beat_entries_continue',
        ],
      );
      for (const tool of tools) {
        assert.ok((tool.title ?? '').length > 0, `${tool.name} has a title`);
        assert.deepEqual(tool.annotations, ['search_events', 'create_beat'].includes(tool.name) ? SPENDS : READS, tool.name);
        assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      }
      // Hosts that turn tool schemas into their own function formats want a type beside a format.
      const formatsWithoutType: unknown[] = [];
      JSON.stringify(listed, (_key, value) => {
        if (typeof value?.format === 'string' && value.type === undefined) formatsWithoutType.push(value);
        return value;
      });
      assert.deepEqual(formatsWithoutType, []);
      assert.match(JSON.stringify(listed), /"type":"string","format":"uuid"/);
      const size = Buffer.byteLength(JSON.stringify(listed));
      assert.ok(size <= 7 * 1024, `tools/list is ${size} bytes`);
      // Where ids come from is said where they are needed.
      for (const name of ['search_events', 'create_beat']) {
        const description = tools.find((tool) => tool.name === name)!.description!;
        assert.match(description, /list_event_types/, name);
        assert.match(description, /search_entities/, name);
      }
      const instructions = client.getInstructions() ?? '';
      for (const word of ['list_event_types', 'search_entities', 'search_events_continue', 'charged once per call', 'free', 'create_beat', 'get_event']) {
        assert.ok(instructions.includes(word), `the instructions mention ${word}: ${instructions}`);
      }
    });
  });

  it('when the discovery tools run, then they answer what their REST twins answer, page like them, and charge nothing', async () => {
    const { id: accountId, key } = await corpus.account(5, ['REPORTS_READ']);
    const stem = `Zq${unique()}`;
    for (const name of [`Big ${stem}`, `${stem} Beta`, `${stem} Alpha`]) await corpus.entity(name);
    await withClient(key, async (client) => {
      const types = envelope(await client.callTool({ name: 'list_event_types', arguments: {} }));
      assert.deepEqual(types, await rest(key, '/event-types'));
      assert.ok(types.data.some((type: { id: string }) => type.id === typeId));

      const query = stem.toLowerCase();
      const first = envelope(await client.callTool({ name: 'search_entities', arguments: { query, limit: 2 } }));
      assert.deepEqual(first, await rest(key, `/entities/search?query=${query}&limit=2`));
      assert.deepEqual(
        first.data.map((entity: { name: string }) => entity.name),
        [`${stem} Beta`, `${stem} Alpha`], // names starting with the query first, then shorter names
      );
      assert.equal(first.has_more, true);
      const next = envelope(await client.callTool({ name: 'search_entities', arguments: { query, limit: 2, starting_after: first.next_cursor } }));
      assert.deepEqual(next, await rest(key, `/entities/search?query=${query}&limit=2&starting_after=${first.next_cursor}`));
      assert.deepEqual(
        next.data.map((entity: { name: string }) => entity.name),
        [`Big ${stem}`],
      );
      assert.equal(next.has_more, false);
      assert.equal(next.next_cursor, null);
      const whole = envelope(await client.callTool({ name: 'search_entities', arguments: { query } }));
      assert.deepEqual(whole, await rest(key, `/entities/search?query=${query}`));
      assert.equal(whole.data.length, 3);
    });
    assert.equal(await corpus.balance(accountId), 5, 'discovery is free');
  });

  it('when the discovery tools get bad arguments, then -32602 with the validation-failed problem, as REST answers 400', async () => {
    const { key } = await corpus.account(0, ['REPORTS_READ']);
    await withClient(key, async (client) => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['search_entities', {}, '/query'],
        ['search_entities', { query: '' }, '/query'],
        ['search_entities', { query: 'x'.repeat(201) }, '/query'],
        ['search_entities', { query: 'a', limit: 101 }, '/limit'],
        ['search_entities', { query: 'a', limit: 0 }, '/limit'],
        ['search_entities', { query: 'a', starting_after: 'not-a-uuid' }, '/starting_after'],
        ['search_entities', { query: 'a', page: 2 }, '/page'],
        ['list_event_types', { code_name: 'x' }, '/code_name'],
      ];
      for (const [name, args, pointer] of cases) {
        const error = await refusal(client.callTool({ name, arguments: args }), 400, BAD_ARGUMENT, 'validation-failed');
        assert.ok(
          error.data.errors.some((e: { pointer: string }) => e.pointer === pointer),
          `${name} ${JSON.stringify(args)}: ${JSON.stringify(error.data.errors)}`,
        );
      }
      // Well formed, but naming no entity: the service refuses it, as over REST.
      const nowhere = '01900000-0000-7000-8000-000000000000';
      assert.equal((await server.http.request('GET', `/v1/entities/search?query=a&starting_after=${nowhere}`, { headers: bearer(key) })).status, 400);
      await refusal(client.callTool({ name: 'search_entities', arguments: { query: 'a', starting_after: nowhere } }), 400, BAD_ARGUMENT, 'validation-failed');
    });
  });

  it('when a key lacks REPORTS_READ, then it does not see the discovery tools and calling one is 403 missing-scope', async () => {
    const { key } = await corpus.account(5, ['EVENTS_READ', 'BEATS_READ']);
    await withClient(key, async (client) => {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!names.includes('list_event_types') && !names.includes('search_entities'), names.join());
      await refusal(client.callTool({ name: 'list_event_types', arguments: {} }), 403, REFUSED, 'missing-scope');
      await refusal(client.callTool({ name: 'search_entities', arguments: { query: 'a' } }), 403, REFUSED, 'missing-scope');
    });
  });

  it('when an argument breaks the full schema but not the compact listing, then it is still refused with -32602', async () => {
    const { id: accountId, key } = await corpus.account(5, ['EVENTS_READ', 'BEATS_READ', 'BEATS_WRITE'], 'standard', ENTITLED);
    await withClient(key, async (client) => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['search_events', { lookback_days: 7, event_type_id: 'not-a-uuid' }, '/event_type_id'],
        // The `uuid` format alone would take this form; the id pattern does not.
        ['search_events', { lookback_days: 7, event_type_id: `urn:uuid:${typeId}` }, '/event_type_id'],
        ['search_events', { lookback_days: 7, involved_entity_ids: ['Apple'] }, '/involved_entity_ids/0'],
        ['search_events', { lookback_days: 7, involved_entity_ids: Array.from({ length: 501 }, () => typeId) }, '/involved_entity_ids'],
        // A member of another kind of role filter.
        [
          'search_events',
          { lookback_days: 7, role_filters: [{ kind: 'amount_gte', role_code_name: 'price', min_value: 1, after_iso: NOW }] },
          '/role_filters/0/after_iso',
        ],
        ['search_events', { lookback_days: 7, role_filters: [{ kind: 'amount_gte', role_code_name: 'price' }] }, '/role_filters/0/min_value'],
        ['get_beat', { beat_id: 'x' }, '/beat_id'],
        ['create_beat', { name: 'a\u0000b', clauses: [{ event_type_id: typeId }] }, '/name'],
        ['create_beat', { name: 'x'.repeat(121), clauses: [{ event_type_id: typeId }] }, '/name'],
        ['create_beat', { name: 'with an id', clauses: [{ id: typeId, event_type_id: typeId }] }, '/clauses/0/id'],
      ];
      for (const [name, args, pointer] of cases) {
        const error = await refusal(client.callTool({ name, arguments: args }), 400, BAD_ARGUMENT, 'validation-failed');
        assert.ok(
          error.data.errors.some((e: { pointer: string }) => e.pointer === pointer),
          `${name} ${JSON.stringify(args).slice(0, 200)}: ${JSON.stringify(error.data.errors)}`,
        );
      }
    });
    assert.equal(await corpus.balance(accountId), 5, 'nothing refused was charged');
  });

  it('when get_event reads an event, then it answers what GET /v1/events/{id} answers, free; a missing one is a tool error, not found', async () => {
    const { id: accountId, key } = await corpus.account(0, ['EVENTS_READ']);
    const eventId = await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: typeId,
      published_at: NOW,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    await withClient(key, async (client) => {
      const read = await client.callTool({ name: 'get_event', arguments: { event_id: eventId } });
      assert.notEqual(read.isError, true, JSON.stringify(read));
      assert.deepEqual(envelope(read), await rest(key, `/events/${eventId}`));
      assert.equal(envelope(read).revision, 1);
      const missing = await client.callTool({ name: 'get_event', arguments: { event_id: '00000000-0000-4000-8000-000000000000' } });
      assert.equal(missing.isError, true, JSON.stringify(missing));
      assert.equal(envelope(missing).error.type, `${server.docsUrl}/problems/not-found`);
      await assert.rejects(client.callTool({ name: 'get_event', arguments: { event_id: 'nope' } }), /event_id/);
    });
    assert.equal(await corpus.balance(accountId), 0, 'nothing charged (a zero balance reads events)');
  });

  it('when search_events names an entity list the account cannot use, then the tool ran and failed as create_beat does, and nothing is charged', async () => {
    const { id: accountId, key } = await corpus.account(5, ['EVENTS_READ', 'BEATS_READ', 'BEATS_WRITE'], 'standard', ENTITLED);
    const other = await corpus.account(0);
    const entity = await corpus.entity();
    const theirs = (await server.ops.post('/entity-lists', { name: 'Theirs', owner_account_id: other.id, entity_ids: [entity] })).id;
    const shared = (await server.ops.post('/entity-lists', { name: 'Public', entity_ids: [entity] })).id;
    const ledger = () => rest(key, '/account/credit-transactions');
    const ledgerBefore = await ledger();

    await withClient(key, async (client) => {
      const searched = await client.callTool({ name: 'search_events', arguments: { lookback_days: 7, involved_entity_list_ids: [shared, theirs] } });
      assert.equal(searched.isError, true, JSON.stringify(searched));
      const { error: fromSearch } = envelope(searched);
      const created = await client.callTool({ name: 'create_beat', arguments: { name: 'Watch', clauses: [{ involved_entity_list_ids: [theirs] }] } });
      assert.equal(created.isError, true, JSON.stringify(created));
      const { error: fromBeat } = envelope(created);

      assert.equal(fromSearch.type, `${server.docsUrl}/problems/entity-list-inaccessible`);
      assert.equal(fromSearch.status, 422);
      assert.equal(fromSearch.retryable, false);
      assert.match(fromSearch.detail, new RegExp(theirs));
      assert.doesNotMatch(fromSearch.detail, new RegExp(shared), 'a usable list is not named');
      // The same answer create_beat gives, member for member (the request and its time aside).
      const { request_id: _a, as_of: _b, ...searchProblem } = fromSearch;
      const { request_id: _c, as_of: _d, ...beatProblem } = fromBeat;
      assert.deepEqual(searchProblem, beatProblem);
      assert.deepEqual(Object.keys(fromSearch).sort(), Object.keys(fromBeat).sort());

      // Another bad argument in the same call is still a bad argument, told first.
      const nowhere = '01900000-0000-7000-8000-000000000000';
      await refusal(
        client.callTool({ name: 'search_events', arguments: { lookback_days: 7, event_type_id: nowhere, involved_entity_list_ids: [theirs] } }),
        400,
        BAD_ARGUMENT,
        'validation-failed',
      );
    });
    assert.equal(await corpus.balance(accountId), 5, 'nothing charged');
    assert.deepEqual(await ledger(), ledgerBefore, 'no ledger row');

    // A public list is usable: the search runs and is charged once.
    await withClient(key, async (client) => {
      const found = envelope(await client.callTool({ name: 'search_events', arguments: { lookback_days: 7, involved_entity_list_ids: [shared] } }));
      assert.equal(found.object, 'search_result');
    });
    assert.equal(await corpus.balance(accountId), 4);
  });
});
