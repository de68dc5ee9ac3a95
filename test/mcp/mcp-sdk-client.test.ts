// The official MCP SDK's client against the endpoint: connect, list tools, search and page,
// read beat entries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { envelope, sdkClients, type SdkClients } from '../helpers/mcp-sdk.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

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
        ['search_events', 'search_events_continue'],
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
});
