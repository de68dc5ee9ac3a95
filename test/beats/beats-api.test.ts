import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBeatsServer, type BeatsClient } from '../helpers/beats.js';
import type { TestCorpus } from '../helpers/corpus.js';
import { SAVED_FILTER_DEFAULTS, STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';

const BEAT_FIELDS = [
  'backfill_days',
  'clauses',
  'created_at',
  'description',
  'enabled',
  'entries_this_month',
  'gaps',
  'id',
  'last_entry_at',
  'name',
  'object',
  'retention_days',
  'spend_cap_credits',
  'spent_this_month',
  'status',
  'updated_at',
];
const CLAUSE_DEFAULTS = { ...SAVED_FILTER_DEFAULTS, scope: 'MENTIONED', role_filters: [] };
const MISSING = '01900000-0000-7000-8000-000000000000';

describe('beats API', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let beats: BeatsClient;
  let typeId: string;

  before(async () => {
    ({ server, corpus, beats } = await startBeatsServer('2026-11-20T12:00:00.000Z'));
    typeId = (await corpus.eventType()).id;
  });
  after(() => server.close());

  const pointers = (response: { json: any }) => (response.json.errors as { pointer: string }[]).map((e) => e.pointer);

  it("when a beat is created, then it answers 201 with every field, clause ids and defaults, the plan's values, and reads back the same", async () => {
    const { key } = await beats.account();
    const entity = await corpus.entity();
    const created = await beats.call('POST', '/beats', key, {
      name: 'Deals',
      description: 'who buys whom',
      clauses: [
        { event_type_id: typeId, min_reports: 2 },
        { involved_entity_ids: [entity], scope: 'PARTICIPANT' },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const beat = created.json;
    assert.deepEqual(Object.keys(beat).sort(), BEAT_FIELDS);
    assert.equal(beat.object, 'beat');
    assert.equal(beat.status, 'ACTIVE');
    assert.equal(beat.enabled, true);
    assert.equal(beat.spend_cap_credits, STANDARD_PLAN_FIELDS.default_spend_cap_credits);
    assert.equal(beat.spent_this_month, 0);
    assert.equal(beat.entries_this_month, 0);
    assert.equal(beat.last_entry_at, null);
    assert.equal(beat.retention_days, STANDARD_PLAN_FIELDS.retention_days);
    assert.equal(beat.backfill_days, STANDARD_PLAN_FIELDS.backfill_days);
    assert.deepEqual(beat.gaps, []);
    assert.match(beat.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(beat.clauses.length, 2);
    assert.notEqual(beat.clauses[0].id, beat.clauses[1].id);
    assert.deepEqual(beat.clauses[0], { ...CLAUSE_DEFAULTS, id: beat.clauses[0].id, event_type_id: typeId, min_reports: 2 });
    assert.deepEqual(beat.clauses[1], { ...CLAUSE_DEFAULTS, id: beat.clauses[1].id, involved_entity_ids: [entity], scope: 'PARTICIPANT' });
    assert.deepEqual(await beats.beat(key, beat.id), beat);

    const list = await beats.call('GET', '/beats', key);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json, { object: 'list', data: [beat], has_more: false, next_cursor: null });
  });

  it('when a beat has role filters and a spend cap, then they read back as sent', async () => {
    const { key } = await beats.account();
    const rf = [
      { kind: 'amount_gte', role_code_name: 'price', min_value: 5, unit: 'USD' },
      { kind: 'date_after', role_code_name: 'closing', after_iso: '2026-01-01T00:00:00Z' },
    ];
    const beat = await beats.create(key, [{ event_type_id: typeId, role_filters: rf }], { spend_cap_credits: 7 });
    assert.equal(beat.spend_cap_credits, 7);
    assert.deepEqual(beat.clauses[0].role_filters, rf);
  });

  it('when a create body breaks a rule, then it is 400 validation-failed naming the member, and nothing is created', async () => {
    const { key } = await beats.account();
    const entity = await corpus.entity();
    const cases: [unknown, string][] = [
      [{ name: 'x', clauses: [] }, '/clauses'],
      [{ name: 'x', clauses: Array.from({ length: 21 }, () => ({ event_type_id: typeId })) }, '/clauses'],
      [{ name: '', clauses: [{ event_type_id: typeId }] }, '/name'],
      [{ name: 'x'.repeat(121), clauses: [{ event_type_id: typeId }] }, '/name'],
      [{ clauses: [{ event_type_id: typeId }] }, '/name'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, colour: 'red' }] }, '/clauses/0/colour'],
      [{ name: 'x', clauses: [{ event_type_id: typeId }], enabled: false }, '/enabled'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, min_reports: 11 }] }, '/clauses/0/min_reports'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, min_reports: 0 }] }, '/clauses/0/min_reports'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, involved_entity_ids: Array.from({ length: 501 }, () => entity) }] }, '/clauses/0/involved_entity_ids'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, scope: 'NEARBY' }] }, '/clauses/0/scope'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, report_source_kind: 'RUMOURS' }] }, '/clauses/0/report_source_kind'],
      [{ name: 'x', clauses: [{ event_type_id: 'earthquake' }] }, '/clauses/0/event_type_id'],
      [{ name: 'x', clauses: [{ id: MISSING, event_type_id: typeId }] }, '/clauses/0/id'],
      [{ name: 'x', clauses: [{ min_reports: 2 }] }, '/clauses/0'],
      [{ name: 'x', clauses: [{ event_type_id: MISSING }] }, '/clauses/0/event_type_id'],
      [
        { name: 'x', clauses: [{ event_type_id: typeId, role_filters: [{ kind: 'amount_gte', role_code_name: 'weight', min_value: 1 }] }] },
        '/clauses/0/role_filters/0/role_code_name',
      ],
      [{ name: 'x', clauses: [{ event_type_id: typeId, report_source_kind: 'REPRESENTED_ONLY' }] }, '/clauses/0/report_source_kind'],
      [{ name: 'x', clauses: [{ event_type_id: typeId, represented_entity_ids: [entity] }] }, '/clauses/0/report_source_kind'],
      [{ name: 'x', clauses: [{ event_type_id: typeId }], spend_cap_credits: -1 }, '/spend_cap_credits'],
    ];
    for (const [body, pointer] of cases) {
      const response = await beats.call('POST', '/beats', key, body);
      beats.problem(response, 400, 'validation-failed');
      assert.ok(pointers(response).includes(pointer), `${JSON.stringify(body).slice(0, 80)}: ${response.text}`);
    }
    assert.deepEqual((await beats.call('GET', '/beats', key)).json.data, []);
  });

  it('when a role filter holds a value the schema lets through but nothing can compare, then create and replace are 400 naming it, and nothing is saved', async () => {
    const { key } = await beats.account();
    const beat = await beats.create(key, [{ event_type_id: typeId }]);
    const raw = (clause: string) => `{"name":"x","clauses":[{"event_type_id":"${typeId}","role_filters":[${clause}]}]}`;
    const cases: [string, string][] = [
      ['{"kind":"amount_gte","role_code_name":"price","min_value":1e309}', '/clauses/0/role_filters/0/min_value'],
      ['{"kind":"amount_lte","role_code_name":"price","max_value":-1e309}', '/clauses/0/role_filters/0/max_value'],
      ['{"kind":"date_after","role_code_name":"closing","after_iso":"0000-01-01T00:00:00Z"}', '/clauses/0/role_filters/0/after_iso'],
      ['{"kind":"date_before","role_code_name":"closing","before_iso":"9999-12-31T23:59:59-14:00"}', '/clauses/0/role_filters/0/before_iso'],
      ['{"kind":"date_after","role_code_name":"closing","after_iso":"2016-12-31T23:59:60Z"}', '/clauses/0/role_filters/0/after_iso'],
    ];
    for (const [clause, pointer] of cases) {
      for (const [method, path] of [
        ['POST', '/v1/beats'],
        ['PUT', `/v1/beats/${beat.id}`],
      ] as const) {
        const response = await server.http.request(method, path, {
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          rawBody: raw(clause),
        });
        beats.problem(response, 400, 'validation-failed');
        assert.deepEqual(pointers(response), [pointer], `${method} ${clause}`);
      }
    }
    const list = await beats.call('GET', '/beats', key);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.data.length, 1);
    beats.problem(await beats.call('GET', '/beats?limit=5', key), 400, 'validation-failed');
  });

  it('when a clause names an entity list the account cannot use, then create and replace are 422 entity-list-inaccessible', async () => {
    const { key } = await beats.account();
    const other = await corpus.account(0);
    const entity = await corpus.entity();
    const foreign = (await corpus.ops('POST', '/entity-lists', { name: 'theirs', owner_account_id: other.id, entity_ids: [entity] })).json.id;
    const shared = (await corpus.ops('POST', '/entity-lists', { name: 'public', owner_account_id: null, entity_ids: [entity] })).json.id;
    beats.problem(await beats.call('POST', '/beats', key, { name: 'x', clauses: [{ involved_entity_list_ids: [foreign] }] }), 422, 'entity-list-inaccessible');
    beats.problem(
      await beats.call('POST', '/beats', key, {
        name: 'x',
        clauses: [{ event_type_id: typeId, role_filters: [{ kind: 'entity_in', role_code_name: 'party', entity_list_ids: [foreign] }] }],
      }),
      422,
      'entity-list-inaccessible',
    );
    const beat = await beats.create(key, [{ involved_entity_list_ids: [shared] }]);
    beats.problem(
      await beats.call('PUT', `/beats/${beat.id}`, key, { name: 'x', clauses: [{ involved_entity_list_ids: [foreign] }] }),
      422,
      'entity-list-inaccessible',
    );
  });

  it('when the account has no beats entitlement, then every beat endpoint is 403 not-entitled with code FORBIDDEN', async () => {
    const entitled = await beats.account();
    const beat = await beats.create(entitled.key, [{ event_type_id: typeId }]);
    const { key } = await corpus.account(100, ['BEATS_READ', 'BEATS_WRITE']);
    const calls: [string, string, unknown?][] = [
      ['GET', '/beats'],
      ['GET', `/beats/${beat.id}`],
      ['POST', '/beats', { name: 'x', clauses: [{ event_type_id: typeId }] }],
      ['PUT', `/beats/${beat.id}`, { name: 'x', clauses: [{ event_type_id: typeId }] }],
      ['DELETE', `/beats/${beat.id}`],
      ['POST', `/beats/${beat.id}/enable`],
      ['POST', `/beats/${beat.id}/disable`],
      ['POST', `/beats/${beat.id}/resume`],
      ['PATCH', `/beats/${beat.id}/spend-cap`, { spend_cap_credits: 5 }],
      ['POST', `/beats/${beat.id}/entries`, { since: '' }],
    ];
    for (const [method, path, body] of calls) {
      const response = await beats.call(method, path, key, body);
      beats.problem(response, 403, 'not-entitled');
      assert.equal(response.json.code, 'FORBIDDEN', `${method} ${path}`);
    }
  });

  it('when a key lacks the scope, then it is 403 missing-scope: reads need BEATS_READ, changes BEATS_WRITE', async () => {
    const owner = await beats.account();
    const beat = await beats.create(owner.key, [{ event_type_id: typeId }]);
    const readOnly = await corpus.ops('POST', `/accounts/${owner.id}/api-keys`, { name: 'r', scopes: ['BEATS_READ'] });
    const writeOnly = await corpus.ops('POST', `/accounts/${owner.id}/api-keys`, { name: 'w', scopes: ['BEATS_WRITE'] });
    beats.problem(await beats.call('POST', '/beats', readOnly.json.key, { name: 'x', clauses: [{ event_type_id: typeId }] }), 403, 'missing-scope');
    beats.problem(await beats.call('POST', `/beats/${beat.id}/disable`, readOnly.json.key), 403, 'missing-scope');
    beats.problem(await beats.call('GET', `/beats/${beat.id}`, writeOnly.json.key), 403, 'missing-scope');
    beats.problem(await beats.call('POST', `/beats/${beat.id}/entries`, writeOnly.json.key, { since: '' }), 403, 'missing-scope');
    assert.equal((await beats.call('POST', `/beats/${beat.id}/entries`, readOnly.json.key, { since: '' })).status, 200);
  });

  it("when the plan's beat or clause quota would be passed, then create and replace are 403 quota-exceeded", async () => {
    const plan = `tight_${Math.random().toString(36).slice(2, 8)}`;
    await corpus.ops('PUT', `/plans/${plan}`, { ...STANDARD_PLAN_FIELDS, beats_max: 2, clauses_max: 3 });
    const { key } = await beats.account(100, plan);
    const first = await beats.create(key, [{ event_type_id: typeId }]);
    beats.problem(
      await beats.call('POST', '/beats', key, { name: 'x', clauses: [{ event_type_id: typeId }, { event_type_id: typeId }, { event_type_id: typeId }] }),
      403,
      'quota-exceeded',
    );
    await beats.create(key, [{ event_type_id: typeId }, { event_type_id: typeId }]);
    beats.problem(await beats.call('POST', '/beats', key, { name: 'x', clauses: [{ event_type_id: typeId }] }), 403, 'quota-exceeded');
    beats.problem(
      await beats.call('PUT', `/beats/${first.id}`, key, {
        name: 'x',
        clauses: [{ id: first.clauses[0].id, event_type_id: typeId }, { event_type_id: typeId }],
      }),
      403,
      'quota-exceeded',
    );
    const renamed = await beats.call('PUT', `/beats/${first.id}`, key, { name: 'renamed', clauses: [{ id: first.clauses[0].id, event_type_id: typeId }] });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((await beats.call('DELETE', `/beats/${first.id}`, key)).status, 204);
    await beats.create(key, [{ event_type_id: typeId }]);
  });

  it("when another account's beat is named, then every endpoint answers 404 not-found exactly as for a missing one", async () => {
    const owner = await beats.account();
    const beat = await beats.create(owner.key, [{ event_type_id: typeId }]);
    const { key } = await beats.account();
    const calls = (id: string): [string, string, unknown?][] => [
      ['GET', `/beats/${id}`],
      ['PUT', `/beats/${id}`, { name: 'x', clauses: [{ event_type_id: typeId }] }],
      ['DELETE', `/beats/${id}`],
      ['POST', `/beats/${id}/enable`],
      ['POST', `/beats/${id}/disable`],
      ['POST', `/beats/${id}/resume`],
      ['PATCH', `/beats/${id}/spend-cap`, { spend_cap_credits: 5 }],
      ['POST', `/beats/${id}/entries`, { since: '' }],
    ];
    const theirs = calls(beat.id);
    const missing = calls(MISSING);
    for (let i = 0; i < theirs.length; i++) {
      const [method, path, body] = theirs[i]!;
      const foreign = await beats.call(method, path, key, body);
      beats.problem(foreign, 404, 'not-found');
      const absent = await beats.call(missing[i]![0], missing[i]![1], key, missing[i]![2]);
      beats.problem(absent, 404, 'not-found');
      assert.equal(foreign.json.detail.replace(beat.id, MISSING), absent.json.detail, path);
    }
    assert.equal((await beats.beat(owner.key, beat.id)).enabled, true, 'untouched');
  });

  it('when a beat is replaced, then echoed clause ids are kept, new clauses get ids, dropped ones go, omitted fields reset, and nothing else moves', async () => {
    const { key } = await beats.account();
    const entity = await corpus.entity();
    const beat = await beats.create(key, [{ event_type_id: typeId, min_reports: 3 }, { involved_entity_ids: [entity] }], {
      description: 'd',
      spend_cap_credits: 9,
    });
    await beats.call('POST', `/beats/${beat.id}/disable`, key);
    const replaced = await beats.call('PUT', `/beats/${beat.id}`, key, {
      name: 'Renamed',
      clauses: [
        { event_type_id: null, involved_entity_ids: [entity], scope: 'PARTICIPANT' },
        { id: beat.clauses[0].id, event_type_id: typeId },
      ],
    });
    assert.equal(replaced.status, 200, replaced.text);
    const after = replaced.json;
    assert.equal(after.name, 'Renamed');
    assert.equal(after.description, null, 'an omitted description clears it');
    assert.equal(after.spend_cap_credits, 9, 'the cap is not part of a replace');
    assert.equal(after.enabled, false, 'nor is the enabled state');
    assert.equal(after.clauses.length, 2);
    assert.ok(![beat.clauses[0].id, beat.clauses[1].id].includes(after.clauses[0].id), 'a clause without id is new');
    assert.deepEqual(after.clauses[1], { ...CLAUSE_DEFAULTS, id: beat.clauses[0].id, event_type_id: typeId }, 'kept, min_reports reset to its default');
    assert.deepEqual(await beats.beat(key, beat.id), after);
  });

  it('when a replace names a clause id the beat does not have, or repeats one, or sends the spend cap, then it is 400; when it changes nothing, 409', async () => {
    const { key } = await beats.account();
    const beat = await beats.create(key, [{ event_type_id: typeId }], { description: 'd' });
    const same = { name: beat.name, description: 'd', clauses: [{ id: beat.clauses[0].id, event_type_id: typeId }] };
    const unknown = await beats.call('PUT', `/beats/${beat.id}`, key, { ...same, clauses: [{ id: MISSING, event_type_id: typeId }] });
    beats.problem(unknown, 400, 'validation-failed');
    assert.deepEqual(pointers(unknown), ['/clauses/0/id']);
    const twice = await beats.call('PUT', `/beats/${beat.id}`, key, { ...same, clauses: [same.clauses[0], same.clauses[0]] });
    beats.problem(twice, 400, 'validation-failed');
    assert.deepEqual(pointers(twice), ['/clauses/1/id']);
    const cap = await beats.call('PUT', `/beats/${beat.id}`, key, { ...same, spend_cap_credits: 5 });
    beats.problem(cap, 400, 'validation-failed');
    assert.deepEqual(pointers(cap), ['/spend_cap_credits']);
    beats.problem(await beats.call('PUT', `/beats/${beat.id}`, key, same), 409, 'state-conflict');
    const withAmount = {
      ...same,
      clauses: [{ id: beat.clauses[0].id, event_type_id: typeId, role_filters: [{ kind: 'amount_gte', role_code_name: 'price', min_value: 0 }] }],
    };
    assert.equal((await beats.call('PUT', `/beats/${beat.id}`, key, withAmount)).status, 200);
    const negativeZero = await server.http.request('PUT', `/v1/beats/${beat.id}`, {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      rawBody: JSON.stringify(withAmount).replace('"min_value":0', '"min_value":-0'),
    });
    beats.problem(negativeZero, 409, 'state-conflict');
    await beats.call('PUT', `/beats/${beat.id}`, key, same);
    beats.problem(
      await beats.call('PUT', `/beats/${beat.id}`, key, {
        ...same,
        clauses: [{ id: beat.clauses[0].id, event_type_id: typeId, scope: 'MENTIONED', min_reports: 1 }],
      }),
      409,
      'state-conflict',
    );
    assert.equal(
      (await beats.call('PUT', `/beats/${beat.id}`, key, { ...same, clauses: [{ event_type_id: typeId }] })).status,
      200,
      'a new clause id is a change',
    );
  });

  it('when the state actions are called, then they follow the state table cell by cell, 409 state-conflict where it says', async () => {
    const { key } = await beats.account();
    const beat = await beats.create(key, [{ event_type_id: typeId }]);
    const act = (action: string) => beats.call('POST', `/beats/${beat.id}/${action}`, key);
    beats.problem(await act('enable'), 409, 'state-conflict');
    beats.problem(await act('resume'), 409, 'state-conflict');
    const disabled = await act('disable');
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.json.status, 'DISABLED');
    assert.equal(disabled.json.enabled, false);
    beats.problem(await act('disable'), 409, 'state-conflict');
    beats.problem(await act('resume'), 409, 'state-conflict');
    const enabled = await act('enable');
    assert.equal(enabled.status, 200);
    assert.equal(enabled.json.status, 'ACTIVE');
    assert.deepEqual(enabled.json.gaps, [], 'disabled time is not a gap');
    const capped = await beats.call('PATCH', `/beats/${beat.id}/spend-cap`, key, { spend_cap_credits: 3 });
    assert.equal(capped.status, 200, capped.text);
    assert.equal(capped.json.spend_cap_credits, 3);
    beats.problem(await beats.call('PATCH', `/beats/${beat.id}/spend-cap`, key, { spend_cap_credits: 2.5 }), 400, 'validation-failed');
    beats.problem(await beats.call('PATCH', `/beats/${beat.id}/spend-cap`, key, {}), 400, 'validation-failed');
    assert.equal((await beats.call('DELETE', `/beats/${beat.id}`, key)).status, 204);
    beats.problem(await beats.call('GET', `/beats/${beat.id}`, key), 404, 'not-found');
    beats.problem(await beats.call('DELETE', `/beats/${beat.id}`, key), 404, 'not-found');
  });

  it('when Idempotency-Key is sent, then create and state actions replay (a 409 as a 409), and PUT, PATCH and DELETE ignore it even malformed', async () => {
    const { key } = await beats.account();
    const body = { name: 'Once', clauses: [{ event_type_id: typeId }] };
    const first = await beats.call('POST', '/beats', key, body, { 'idempotency-key': 'create-1' });
    const again = await beats.call('POST', '/beats', key, body, { 'idempotency-key': 'create-1' });
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.json.id, first.json.id);
    assert.equal((await beats.call('GET', '/beats', key)).json.data.length, 1);
    beats.problem(await beats.call('POST', '/beats', key, { ...body, name: 'Other' }, { 'idempotency-key': 'create-1' }), 422, 'idempotency-key-conflict');

    const id = first.json.id;
    const conflict = await beats.call('POST', `/beats/${id}/enable`, key, undefined, { 'idempotency-key': 'enable-1' });
    beats.problem(conflict, 409, 'state-conflict');
    assert.equal((await beats.call('POST', `/beats/${id}/disable`, key)).status, 200);
    const replayed = await beats.call('POST', `/beats/${id}/enable`, key, undefined, { 'idempotency-key': 'enable-1' });
    beats.problem(replayed, 409, 'state-conflict');
    assert.equal(replayed.headers['idempotency-replayed'], 'true');
    assert.equal((await beats.beat(key, id)).enabled, false, 'the replay did not run again');

    const read = await beats.call('POST', `/beats/${id}/entries`, key, { since: '' }, { 'idempotency-key': 'read-1' });
    assert.equal(
      (await beats.call('POST', `/beats/${id}/entries`, key, { since: '' }, { 'idempotency-key': 'read-1' })).headers['idempotency-replayed'],
      'true',
    );
    assert.equal(read.status, 200);

    const bad = { 'idempotency-key': 'not a valid key!' };
    assert.equal((await beats.call('PUT', `/beats/${id}`, key, { name: 'Put', clauses: [{ event_type_id: typeId }] }, bad)).status, 200);
    assert.equal((await beats.call('PATCH', `/beats/${id}/spend-cap`, key, { spend_cap_credits: 4 }, bad)).status, 200);
    assert.equal((await beats.call('DELETE', `/beats/${id}`, key, undefined, bad)).status, 204);
    beats.problem(await beats.call('POST', '/beats', key, body, bad), 400, 'validation-failed');
  });
});
