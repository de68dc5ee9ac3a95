import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { SAVED_FILTER_DEFAULTS } from '../helpers/fixtures.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];
const SENSOR_FIELDS = ['actions', 'created_at', 'deliver_updates', 'description', 'enabled', 'filter', 'id', 'name', 'object', 'updated_at'];
const FILTER_DEFAULTS = SAVED_FILTER_DEFAULTS;
const MISSING = '01900000-0000-7000-8000-000000000000';

describe('sensors API', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let typeId: string;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    typeId = (await corpus.eventType()).id;
  });
  after(() => server.close());

  const call = (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> =>
    server.http.request(method, `/v1${path}`, { headers: { ...bearer(key), ...headers }, ...(body === undefined ? {} : { body }) });
  const body = (filter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    name: 'Acquisitions',
    filter: { event_type_id: typeId, ...filter },
    actions: [{ type: 'webhook', url: 'https://hooks.example.com/evmon' }],
    ...extra,
  });
  const problem = (response: HttpResponse, status: number, slug: string) => {
    assert.equal(response.status, status, response.text);
    assert.equal(response.json.type, `${server.docsUrl}/problems/${slug}`);
  };
  const pointers = (response: HttpResponse) => (response.json.errors as { pointer: string }[]).map((e) => e.pointer);

  it('when a sensor is created, then it answers 201 with every filter field, action ids and a one-time secret; reads never show the secret', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const created = await call('POST', '/sensors', key, body({ min_reports: 2 }, { description: 'deals' }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), [...SENSOR_FIELDS, 'signing_secret'].sort());
    assert.equal(created.json.object, 'sensor');
    assert.equal(created.json.enabled, true);
    assert.equal(created.json.description, 'deals');
    assert.equal(created.json.deliver_updates, false, 'updates are off by default');
    assert.deepEqual(created.json.filter, { ...FILTER_DEFAULTS, event_type_id: typeId, min_reports: 2 });
    assert.equal(created.json.actions.length, 1);
    assert.deepEqual(Object.keys(created.json.actions[0]).sort(), ['id', 'type', 'url']);
    assert.equal(created.json.actions[0].url, 'https://hooks.example.com/evmon');
    assert.match(created.json.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.json.signing_secret.slice(6), 'base64').length, 32);
    assert.match(created.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await call('GET', `/sensors/${created.json.id}`, key);
    assert.equal(read.status, 200);
    assert.deepEqual(Object.keys(read.json).sort(), SENSOR_FIELDS);
    const { signing_secret: _secret, ...withoutSecret } = created.json;
    assert.deepEqual(read.json, withoutSecret);
  });

  it('when sensors are listed, then the envelope pages newest first with limit and starting_after', async () => {
    const { key } = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    const empty = await call('GET', '/sensors', key);
    assert.deepEqual(empty.json, { object: 'list', data: [], has_more: false, next_cursor: null });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('POST', '/sensors', key, body({}, { name: `s${i}` }))).json.id);
    const first = await call('GET', '/sensors?limit=2', key);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.json.data.map((s: { id: string }) => s.id),
      [ids[2], ids[1]],
    );
    assert.equal(first.json.has_more, true);
    assert.equal(first.json.next_cursor, ids[1]);
    const second = await call('GET', `/sensors?limit=2&starting_after=${first.json.next_cursor}`, key);
    assert.deepEqual(
      second.json.data.map((s: { id: string }) => s.id),
      [ids[0]],
    );
    assert.equal(second.json.has_more, false);
    assert.equal(second.json.next_cursor, null);
    problem(await call('GET', '/sensors?limit=101', key), 400, 'validation-failed');
    problem(await call('GET', '/sensors?limit=0', key), 400, 'validation-failed');
  });

  it('when the old filter names are sent, then validation-failed names each field, on create and on update', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const created = await call('POST', '/sensors', key, body({ incident_template_id: typeId, involved_entity_canonical_ids: [] }));
    problem(created, 400, 'validation-failed');
    assert.deepEqual(pointers(created).sort(), ['/filter/incident_template_id', '/filter/involved_entity_canonical_ids']);
    const sensor = (await call('POST', '/sensors', key, body())).json;
    await server.ops.post('/clock', { advance_seconds: 1 });
    const patched = await call('PATCH', `/sensors/${sensor.id}`, key, { filter: { incident_template_id: typeId } });
    problem(patched, 400, 'validation-failed');
    assert.deepEqual(pointers(patched), ['/filter/incident_template_id']);
  });

  it('when a sensor body is invalid, then each mistake is refused with validation-failed and its pointer', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const cases: [unknown, string][] = [
      [body({ event_type_id: null }), '/filter'],
      [{ ...body(), actions: [{ type: 'webhook', url: 'http://hooks.example.com/plain' }] }, '/actions/0/url'],
      [{ ...body(), actions: [{ type: 'webhook', url: 'not a url' }] }, '/actions/0/url'],
      [{ ...body(), actions: [] }, '/actions'],
      [{ ...body(), actions: Array.from({ length: 6 }, () => ({ type: 'webhook', url: 'https://a.example/' })) }, '/actions'],
      [{ ...body(), actions: [{ type: 'email', url: 'https://a.example/' }] }, '/actions/0/type'],
      [
        {
          ...body(),
          actions: [
            { type: 'webhook', url: 'https://a.example/h' },
            { type: 'webhook', url: 'https://a.example/h' },
          ],
        },
        '/actions/1/url',
      ],
      [{ ...body(), actions: [{ type: 'webhook', url: 'https://user:pw@a.example/h' }] }, '/actions/0/url'],
      [{ ...body(), name: '' }, '/name'],
      [{ ...body(), name: 'x'.repeat(121) }, '/name'],
      [{ ...body(), colour: 'red' }, '/colour'],
      [{ filter: body().filter, actions: body().actions }, '/name'],
      [body({ min_reports: 101 }), '/filter/min_reports'],
      [body({ report_source_kind: 'SOMETIMES' }), '/filter/report_source_kind'],
      [body({ involved_entity_ids: Array.from({ length: 501 }, () => MISSING) }), '/filter/involved_entity_ids'],
      [body({ event_type_id: MISSING }), '/filter/event_type_id'],
    ];
    for (const [sent, pointer] of cases) {
      const response = await call('POST', '/sensors', key, sent);
      problem(response, 400, 'validation-failed');
      assert.ok(pointers(response).includes(pointer), `${JSON.stringify(sent).slice(0, 120)} → ${response.text}`);
    }
  });

  it('when the filter names an entity list the account cannot use, then 422 entity-list-inaccessible; own and public lists are fine', async () => {
    const account = await corpus.account(0, SCOPES);
    const other = await corpus.account(0, SCOPES);
    const list = async (owner: string | null) => (await corpus.ops('POST', '/entity-lists', { name: 'l', owner_account_id: owner, entity_ids: [] })).json.id;
    const [own, shared, theirs] = [await list(account.id), await list(null), await list(other.id)];
    problem(await call('POST', '/sensors', account.key, body({ involved_entity_list_ids: [theirs] })), 422, 'entity-list-inaccessible');
    problem(
      await call('POST', '/sensors', account.key, body({ report_source_kind: 'REPRESENTED_ONLY', represented_entity_list_ids: [theirs] })),
      422,
      'entity-list-inaccessible',
    );
    problem(await call('POST', '/sensors', account.key, body({ involved_entity_list_ids: [MISSING] })), 422, 'entity-list-inaccessible');
    const fine = await call('POST', '/sensors', account.key, body({ event_type_id: null, involved_entity_list_ids: [own, shared] }));
    assert.equal(fine.status, 201, fine.text);
    problem(await call('PATCH', `/sensors/${fine.json.id}`, account.key, { filter: { involved_entity_list_ids: [theirs] } }), 422, 'entity-list-inaccessible');
  });

  it('when a sensor is patched, then JSON Merge Patch applies: members replace, null resets, arrays replace whole', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    const sensor = (await call('POST', '/sensors', key, body({ min_reports: 3, involved_entity_ids: [entity] }, { description: 'x' }))).json;
    await server.ops.post('/clock', { advance_seconds: 1 });
    const patched = await call('PATCH', `/sensors/${sensor.id}`, key, {
      name: 'Renamed',
      description: null,
      filter: { min_reports: null, required_source_news_outlet_ids: [MISSING] },
      actions: [
        { type: 'webhook', url: 'https://hooks.example.com/evmon' },
        { type: 'webhook', url: 'https://other.example/h' },
      ],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.name, 'Renamed');
    assert.equal(patched.json.description, null);
    assert.deepEqual(patched.json.filter, {
      ...FILTER_DEFAULTS,
      event_type_id: typeId,
      involved_entity_ids: [entity],
      required_source_news_outlet_ids: [MISSING],
    });
    assert.equal(patched.json.actions.length, 2);
    assert.equal(patched.json.actions[0].id, sensor.actions[0].id, 'an action that keeps its URL keeps its id');
    assert.equal(patched.json.signing_secret, undefined);
    assert.ok(patched.json.updated_at > sensor.updated_at);
    assert.equal(patched.json.created_at, sensor.created_at);
    const read = await call('GET', `/sensors/${sensor.id}`, key);
    assert.deepEqual(read.json, patched.json);

    problem(await call('PATCH', `/sensors/${sensor.id}`, key, { enabled: false }), 400, 'validation-failed');
    problem(await call('PATCH', `/sensors/${sensor.id}`, key, { name: null }), 400, 'validation-failed');
    problem(
      await call('PATCH', `/sensors/${sensor.id}`, key, { filter: { event_type_id: null, involved_entity_ids: [], required_source_news_outlet_ids: [] } }),
      400,
      'validation-failed',
    );
    problem(await call('PATCH', `/sensors/${sensor.id}`, key, { actions: [{ type: 'webhook', url: 'http://plain.example/' }] }), 400, 'validation-failed');
    // The body is judged before the sensor is looked up.
    problem(await call('PATCH', `/sensors/${MISSING}`, key, { actions: [{ type: 'webhook', url: 'http://plain.example/' }] }), 400, 'validation-failed');
  });

  it('when a sensor is enabled, disabled, rotated and deleted, then each answers as decided, with 409 for a state it is already in', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const sensor = (await call('POST', '/sensors', key, body())).json;
    problem(await call('POST', `/sensors/${sensor.id}/enable`, key), 409, 'state-conflict');
    const disabled = await call('POST', `/sensors/${sensor.id}/disable`, key);
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.json.enabled, false);
    assert.equal(disabled.json.signing_secret, undefined);
    problem(await call('POST', `/sensors/${sensor.id}/disable`, key), 409, 'state-conflict');
    const enabled = await call('POST', `/sensors/${sensor.id}/enable`, key);
    assert.equal(enabled.status, 200);
    assert.equal(enabled.json.enabled, true);

    const rotated = await call('POST', `/sensors/${sensor.id}/rotate-secret`, key);
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.json.signing_secret, /^whsec_/);
    assert.notEqual(rotated.json.signing_secret, sensor.signing_secret);
    assert.deepEqual(Object.keys(rotated.json).sort(), [...SENSOR_FIELDS, 'signing_secret'].sort());

    const deliveries = await call('GET', `/sensors/${sensor.id}/deliveries`, key);
    assert.deepEqual(deliveries.json, { object: 'list', data: [], has_more: false, next_cursor: null });

    const deleted = await call('DELETE', `/sensors/${sensor.id}`, key);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    problem(await call('GET', `/sensors/${sensor.id}`, key), 404, 'not-found');
    problem(await call('DELETE', `/sensors/${sensor.id}`, key), 404, 'not-found');
  });

  it('when another account names a sensor, then every operation answers 404 exactly as for a missing one', async () => {
    const owner = await corpus.account(0, SCOPES);
    const stranger = await corpus.account(0, SCOPES);
    const sensor = (await call('POST', '/sensors', owner.key, body())).json;
    const operations: [string, string, unknown?][] = [
      ['GET', ''],
      ['PATCH', '', { name: 'mine now' }],
      ['POST', '/enable'],
      ['POST', '/disable'],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
      ['DELETE', ''],
    ];
    for (const [method, suffix, sent] of operations) {
      const theirs = await call(method, `/sensors/${sensor.id}${suffix}`, stranger.key, sent);
      const missing = await call(method, `/sensors/${MISSING}${suffix}`, stranger.key, sent);
      problem(theirs, 404, 'not-found');
      problem(missing, 404, 'not-found');
      assert.equal(theirs.json.detail.replace(sensor.id, 'ID'), missing.json.detail.replace(MISSING, 'ID'), `${method} ${suffix}`);
    }
    const still = await call('GET', `/sensors/${sensor.id}`, owner.key);
    assert.equal(still.json.name, 'Acquisitions');
    assert.equal((await call('GET', '/sensors', stranger.key)).json.data.length, 0);
  });

  it('when a key lacks the scope, then reads need SENSORS_READ and writes SENSORS_WRITE', async () => {
    const reader = await corpus.account(0, ['SENSORS_READ']);
    const writer = await corpus.account(0, ['SENSORS_WRITE']);
    problem(await call('POST', '/sensors', reader.key, body()), 403, 'missing-scope');
    problem(await call('GET', '/sensors', writer.key), 403, 'missing-scope');
    const created = await call('POST', '/sensors', writer.key, body());
    assert.equal(created.status, 201);
    problem(await call('GET', `/sensors/${created.json.id}/deliveries`, writer.key), 403, 'missing-scope');
    problem(await call('POST', `/sensors/${created.json.id}/disable`, reader.key), 403, 'missing-scope');
  });

  it('when a create or rotation is replayed under its Idempotency-Key, then the stored answer returns without the secret and nothing runs twice', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const first = await call('POST', '/sensors', key, body(), { 'idempotency-key': 'create-1' });
    assert.equal(first.status, 201);
    assert.ok(first.json.signing_secret);
    const replay = await call('POST', '/sensors', key, body(), { 'idempotency-key': 'create-1' });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers['idempotency-replayed'], 'true');
    assert.equal(replay.json.id, first.json.id);
    assert.equal(replay.json.signing_secret, undefined);
    assert.equal((await call('GET', '/sensors', key)).json.data.length, 1, 'created once');
    problem(await call('POST', '/sensors', key, body({ min_reports: 2 }), { 'idempotency-key': 'create-1' }), 422, 'idempotency-key-conflict');

    const rotated = await call('POST', `/sensors/${first.json.id}/rotate-secret`, key, undefined, { 'idempotency-key': 'rotate-1' });
    assert.ok(rotated.json.signing_secret);
    await server.ops.post('/clock', { advance_seconds: 5 }); // a second rotation would show in updated_at
    const again = await call('POST', `/sensors/${first.json.id}/rotate-secret`, key, undefined, { 'idempotency-key': 'rotate-1' });
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.json.signing_secret, undefined);
    assert.equal(again.json.updated_at, rotated.json.updated_at, 'not rotated a second time');

    // A validation failure does not consume the key.
    problem(await call('POST', '/sensors', key, body({ event_type_id: null }), { 'idempotency-key': 'create-2' }), 400, 'validation-failed');
    const retried = await call('POST', '/sensors', key, body(), { 'idempotency-key': 'create-2' });
    assert.equal(retried.status, 201, retried.text);
    assert.ok(retried.json.signing_secret);
  });
});
