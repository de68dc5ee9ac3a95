import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const at = (hours: number) => new Date(Date.parse(NOW) - hours * 3_600_000).toISOString();

describe('event search filters', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let key: string;
  let type: { id: string };
  const e: Record<string, string> = {}; // events
  const n: Record<string, string> = {}; // entities
  const o: Record<string, string> = {}; // outlets
  const l: Record<string, string> = {}; // entity lists

  /** The names of the events a search with these filter fields finds (within the test type). */
  async function found(filter: Record<string, unknown>): Promise<string[]> {
    const response = await server.http.request('POST', '/v1/events/search', {
      headers: bearer(key),
      body: { lookback_days: 7, event_type_id: type.id, limit: 50, ...filter },
    });
    assert.equal(response.status, 200, response.text);
    const names = Object.fromEntries(Object.entries(e).map(([name, id]) => [id, name]));
    assert.equal(response.json.total_count, response.json.data.length);
    return response.json.data.map((event: { id: string }) => names[event.id] ?? event.id).sort();
  }

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
    type = await corpus.eventType({ party: 'NAMED_ENTITY', price: 'CURRENCY', weight: 'WEIGHT', closing: 'DATE' });
    for (const name of ['o1', 'o2', 'o3']) o[name] = await corpus.outlet();
    for (const name of ['a', 'b', 'c', 'x', 'gone', 'm']) n[name] = await corpus.entity();
    const account = await corpus.account(1000);
    key = account.key;
    const report = (outlet: string, hours: number, roles: unknown[], extra: Record<string, unknown> = {}) =>
      corpus.article({ outlet_id: o[outlet], event_type_id: type.id, published_at: at(hours), received_at: at(hours), roles, ...extra });

    e.e1 = await report('o1', 5, [
      { role: 'party', entity_id: n.a },
      { role: 'price', amount: { value: 100, unit: 'USD' } },
      { role: 'closing', date: '2026-11-01' },
    ]);
    await report('o2', 4, [{ role: 'party', entity_id: n.a }], { incident_id: e.e1 });
    e.e2 = await report(
      'o1',
      3,
      [
        { role: 'party', entity_id: n.b },
        { role: 'price', amount: { value: 500, unit: 'EUR' } },
        { role: 'weight', amount: { value: 20, unit: 'kg' } },
      ],
      { mentioned_entity_ids: [n.c] },
    );
    e.e3 = await report('o3', 2, [
      { role: 'party', entity_id: n.c },
      { role: 'closing', date: '2026-12-01' },
    ]);
    await report('o3', 1, [{ role: 'party', entity_id: n.c }], { incident_id: e.e3 });
    e.e4 = await report('o1', 1, [{ role: 'party', entity_id: n.gone }]);
    // Two reports of one event that disagree on the weight: 4.1 kg and 7.5 kg.
    e.e5 = await report('o1', 6, [
      { role: 'party', entity_id: n.m },
      { role: 'weight', amount: { value: 4.1, unit: 'kg' } },
    ]);
    await report(
      'o1',
      5,
      [
        { role: 'party', entity_id: n.m },
        { role: 'weight', amount: { value: 7.5, unit: 'kg' } },
      ],
      { incident_id: e.e5 },
    );

    // x is merged into a: filters naming x mean a. "gone" is deleted: it matches nothing.
    assert.equal((await corpus.ops('POST', `/entities/${n.x}/merge`, { into_entity_id: n.a })).status, 200);
    assert.equal((await corpus.ops('DELETE', `/entities/${n.gone}`)).status, 204);
    l.own = (await corpus.ops('POST', '/entity-lists', { name: 'own', owner_account_id: account.id, entity_ids: [n.b] })).json.id;
    l.public = (await corpus.ops('POST', '/entity-lists', { name: 'public', owner_account_id: null, entity_ids: [n.x] })).json.id;
    await server.ops.post('/drain');
  });
  after(() => server.close());

  it('when no filter narrows the type, then every live event of it is found', async () => {
    assert.deepEqual(await found({}), ['e1', 'e2', 'e3', 'e4', 'e5']);
  });

  it('when entities are named, then ids and lists form one set, merged-away ids mean their survivor, deleted ones match nothing', async () => {
    assert.deepEqual(await found({ involved_entity_ids: [n.x] }), ['e1']);
    assert.deepEqual(await found({ involved_entity_ids: [n.c] }), ['e2', 'e3'], 'mentioned entities count');
    assert.deepEqual(await found({ involved_entity_list_ids: [l.own] }), ['e2']);
    assert.deepEqual(await found({ involved_entity_list_ids: [l.public] }), ['e1']);
    assert.deepEqual(await found({ involved_entity_ids: [n.c], involved_entity_list_ids: [l.public] }), ['e1', 'e2', 'e3']);
    assert.deepEqual(await found({ involved_entity_ids: [n.gone] }), []);
  });

  it('when outlets or min_reports are given, then at least one report from those outlets and enough distinct outlets', async () => {
    assert.deepEqual(await found({ required_source_news_outlet_ids: [o.o2] }), ['e1']);
    assert.deepEqual(await found({ required_source_news_outlet_ids: [o.o2, o.o3] }), ['e1', 'e3']);
    assert.deepEqual(await found({ min_reports: 2 }), ['e1'], 'e3 has two reports from one outlet');
    assert.deepEqual(await found({ min_reports: 3 }), []);
    assert.deepEqual(await found({ involved_entity_ids: [n.c], min_reports: 2 }), []);
  });

  it('when role filters are given, then each holds on some report, units compare case-insensitively, date bounds are exclusive', async () => {
    const rf = (...filters: unknown[]) => found({ role_filters: filters });
    assert.deepEqual(await rf({ kind: 'amount_gte', role_code_name: 'price', min_value: 200 }), ['e2']);
    assert.deepEqual(await rf({ kind: 'amount_gte', role_code_name: 'price', min_value: 50, unit: 'usd' }), ['e1']);
    assert.deepEqual(await rf({ kind: 'amount_lte', role_code_name: 'price', max_value: 500 }), ['e1', 'e2']);
    assert.deepEqual(await rf({ kind: 'amount_lte', role_code_name: 'price', max_value: 500, unit: 'GBP' }), []);
    assert.deepEqual(await rf({ kind: 'amount_gte', role_code_name: 'weight', min_value: 20, unit: 'KG' }), ['e2']);
    assert.deepEqual(await rf({ kind: 'date_after', role_code_name: 'closing', after_iso: '2026-11-01T00:00:00Z' }), ['e3']);
    assert.deepEqual(await rf({ kind: 'date_after', role_code_name: 'closing', after_iso: '2026-10-31T23:59:59.999Z' }), ['e1', 'e3']);
    assert.deepEqual(await rf({ kind: 'date_before', role_code_name: 'closing', before_iso: '2026-11-15T00:00:00+02:00' }), ['e1']);
    assert.deepEqual(await rf({ kind: 'entity_in', role_code_name: 'party', canonical_ids: [n.x] }), ['e1']);
    assert.deepEqual(await rf({ kind: 'entity_in', role_code_name: 'party', entity_list_ids: [l.own] }), ['e2']);
    assert.deepEqual(await rf({ kind: 'entity_in', role_code_name: 'party', canonical_ids: [n.c] }), ['e3'], 'a mention is not a role value');
    assert.deepEqual(await rf({ kind: 'entity_in', role_code_name: 'party' }), [], 'an empty entity set matches nothing');
    assert.deepEqual(
      await rf(
        { kind: 'amount_gte', role_code_name: 'price', min_value: 50 },
        { kind: 'date_before', role_code_name: 'closing', before_iso: '2026-11-15T00:00:00Z' },
      ),
      ['e1'],
      'role filters combine with AND',
    );
  });

  it('when two role filters name one role, then one value must satisfy both: a range is never split across reports', async () => {
    const range = (min: number, max: number, unit?: string) =>
      found({
        role_filters: [
          { kind: 'amount_gte', role_code_name: 'weight', min_value: min, ...(unit ? { unit } : {}) },
          { kind: 'amount_lte', role_code_name: 'weight', max_value: max },
        ],
      });
    assert.deepEqual(await range(7, 6.9), [], 'one report says 4.1, another 7.5: nothing lies in an empty range');
    assert.deepEqual(await range(5, 7), [], 'neither value lies between 5 and 7');
    assert.deepEqual(await range(7, 8), ['e5']);
    assert.deepEqual(await range(4, 5, 'KG'), ['e5']);
    assert.deepEqual(await range(4, 5, 'lb'), []);
    const dates = (after: string, before: string) =>
      found({
        role_filters: [
          { kind: 'date_after', role_code_name: 'closing', after_iso: after },
          { kind: 'date_before', role_code_name: 'closing', before_iso: before },
        ],
      });
    assert.deepEqual(await dates('2026-10-15T00:00:00Z', '2026-11-15T00:00:00Z'), ['e1']);
    assert.deepEqual(await dates('2026-11-15T00:00:00Z', '2026-11-20T00:00:00Z'), []);
    // Filters on different roles may still be met by different reports.
    assert.deepEqual(
      await found({
        role_filters: [
          { kind: 'entity_in', role_code_name: 'party', canonical_ids: [n.m] },
          { kind: 'amount_gte', role_code_name: 'weight', min_value: 7 },
        ],
      }),
      ['e5'],
    );
  });
});
