// The matching face of the filter vocabulary: against events ingested over HTTPS into a real
// database, and (property-based) the index against checking every filter.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { databaseEntityResolver } from '../../src/modules/filters/entity-resolver.js';
import { loadEventFacts, type EventFacts } from '../../src/modules/filters/event-facts.js';
import { compileFilter, normalizeFilter, type CompiledFilter, type EventFilter } from '../../src/modules/filters/filter.js';
import { FilterIndex, matchesFilter } from '../../src/modules/filters/matching.js';
import { roleList } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const token = () => Math.random().toString(36).slice(2, 10);

describe('filter matching against ingested events', () => {
  let server: TestServer;
  let typeId: string;
  let otherTypeId: string;
  let outletA: string;
  let outletB: string;
  const ops = async (method: string, path: string, body?: unknown) => {
    const response = await server.http.request(method, `/ops/v1${path}`, { headers: bearer(OPS_TOKEN), ...(body === undefined ? {} : { body }) });
    assert.ok(response.status < 300, response.text);
    return response.json;
  };
  const entity = async (name = `E ${token()}`) => (await ops('POST', '/entities', { name })).id as string;
  const facts = async (eventId: string) => (await loadEventFacts(server.runtime.db, eventId, null))!;
  const compile = (filter: Partial<EventFilter>) => compileFilter(normalizeFilter(filter), databaseEntityResolver(server.runtime.db));
  const matches = async (filter: Partial<EventFilter>, event: EventFacts) => matchesFilter(await compile(filter), event);

  let buyer: string;
  let seller: string;
  let analyst: string;
  let eventId: string;

  before(async () => {
    server = await startServer();
    typeId = (
      await ops('POST', '/event-types', {
        code_name: `deal_${token()}`,
        name: 'Deal',
        description: '',
        roles: roleList({ buyer: 'NAMED_ENTITY', seller: 'NAMED_ENTITY', price: 'CURRENCY', closing: 'DATE' }),
        sentence_template: '{buyer} bought from {seller}',
      })
    ).id;
    otherTypeId = (await ops('POST', '/event-types', { code_name: `other_${token()}`, name: 'Other', description: '', roles: [], sentence_template: 'x' })).id;
    outletA = (await ops('POST', '/outlets', { name: 'A' })).id;
    outletB = (await ops('POST', '/outlets', { name: 'B' })).id;
    buyer = await entity();
    seller = await entity();
    analyst = await entity();
    const first = await ops('POST', '/articles', {
      outlet_id: outletA,
      event_type_id: typeId,
      roles: [
        { role: 'buyer', entity_id: buyer },
        { role: 'seller', entity_id: seller },
        { role: 'price', amount: { value: 250, unit: 'USD' } },
        { role: 'closing', date: '2026-12-01' },
      ],
      mentioned_entity_ids: [analyst],
    });
    eventId = first.incident_id;
  });
  after(() => server.close());

  it('when filters name entities, then MENTIONED matches any involved entity and PARTICIPANT only role players', async () => {
    const event = await facts(eventId);
    assert.equal(await matches({ involved_entity_ids: [analyst] }, event), true);
    assert.equal(await matches({ involved_entity_ids: [analyst], scope: 'PARTICIPANT' }, event), false);
    assert.equal(await matches({ involved_entity_ids: [seller], scope: 'PARTICIPANT' }, event), true);
    assert.equal(await matches({ involved_entity_ids: [await entity()] }, event), false);
  });

  it('when filters name lists or merged-away entities, then they match through members and survivors', async () => {
    const list = await ops('POST', '/entity-lists', { name: 'L', entity_ids: [await entity(), buyer] });
    const event = await facts(eventId);
    assert.equal(await matches({ involved_entity_list_ids: [list.id] }, event), true);
    const alias = await entity();
    await ops('POST', `/entities/${alias}/merge`, { into_entity_id: seller });
    assert.equal(await matches({ involved_entity_ids: [alias] }, await facts(eventId)), true, 'a merged-away id means its survivor');
  });

  it('when filters combine type, outlets, min_reports and role filters, then fields AND and ids within a field OR', async () => {
    let event = await facts(eventId);
    assert.equal(await matches({ event_type_id: typeId, involved_entity_ids: [buyer] }, event), true);
    assert.equal(await matches({ event_type_id: otherTypeId, involved_entity_ids: [buyer] }, event), false);
    assert.equal(await matches({ required_source_news_outlet_ids: [outletB, outletA] }, event), true);
    assert.equal(await matches({ required_source_news_outlet_ids: [outletB] }, event), false);
    assert.equal(await matches({ event_type_id: typeId, min_reports: 2 }, event), false);
    await ops('POST', '/articles', { outlet_id: outletB, event_type_id: typeId, incident_id: eventId, roles: [{ role: 'buyer', entity_id: buyer }] });
    await ops('POST', '/articles', { outlet_id: outletB, event_type_id: typeId, incident_id: eventId, roles: [{ role: 'buyer', entity_id: buyer }] });
    event = await facts(eventId);
    assert.equal(await matches({ event_type_id: typeId, min_reports: 2 }, event), true);
    assert.equal(await matches({ event_type_id: typeId, min_reports: 3 }, event), false, 'distinct outlets, not reports');

    const role = (rf: EventFilter['role_filters'][number]) => matches({ event_type_id: typeId, role_filters: [rf] }, event);
    assert.equal(await role({ kind: 'amount_gte', role_code_name: 'price', min_value: 200, unit: 'usd' }), true, 'units compare case-insensitively');
    assert.equal(await role({ kind: 'amount_gte', role_code_name: 'price', min_value: 200, unit: 'EUR' }), false);
    assert.equal(await role({ kind: 'amount_lte', role_code_name: 'price', max_value: 249.99 }), false);
    assert.equal(await role({ kind: 'date_after', role_code_name: 'closing', after_iso: '2026-11-30T00:00:00Z' }), true);
    assert.equal(await role({ kind: 'date_before', role_code_name: 'closing', before_iso: '2026-12-01T00:00:00Z' }), false);
    assert.equal(await role({ kind: 'entity_in', role_code_name: 'seller', canonical_ids: [seller] }), true);
    assert.equal(await role({ kind: 'entity_in', role_code_name: 'buyer', canonical_ids: [seller] }), false);
    assert.equal(await matches({ event_type_id: typeId, report_source_kind: 'USER_REPORTS_ONLY' }, event), false);
    assert.equal(await matches({ event_type_id: typeId, report_source_kind: 'ARTICLES_ONLY' }, event), true);
  });

  it('when an event is merged away or deleted, then no filter matches it', async () => {
    const who = await entity();
    const a = await ops('POST', '/articles', { outlet_id: outletA, event_type_id: typeId, roles: [{ role: 'buyer', entity_id: who }] });
    assert.equal(await matches({ involved_entity_ids: [who] }, await facts(a.incident_id)), true);
    await ops('DELETE', `/events/${a.incident_id}`);
    assert.equal(await matches({ involved_entity_ids: [who] }, await facts(a.incident_id)), false);
  });

  it('when filters are indexed, then an event finds exactly the filters it satisfies', async () => {
    const index = new FilterIndex();
    index.set('by-entity', await compile({ involved_entity_ids: [buyer] }));
    index.set('by-type', await compile({ event_type_id: typeId }));
    index.set('by-outlet', await compile({ required_source_news_outlet_ids: [outletB] }));
    index.set('other-type', await compile({ event_type_id: otherTypeId }));
    index.set('other-entity', await compile({ involved_entity_ids: [await entity()] }));
    assert.deepEqual(index.match(await facts(eventId)).sort(), ['by-entity', 'by-outlet', 'by-type']);
    index.delete('by-type');
    assert.deepEqual(index.match(await facts(eventId)).sort(), ['by-entity', 'by-outlet']);
  });
});

