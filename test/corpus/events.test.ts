import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventChange } from '../../src/modules/corpus/event-changes.js';
import { roleList } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const token = () => Math.random().toString(36).slice(2, 10);

describe('event pipeline', () => {
  let server: TestServer;
  let acquisition: { id: string; roles: { id: string; code_name: string }[] };
  let otherType: { id: string };
  let outletA: string;
  let outletB: string;
  // What the corpus handed to its subscribers: the payloads of the sensors' hand-off jobs.
  const published = async (): Promise<EventChange[]> =>
    (await server.runtime.db.query<{ payload: EventChange }>(`SELECT payload FROM jobs WHERE kind = 'corpus.event-changed:sensors' ORDER BY id`)).map(
      (row) => row.payload,
    );
  const ops = (method: string, path: string, body?: unknown) =>
    server.http.request(method, `/ops/v1${path}`, { headers: bearer(OPS_TOKEN), ...(body === undefined ? {} : { body }) });
  const entity = async (name: string, type: string | null = 'ORGANIZATION') => (await ops('POST', '/entities', { name, type })).json.id as string;
  const ingest = async (body: Record<string, unknown>) => {
    const response = await ops('POST', '/articles', { outlet_id: outletA, event_type_id: acquisition.id, ...body });
    assert.equal(response.status, 201, response.text);
    return response.json as { id: string; incident_id: string; report_date: string };
  };
  const event = async (id: string) => (await ops('GET', `/events/${id}`)).json;

  before(async () => {
    server = await startServer();
    await server.ops.post('/clock', { now: '2026-11-20T12:00:00.000Z' });
    acquisition = (
      await ops('POST', '/event-types', {
        code_name: `acquisition_${token()}`,
        name: 'Acquisition',
        description: 'One organization buys another.',
        roles: roleList({ acquirer: 'NAMED_ENTITY', target: 'NAMED_ENTITY', price: 'CURRENCY', closing: 'DATE', duration: 'DURATION', sector: 'CATEGORICAL' }),
        sentence_template: '{acquirer} acquired {target} for {price}',
      })
    ).json;
    otherType = (
      await ops('POST', '/event-types', {
        code_name: `merger_${token()}`,
        name: 'Merger',
        description: '',
        roles: [{ code_name: 'party', name: 'Party', expected_type: 'NAMED_ENTITY' }],
        sentence_template: '{party} merged',
      })
    ).json;
    outletA = (await ops('POST', '/outlets', { name: 'Outlet A' })).json.id;
    outletB = (await ops('POST', '/outlets', { name: 'Outlet B' })).json.id;
  });
  after(() => server.close());

  it('when an article arrives, then it opens an event whose state follows its roles', async () => {
    const buyer = await entity(`Buyer ${token()}`);
    const seller = await entity(`Seller ${token()}`);
    const mentioned = await entity(`Analyst ${token()}`, 'PERSON');
    const report = await ingest({
      published_at: '2026-11-20T08:00:00.000Z',
      happened_at: '2026-11-19',
      roles: [
        { role: 'target', entity_id: seller },
        { role: 'acquirer', entity_id: buyer },
        { role: 'price', amount: { value: 1200000, unit: 'USD' } },
      ],
      mentioned_entity_ids: [mentioned, buyer],
      headline: 'Buyer buys Seller',
    });
    assert.equal(report.report_date, '2026-11-20T08:00:00.000Z');
    const state = await event(report.incident_id);
    assert.equal(state.object, 'event');
    assert.equal(state.sentence.startsWith('Buyer'), true);
    assert.match(state.sentence, /acquired Seller .* for 1200000 USD$/);
    assert.equal(state.happened_at, '2026-11-19');
    assert.equal(state.first_report_date, '2026-11-20T08:00:00.000Z');
    assert.equal(state.matched_report_count, 1);
    assert.equal(state.distinct_outlet_count, 1);
    assert.deepEqual(
      state.involved_entities.map((e: { id: string }) => e.id),
      [buyer, seller, mentioned],
      'participants in role order, then mentions, no duplicates',
    );
    assert.equal(state.merged_into_event_id, null);
    assert.equal(state.deleted, false);
  });

  it('when the publish time is missing or more than a day after receipt, then the report date is the receive time', async () => {
    const who = await entity(`Who ${token()}`);
    const missing = await ingest({ received_at: '2026-11-20T10:00:00.000Z', roles: [{ role: 'acquirer', entity_id: who }] });
    assert.equal(missing.report_date, '2026-11-20T10:00:00.000Z');
    const who2 = await entity(`Who ${token()}`);
    const future = await ingest({
      published_at: '2026-11-21T10:00:01.000Z',
      received_at: '2026-11-20T10:00:00.000Z',
      roles: [{ role: 'acquirer', entity_id: who2 }],
    });
    assert.equal(future.report_date, '2026-11-20T10:00:00.000Z');
    const who3 = await entity(`Who ${token()}`);
    const withinDay = await ingest({
      published_at: '2026-11-21T09:00:00.000Z',
      received_at: '2026-11-20T10:00:00.000Z',
      roles: [{ role: 'acquirer', entity_id: who3 }],
    });
    assert.equal(withinDay.report_date, '2026-11-21T09:00:00.000Z');
    const defaulted = await ingest({ roles: [{ role: 'acquirer', entity_id: await entity(`Who ${token()}`) }] });
    assert.equal(defaulted.report_date, '2026-11-20T12:00:00.000Z', 'received_at defaults to the clock');
  });

  it('when reports share a participant within 3 days, then they cluster; otherwise they open new events', async () => {
    const buyer = await entity(`Clusterer ${token()}`);
    const first = await ingest({ published_at: '2026-11-10T08:00:00.000Z', happened_at: '2026-11-10', roles: [{ role: 'acquirer', entity_id: buyer }] });
    const near = await ingest({
      outlet_id: outletB,
      published_at: '2026-11-12T08:00:00.000Z',
      happened_at: '2026-11-12',
      roles: [{ role: 'target', entity_id: buyer }],
    });
    assert.equal(near.incident_id, first.incident_id);
    const far = await ingest({ published_at: '2026-11-15T08:00:00.000Z', happened_at: '2026-11-14', roles: [{ role: 'acquirer', entity_id: buyer }] });
    assert.notEqual(far.incident_id, first.incident_id);
    const stranger = await ingest({ published_at: '2026-11-10T09:00:00.000Z', roles: [{ role: 'acquirer', entity_id: await entity(`Stranger ${token()}`) }] });
    assert.notEqual(stranger.incident_id, first.incident_id);
    const otherKind = await ops('POST', '/articles', {
      outlet_id: outletA,
      event_type_id: otherType.id,
      published_at: '2026-11-10T10:00:00.000Z',
      roles: [{ role: 'party', entity_id: buyer }],
    });
    assert.notEqual(otherKind.json.incident_id, first.incident_id);
    const mentionOnly = await ingest({
      published_at: '2026-11-10T11:00:00.000Z',
      roles: [{ role: 'price', amount: { value: 5, unit: 'EUR' } }],
      mentioned_entity_ids: [buyer],
    });
    assert.notEqual(mentionOnly.incident_id, first.incident_id, 'a mention is not a participant');

    const state = await event(first.incident_id);
    assert.equal(state.matched_report_count, 2);
    assert.equal(state.distinct_outlet_count, 2);
    assert.equal(state.first_report_date, '2026-11-10T08:00:00.000Z');
    assert.equal(state.last_report_date, '2026-11-12T08:00:00.000Z');
    assert.equal(state.sentence, null, 'no target or price yet: not renderable');

    const joined = await ingest({
      incident_id: far.incident_id,
      published_at: '2026-12-30T00:00:00.000Z',
      received_at: '2026-12-30T00:00:00.000Z',
      roles: [{ role: 'acquirer', entity_id: buyer }],
    });
    assert.equal(joined.incident_id, far.incident_id, 'incident_id joins whatever the dates');
  });

  it('when reports are received after the instant read, then counts leave them out until the clock passes them', async () => {
    const who = await entity(`Later ${token()}`);
    const report = await ingest({ roles: [{ role: 'acquirer', entity_id: who }] });
    await ingest({
      outlet_id: outletB,
      incident_id: report.incident_id,
      received_at: '2026-11-20T13:00:00.000Z',
      published_at: '2026-11-20T13:00:00.000Z',
      roles: [{ role: 'acquirer', entity_id: who }],
    });
    const now = await event(report.incident_id);
    assert.equal(now.matched_report_count, 1);
    assert.equal(now.distinct_outlet_count, 1);
    assert.equal(now.last_report_date, '2026-11-20T13:00:00.000Z', 'dates cover every report');
    await server.ops.post('/clock', { advance_seconds: 3600 });
    const later = await event(report.incident_id);
    assert.equal(later.matched_report_count, 2);
    assert.equal(later.distinct_outlet_count, 2);
    await server.ops.post('/clock', { now: '2026-11-20T12:00:00.000Z' });
  });

  it('when an entity is merged or deleted, then involved_entities shows the survivor once and leaves the deleted out', async () => {
    const a = await entity(`Alpha ${token()}`);
    const b = await entity(`Beta ${token()}`);
    const c = await entity(`Gamma ${token()}`);
    const report = await ingest({
      roles: [
        { role: 'acquirer', entity_id: a },
        { role: 'target', entity_id: b },
      ],
      mentioned_entity_ids: [c],
    });
    await ops('POST', `/entities/${a}/merge`, { into_entity_id: b });
    await ops('DELETE', `/entities/${c}`);
    const state = await event(report.incident_id);
    assert.deepEqual(
      state.involved_entities.map((e: { id: string }) => e.id),
      [b],
    );
    const later = await ingest({ roles: [{ role: 'acquirer', entity_id: a }] });
    assert.equal(later.incident_id, report.incident_id, 'a merged-away entity clusters as its survivor');
  });

  it('when an entity named in a sentence is merged or deleted, then the sentence follows once background work has run', async () => {
    const oldName = `Oldco ${token()}`;
    const newName = `Newco ${token()}`;
    const a = await entity(oldName);
    const b = await entity(newName);
    const target = await entity(`Target ${token()}`);
    const report = await ingest({
      roles: [
        { role: 'acquirer', entity_id: a },
        { role: 'target', entity_id: target },
        { role: 'price', amount: { value: 3, unit: 'EUR' } },
      ],
    });
    assert.match((await event(report.incident_id)).sentence, new RegExp(`^${oldName}`));
    await ops('POST', `/entities/${a}/merge`, { into_entity_id: b });
    await server.http.request('POST', '/ops/v1/drain', { headers: bearer(OPS_TOKEN) });
    assert.match((await event(report.incident_id)).sentence, new RegExp(`^${newName} acquired`));
    assert.ok((await published()).some((c) => c.kind === 'entities-changed' && c.eventId === report.incident_id));
    await ops('DELETE', `/entities/${target}`);
    await server.http.request('POST', '/ops/v1/drain', { headers: bearer(OPS_TOKEN) });
    assert.equal((await event(report.incident_id)).sentence, null, 'the deleted target leaves the template unfilled');
  });

  it('when happened_at is not a real day, then it does not anchor clustering', async () => {
    const who = await entity(`Leap ${token()}`);
    // Read as a Date, 2026-02-31 would roll over to 03-03, six days before the second report.
    const first = await ingest({ published_at: '2026-03-10T08:00:00.000Z', happened_at: '2026-02-31', roles: [{ role: 'acquirer', entity_id: who }] });
    const second = await ingest({ published_at: '2026-03-10T09:00:00.000Z', happened_at: '2026-03-09', roles: [{ role: 'acquirer', entity_id: who }] });
    assert.equal(second.incident_id, first.incident_id, 'the first report date stands in for an impossible happened_at');
    assert.equal((await event(first.incident_id)).happened_at, '2026-02-31', 'happened_at is shown as the source said it');
  });

  it('when a report breaks a role-value rule, then 400 with its content code and nothing is written', async () => {
    const who = await entity(`Rule ${token()}`);
    const base = await ingest({ roles: [{ role: 'acquirer', entity_id: who }] });
    const cases: [Record<string, unknown>, string][] = [
      [{ event_type_id: '00000000-0000-4000-8000-000000000000' }, 'TEMPLATE_NOT_FOUND'],
      [{ roles: [] }, 'NO_ROLES'],
      [{ roles: [{ role: 'buyer', entity_id: who }] }, 'UNKNOWN_ROLE_CODE_NAME'],
      [
        {
          roles: [
            { role: 'acquirer', entity_id: who },
            { role: 'acquirer', entity_id: who },
          ],
        },
        'ROLE_NOT_MULTI_VALUED',
      ],
      [{ roles: [{ role: 'sector', text: 'tech' }] }, 'UNSUPPORTED_ROLE_TYPE'],
      [{ roles: [{ role: 'price', text: 'a lot' }] }, 'ROLE_VALUE_TYPE_MISMATCH'],
      [{ roles: [{ role: 'price', amount: { value: 1, unit: 'DOLLARS' } }] }, 'ROLE_VALUE_TYPE_MISMATCH'],
      [{ roles: [{ role: 'duration', text: 'a fortnight-ish' }] }, 'ROLE_VALUE_TYPE_MISMATCH'],
      [{ roles: [{ role: 'closing', date: '2026-02-30' }] }, 'INVALID_DATE'],
      [{ roles: [{ role: 'duration', text: '   ' }] }, 'EMPTY_TEXT_VALUE'],
      [{ roles: [{ role: 'acquirer', entity_id: '00000000-0000-4000-8000-000000000000' }] }, 'UNKNOWN_NAMED_ENTITY'],
      [{ roles: [{ role: 'closing', entity_id: who }] }, 'NAMED_ENTITY_ID_ON_NON_ENTITY_ROLE'],
      [{ roles: Array.from({ length: 51 }, () => ({ role: 'acquirer', entity_id: who })) }, 'TOO_MANY_ROLES'],
    ];
    for (const [body, code] of cases) {
      const response = await ops('POST', '/articles', {
        outlet_id: outletA,
        event_type_id: acquisition.id,
        incident_id: base.incident_id,
        roles: [{ role: 'acquirer', entity_id: who }],
        ...body,
      });
      assert.equal(response.status, 400, `${code}: ${response.text}`);
      assert.equal(response.json.code, code, JSON.stringify(response.json));
    }
    for (const [body, pointer] of [
      [{ outlet_id: '00000000-0000-4000-8000-000000000000' }, '/outlet_id'],
      [{ incident_id: '00000000-0000-4000-8000-000000000000' }, '/incident_id'],
      [{ mentioned_entity_ids: [who, '00000000-0000-4000-8000-000000000000'] }, '/mentioned_entity_ids/1'],
      [{ roles: [{ role: 'closing', date: '20260101' }] }, '/roles/0/date'],
      [{ roles: [{ role: 'price', amount: { value: '1', unit: 'USD' } }] }, '/roles/0/amount/value'],
    ] as [Record<string, unknown>, string][]) {
      const response = await ops('POST', '/articles', {
        outlet_id: outletA,
        event_type_id: acquisition.id,
        incident_id: base.incident_id,
        roles: [{ role: 'acquirer', entity_id: who }],
        ...body,
      });
      assert.equal(response.status, 400, pointer);
      assert.equal(response.json.errors[0].pointer, pointer);
    }
    assert.equal((await event(base.incident_id)).matched_report_count, 1, 'no refused report was written');
    const readable = await ingest({
      incident_id: base.incident_id,
      roles: [
        { role: 'duration', text: '2 hours 30 minutes' },
        { role: 'closing', date: '2028-02-29' },
      ],
    });
    assert.equal(readable.incident_id, base.incident_id);
  });

  it('when events are merged and deleted, then the survivor takes the reports, the merged record points at it, and changes are published', async () => {
    const who = await entity(`Merge ${token()}`);
    const a = await ingest({ published_at: '2026-11-01T00:00:00.000Z', roles: [{ role: 'acquirer', entity_id: who }] });
    const b = await ingest({ outlet_id: outletB, published_at: '2026-11-18T00:00:00.000Z', roles: [{ role: 'acquirer', entity_id: who }] });
    assert.notEqual(a.incident_id, b.incident_id);
    const merged = await ops('POST', `/events/${a.incident_id}/merge`, { into_event_id: b.incident_id });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.id, b.incident_id);
    assert.equal(merged.json.matched_report_count, 2);
    assert.equal(merged.json.first_report_date, '2026-11-01T00:00:00.000Z');
    const record = await event(a.incident_id);
    assert.equal(record.merged_into_event_id, b.incident_id);
    assert.equal((await ops('POST', `/events/${a.incident_id}/merge`, { into_event_id: b.incident_id })).status, 409);
    const viaMerged = await ingest({ incident_id: a.incident_id, roles: [{ role: 'acquirer', entity_id: who }] });
    assert.equal(viaMerged.incident_id, b.incident_id, 'a report for a merged-away event joins the survivor');

    assert.equal((await ops('DELETE', `/events/${b.incident_id}`)).status, 204);
    const viaDeletedSurvivor = await ops('POST', '/articles', {
      outlet_id: outletA,
      event_type_id: acquisition.id,
      incident_id: a.incident_id,
      roles: [{ role: 'acquirer', entity_id: who }],
    });
    assert.equal(viaDeletedSurvivor.status, 400, 'an event merged into a since-deleted one takes no reports');
    const c = await ingest({ roles: [{ role: 'acquirer', entity_id: await entity(`Loner ${token()}`) }] });
    assert.equal((await ops('POST', `/events/${c.incident_id}/merge`, { into_event_id: a.incident_id })).status, 400, 'no merging into a deleted survivor');
    assert.equal((await event(b.incident_id)).deleted, true);
    assert.equal((await ops('DELETE', `/events/${b.incident_id}`)).status, 404);
    const toDeleted = await ops('POST', '/articles', {
      outlet_id: outletA,
      event_type_id: acquisition.id,
      incident_id: b.incident_id,
      roles: [{ role: 'acquirer', entity_id: who }],
    });
    assert.equal(toDeleted.status, 400);

    await server.http.request('POST', '/ops/v1/drain', { headers: bearer(OPS_TOKEN) });
    const mine = (await published()).filter((c) => 'eventId' in c && (c.eventId === a.incident_id || c.eventId === b.incident_id));
    assert.ok(mine.some((c) => c.kind === 'merged' && c.eventId === a.incident_id && c.mergedIntoEventId === b.incident_id));
    assert.ok(mine.some((c) => c.kind === 'deleted' && c.eventId === b.incident_id));
    assert.ok(mine.filter((c) => c.kind === 'report-added').length >= 3);
  });
});
