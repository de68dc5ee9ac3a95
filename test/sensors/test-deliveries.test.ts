// POST /v1/sensors/{id}/test (decisions.md, 2026-11-25): one signed `sensor.test` delivery now,
// to each of the sensor's webhooks, carrying the latest matching event of the past 30 days or
// null; in the delivery log, retried and redeliverable like any other. And the console's button.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimAsRunning } from '../helpers/claims.js';
import { consoleAccount, consoleClient } from '../helpers/console.js';
import { unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];
const DELIVERY_FIELDS = [
  'attempts',
  'created_at',
  'event_id',
  'id',
  'last_attempt_at',
  'last_error',
  'last_status_code',
  'next_attempt_at',
  'object',
  'status',
  'type',
];
const daysAgo = (days: number) => new Date(Date.parse(NOW) - days * 86_400_000).toISOString();

describe('sensor test deliveries', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;
  let typeId: string;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(NOW));
    typeId = (await corpus.eventType()).id;
  });
  after(() => close());

  const drain = () => server.ops.post('/drain');
  const now = async () => (await server.ops.get('/clock')).now as string;
  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const sendTest = (key: string, sensorId: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<HttpResponse> =>
    server.http.request('POST', `/v1/sensors/${sensorId}/test`, { headers: { ...bearer(key), ...options.headers }, body: options.body });
  const deliveries = async (key: string, sensorId: string, query = '') => {
    const list = await server.http.get(`/v1/sensors/${sensorId}/deliveries${query}`, bearer(key));
    assert.equal(list.status, 200, list.text);
    return list.json.data;
  };

  /** An event naming `entity`, first reported `days` ago; answers its id. */
  const eventOf = async (entity: string, days: number) =>
    corpus.article({ outlet_id: await corpus.outlet(), event_type_id: typeId, published_at: daysAgo(days), roles: [{ role: 'party', entity_id: entity }] });

  /** A sensor watching `entity` with a webhook at each path; made after the corpus settled, so matching sends it nothing. */
  async function sensorOn(key: string, entity: string, paths: string[], extra: Record<string, unknown> = {}) {
    await drain();
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'watch', filter: { involved_entity_ids: [entity] }, actions: paths.map((path) => ({ type: 'webhook', url: receiver.url(path) })), ...extra },
      bearer(key),
    );
    assert.equal(created.status, 201, created.text);
    return created.json;
  }

  it('when events of the past 30 days match, then one signed sensor.test delivery reaches each webhook at once with the latest of them, as search shows it, unbilled', async () => {
    const account = await corpus.account(5, [...SCOPES, 'EVENTS_READ']);
    const entity = await corpus.entity();
    await eventOf(entity, 40); // first reported before the 30 days
    const latest = await eventOf(entity, 3);
    await eventOf(entity, 10);
    await eventOf(await corpus.entity(), 1); // newer, but another entity's
    const [first, second] = [`/test-a-${unique()}`, `/test-b-${unique()}`];
    const sensor = await sensorOn(account.key, entity, [first, second]);

    const answer = await sendTest(account.key, sensor.id);
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual(Object.keys(answer.json).sort(), DELIVERY_FIELDS);
    assert.equal(answer.json.object, 'sensor_delivery');
    assert.equal(answer.json.type, 'sensor.test');
    assert.equal(answer.json.event_id, latest);
    assert.equal(answer.json.status, 'PENDING');
    assert.equal(answer.json.attempts, 0);
    assert.equal(answer.json.next_attempt_at, await now(), 'due at once');
    assert.equal(await corpus.balance(account.id), 5, 'not billed');

    await drain();
    const [a, b] = [at(first), at(second)];
    assert.equal(a.length, 1);
    assert.equal(b.length, 1);
    assert.equal(a[0]!.headers['webhook-id'], answer.json.id);
    assert.equal(b[0]!.headers['webhook-id'], answer.json.id);
    assert.equal(a[0]!.body, b[0]!.body);
    const payload = verifyWebhook(sensor.signing_secret, a[0]!, await now()) as any;
    assert.deepEqual(Object.keys(payload).sort(), ['data', 'timestamp', 'type']);
    assert.equal(payload.type, 'sensor.test');
    assert.equal(payload.timestamp, await now());
    assert.deepEqual(Object.keys(payload.data).sort(), ['event', 'sensor_id']);
    assert.equal(payload.data.sensor_id, sensor.id);

    const search = await server.http.post('/v1/events/search', { involved_entity_ids: [entity], lookback_days: 30 }, bearer(account.key));
    assert.equal(search.status, 200, search.text);
    assert.equal(search.json.total_count, 2);
    assert.deepEqual(payload.data.event, search.json.data[0], 'the latest match, in the search-event shape');

    const [logged] = await deliveries(account.key, sensor.id);
    assert.equal(logged.id, answer.json.id);
    assert.equal(logged.type, 'sensor.test');
    assert.equal(logged.status, 'SUCCEEDED');
    assert.equal(logged.attempts, 2, 'one attempt per webhook');
  });

  it('when no event of the past 30 days matches, then the test delivery carries event null; a disabled sensor is sent one as well', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    await eventOf(entity, 31);
    const path = `/test-none-${unique()}`;
    const sensor = await sensorOn(key, entity, [path], { enabled: false });

    const answer = await sendTest(key, sensor.id);
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.json.type, 'sensor.test');
    assert.equal(answer.json.event_id, null);
    await drain();
    const [webhook] = at(path);
    assert.ok(webhook, 'delivered although the sensor is disabled');
    const payload = verifyWebhook(sensor.signing_secret, webhook, await now()) as any;
    assert.deepEqual(payload, { type: 'sensor.test', timestamp: await now(), data: { sensor_id: sensor.id, event: null } });
    const [logged] = await deliveries(key, sensor.id);
    assert.equal(logged.event_id, null);
    assert.equal(logged.status, 'SUCCEEDED');
  });

  it('when a test delivery carried an event, then it does not count as sent: a later change of that event still brings its event.matched', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    const eventId = await eventOf(entity, 2);
    const path = `/test-then-match-${unique()}`;
    const sensor = await sensorOn(key, entity, [path]);
    const tested = await sendTest(key, sensor.id);
    assert.equal(tested.json.event_id, eventId);
    await drain();

    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: typeId, incident_id: eventId, roles: [{ role: 'party', entity_id: entity }] });
    await drain();
    const kinds = at(path).map((webhook) => [webhook.json.type, webhook.json.data.event.id]);
    assert.deepEqual(kinds, [
      ['sensor.test', eventId],
      ['event.matched', eventId],
    ]);
    assert.deepEqual(
      (await deliveries(key, sensor.id)).map((delivery: { type: string }) => delivery.type),
      ['event.matched', 'sensor.test'],
    );
    // The test delivery found directly, however many matches came after it (the README's walkthrough).
    const tests = await deliveries(key, sensor.id, '?type=sensor.test');
    assert.deepEqual(
      tests.map((delivery: { id: string; type: string }) => [delivery.id, delivery.type]),
      [[tested.json.id, 'sensor.test']],
    );
    const matches = await deliveries(key, sensor.id, '?type=event.matched&limit=1');
    assert.deepEqual(
      matches.map((delivery: { type: string; event_id: string }) => [delivery.type, delivery.event_id]),
      [['event.matched', eventId]],
    );
    assert.deepEqual(await deliveries(key, sensor.id, '?type=event.updated'), []);
    const unknown = await server.http.get(`/v1/sensors/${sensor.id}/deliveries?type=sensor.tested`, bearer(key));
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.json.type, `${server.docsUrl}/problems/validation-failed`);
  });

  it('when the same Idempotency-Key comes again, then the answer replays and no second delivery is made; another body or sensor is 422; a key in flight is 409', async () => {
    const account = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    await eventOf(entity, 2);
    const path = `/test-once-${unique()}`;
    const sensor = await sensorOn(account.key, entity, [path]);
    const other = await sensorOn(account.key, entity, [`/test-other-${unique()}`]);
    const key = `test-${unique()}`;

    const first = await sendTest(account.key, sensor.id, { headers: { 'idempotency-key': key } });
    assert.equal(first.status, 201, first.text);
    await drain();
    const again = await sendTest(account.key, sensor.id, { headers: { 'idempotency-key': key } });
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.text, first.text, 'the stored answer, verbatim');
    assert.equal(again.headers['x-request-id'], first.headers['x-request-id']);
    await drain();
    assert.equal(at(path).length, 1);
    assert.equal((await deliveries(account.key, sensor.id)).length, 1);

    const otherBody = await sendTest(account.key, sensor.id, { headers: { 'idempotency-key': key }, body: { note: 'again' } });
    assert.equal(otherBody.status, 422, otherBody.text);
    assert.equal(otherBody.json.type, `${server.docsUrl}/problems/idempotency-key-conflict`);
    const otherSensor = await sendTest(account.key, other.id, { headers: { 'idempotency-key': key } });
    assert.equal(otherSensor.status, 422, otherSensor.text);
    assert.equal((await deliveries(account.key, other.id)).length, 0);

    const [apiKey] = (await server.ops.get(`/accounts/${account.id}/api-keys`)).data;
    const running = `test-running-${unique()}`;
    await claimAsRunning(server.runtime, {
      apiKeyId: apiKey.id,
      key: running,
      transport: 'rest',
      path: `/v1/sensors/${sensor.id}/test`,
      body: {},
      billed: false,
    });
    const inFlight = await sendTest(account.key, sensor.id, { headers: { 'idempotency-key': running }, body: {} });
    assert.equal(inFlight.status, 409, inFlight.text);
    assert.equal(inFlight.json.type, `${server.docsUrl}/problems/idempotency-in-flight`);
    assert.equal((await deliveries(account.key, sensor.id)).length, 1, 'nothing made while the key is in flight');
  });

  it("when the sensor is another account's or unknown, then 404 as for the other sensor routes; without SENSORS_WRITE, 403; nothing is sent", async () => {
    const owner = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    const path = `/test-foreign-${unique()}`;
    const sensor = await sensorOn(owner.key, entity, [path]);
    const stranger = await corpus.account(0, SCOPES);
    const foreign = await sendTest(stranger.key, sensor.id);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.json.type, `${server.docsUrl}/problems/not-found`);
    const unknown = await sendTest(owner.key, '01900000-0000-7000-8000-000000000000');
    assert.equal(unknown.status, 404);
    assert.equal(foreign.json.detail, `No sensor with id ${sensor.id}.`, 'worded as for a missing sensor');
    assert.equal((await sendTest(owner.key, 'not-a-uuid')).status, 400);
    const reader = await corpus.account(0, ['SENSORS_READ']);
    const unscoped = await sendTest(reader.key, sensor.id);
    assert.equal(unscoped.status, 403, unscoped.text);
    assert.equal(unscoped.json.type, `${server.docsUrl}/problems/missing-scope`);
    await drain();
    assert.equal(at(path).length, 0);
    assert.equal((await deliveries(owner.key, sensor.id)).length, 0);
  });

  it('when the receiver fails once, then the test delivery is retried on the schedule and succeeds; finished, redeliver sends it again, same id and body', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const entity = await corpus.entity();
    await eventOf(entity, 5);
    const path = `/test-retry-${unique()}`;
    const sensor = await sensorOn(key, entity, [path]);
    let failed = false;
    receiver.reply = (webhook) => {
      if (webhook.path !== path || failed) return { status: 200 };
      failed = true;
      return { status: 503 };
    };
    try {
      const answer = await sendTest(key, sensor.id);
      assert.equal(answer.status, 201, answer.text);
      await drain();
      const [pending] = await deliveries(key, sensor.id);
      assert.equal(pending.status, 'PENDING');
      assert.equal(pending.attempts, 1);
      assert.equal(pending.last_status_code, 503);
      assert.ok(Date.parse(pending.next_attempt_at) > Date.parse(await now()), 'a retry is scheduled');

      await server.ops.post('/clock', { advance_seconds: 10 });
      await drain();
      const [retried] = await deliveries(key, sensor.id);
      assert.equal(retried.status, 'SUCCEEDED');
      assert.equal(retried.attempts, 2);

      const redelivered = await server.http.request('POST', `/v1/sensors/${sensor.id}/deliveries/${answer.json.id}/redeliver`, { headers: bearer(key) });
      assert.equal(redelivered.status, 200, redelivered.text);
      assert.equal(redelivered.json.type, 'sensor.test');
      await drain();
      const arrived = at(path);
      assert.equal(arrived.length, 3, 'the 503, the retry, the redelivery');
      assert.ok(arrived.every((webhook) => webhook.headers['webhook-id'] === answer.json.id && webhook.body === arrived[0]!.body));
      const payload = verifyWebhook(sensor.signing_secret, arrived[2]!, await now()) as any;
      assert.equal(payload.type, 'sensor.test');
      assert.equal((await deliveries(key, sensor.id)).length, 1);
    } finally {
      receiver.reply = () => ({ status: 200 });
    }
  });

  it('when "Send test delivery" is pressed on the console\'s sensor page, then the page shows the new test delivery and it arrives signed', async () => {
    const { account, email } = await consoleAccount(server.ops);
    const key = await server.ops.createKey(account.id, SCOPES);
    const entity = await corpus.entity();
    await eventOf(entity, 1);
    const path = `/test-console-${unique()}`;
    const sensor = await sensorOn(key, entity, [path]);
    const browser = consoleClient(server.http);
    assert.equal((await browser.signIn(email)).status, 303);

    const page = await browser.get(`/console/sensors/${sensor.id}`);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`action="/console/sensors/${sensor.id}/test"`));
    assert.match(page.text, /data-testid="send-test-delivery"/);
    const pressed = await browser.post(`/console/sensors/${sensor.id}/test`);
    assert.equal(pressed.status, 303, pressed.text);
    assert.equal(pressed.headers.location, `/console/sensors/${sensor.id}?notice=test-sent`);
    const shown = await browser.get(pressed.headers.location!);
    assert.match(shown.text, /A test delivery was made/);
    const [delivery] = await deliveries(key, sensor.id);
    assert.equal(delivery.type, 'sensor.test');
    assert.match(shown.text, new RegExp(`data-testid="delivery-row" data-delivery-id="${delivery.id}"`));
    assert.match(shown.text, /data-label="Type"><div class="value">sensor\.test</);

    await drain();
    const [webhook] = at(path);
    assert.ok(webhook, 'delivered');
    assert.equal(webhook.headers['webhook-id'], delivery.id);
    assert.equal((verifyWebhook(sensor.signing_secret, webhook, await now()) as any).data.sensor_id, sensor.id);

    const withoutToken = await browser.post(`/console/sensors/${sensor.id}/test`, { _csrf: 'forged' });
    assert.equal(withoutToken.status, 403);
    const stranger = await corpus.account(0, SCOPES);
    const theirs = await sensorOn(stranger.key, entity, [`/test-console-theirs-${unique()}`]);
    await browser.get(`/console/sensors/${sensor.id}`);
    assert.equal((await browser.post(`/console/sensors/${theirs.id}/test`)).status, 404);
    assert.equal((await deliveries(key, sensor.id)).length, 1);
    assert.equal((await deliveries(stranger.key, theirs.id)).length, 0);
  });
});