describe('filter index', () => {
  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const entities = ids('e', 8);
  const types = ids('t', 3);
  const outlets = ids('o', 3);
  const subset = (pool: string[]) => fc.subarray(pool, { maxLength: 3 });

  const filterArb: fc.Arbitrary<CompiledFilter> = fc.record({
    eventTypeId: fc.option(fc.constantFrom(...types), { nil: null }),
    entities: fc.option(subset(entities).filter((a) => a.length > 0).map((a) => new Set(a)), { nil: null }),
    scope: fc.constantFrom('MENTIONED' as const, 'PARTICIPANT' as const),
    outlets: fc.option(subset(outlets).filter((a) => a.length > 0).map((a) => new Set(a)), { nil: null }),
    sourceKind: fc.constantFrom('ANY' as const, 'ARTICLES_ONLY' as const, 'USER_REPORTS_ONLY' as const),
    represented: fc.constant(null),
    minReports: fc.integer({ min: 1, max: 3 }),
    roleFilters: fc.constant([]),
  });
  const eventArb: fc.Arbitrary<EventFacts> = fc.record({
    eventId: fc.constant('ev'),
    eventTypeId: fc.constantFrom(...types),
    live: fc.boolean(),
    involved: subset(entities).map((a) => new Set(a)),
    participants: fc.constant(new Set<string>()),
    reports: fc.array(
      fc.record({
        sourceKind: fc.constantFrom('ARTICLE' as const, 'STRUCTURED' as const),
        outletId: fc.constantFrom(...outlets),
        represented: fc.constant(new Set<string>()),
        values: fc.constant([]),
      }).map((r) => ({ ...r, sourceId: r.outletId, outletId: r.sourceKind === 'ARTICLE' ? r.outletId : null })),
      { maxLength: 4 },
    ),
  }).map((event) => ({ ...event, participants: new Set([...event.involved].filter((_, i) => i % 2 === 0)) }));

  it('when any filters and any event are drawn, then the index answers what checking every filter answers', () => {
    fc.assert(
      fc.property(fc.array(filterArb, { maxLength: 40 }), eventArb, (filters, event) => {
        const index = new FilterIndex();
        filters.forEach((filter, i) => index.set(`f${i}`, filter));
        const expected = filters.flatMap((filter, i) => (matchesFilter(filter, event) ? [`f${i}`] : []));
        assert.deepEqual(index.match(event).sort(), expected.sort());
      }),
      { numRuns: 500 },
    );
  });

  it('when filters are replaced and deleted after being set, then the index answers for those that remain', () => {
    fc.assert(
      fc.property(fc.array(filterArb, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 30 }), filterArb, eventArb, (filters, drops, replacement, event) => {
        const index = new FilterIndex();
        const live = new Map(filters.map((filter, i) => [`f${i}`, filter]));
        live.forEach((filter, id) => index.set(id, filter));
        for (const drop of drops) {
          const id = `f${drop % filters.length}`;
          if (drop % 3 === 0) {
            index.set(id, replacement);
            live.set(id, replacement);
          } else {
            index.delete(id);
            live.delete(id);
          }
        }
        const expected = [...live].flatMap(([id, filter]) => (matchesFilter(filter, event) ? [id] : []));
        assert.deepEqual(index.match(event).sort(), expected.sort());
      }),
      { numRuns: 500 },
    );
  });
});
