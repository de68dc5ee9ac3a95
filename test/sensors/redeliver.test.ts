// POST /v1/sensors/{id}/deliveries/{delivery_id}/redeliver (decisions.md, "Account
// self-service"): a finished delivery attempted again with the same webhook-id and body, a
// fresh timestamp and signature and a fresh retry schedule.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

describe('sensor redelivery', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(NOW));
  });
  after(() => close());

  /** A sensor whose webhook at `path` got one delivery; answers it all. */
  async function delivered(path: string) {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const entity = await corpus.entity();
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'watch', filter: { involved_entity_ids: [entity] }, actions: [{ type: 'webhook', url: receiver.url(path) }] },
      bearer(account.key),
    );
    assert.equal(created.status, 201, created.text);
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    await server.ops.post('/drain');
    const list = await server.http.get(`/v1/sensors/${created.json.id}/deliveries`, bearer(account.key));
    return { account, sensor: created.json, delivery: list.json.data[0] };
  }
  const redeliver = (key: string, sensorId: string, deliveryId: string, headers: Record<string, string> = {}) =>
    server.http.request('POST', `/v1/sensors/${sensorId}/deliveries/${deliveryId}/redeliver`, { headers: { ...bearer(key), ...headers } });
  const at = (path: string) => receiver.received.filter((r) => r.path === path);

  it('when a succeeded delivery is redelivered, then the same webhook-id and body arrive again with a fresh timestamp and a valid signature', async () => {
    const path = `/again-${unique()}`;
    const { account, sensor, delivery } = await delivered(path);
    assert.equal(delivery.status, 'SUCCEEDED');
    await server.ops.post('/clock', { advance_seconds: 120 });
    const answer = await redeliver(account.key, sensor.id, delivery.id);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.id, delivery.id);
    await server.ops.post('/drain');
    const [first, second] = at(path);
    assert.ok(second, 'delivered again');
    assert.equal(second.headers['webhook-id'], first!.headers['webhook-id']);
    assert.equal(second.body, first!.body);
    assert.equal(Number(second.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp']), 120);
    verifyWebhook(sensor.signing_secret, second, (await server.ops.get('/clock')).now);
    const [after] = (await server.http.get(`/v1/sensors/${sensor.id}/deliveries`, bearer(account.key))).json.data;
    assert.equal(after.status, 'SUCCEEDED');
    assert.equal(after.attempts, 1, 'a fresh schedule');
  });

  it("when a delivery is still pending, then redeliver is 409; another account's sensor or delivery is 404; an Idempotency-Key replays", async () => {
    const path = `/pending-${unique()}`;
    receiver.reply = (webhook) => (webhook.path === path ? { status: 503 } : { status: 200 });
    try {
      const { account, sensor, delivery } = await delivered(path);
      assert.equal(delivery.status, 'PENDING');
      const pending = await redeliver(account.key, sensor.id, delivery.id);
      assert.equal(pending.status, 409, pending.text);
      assert.equal(pending.json.type, `${server.docsUrl}/problems/state-conflict`);
      receiver.reply = () => ({ status: 200 });

      const other = await corpus.account(0, SCOPES);
      const foreign = await redeliver(other.key, sensor.id, delivery.id);
      assert.equal(foreign.status, 404);
      const unknown = await redeliver(account.key, sensor.id, '01900000-0000-7000-8000-000000000000');
      assert.equal(unknown.status, 404);
      assert.equal((await redeliver(account.key, sensor.id, 'not-a-uuid')).status, 400);

      // Let it succeed on its schedule, then redeliver once under a key, twice sent.
      await server.ops.post('/clock', { advance_seconds: 10 });
      await server.ops.post('/drain');
      const key = `redeliver-${unique()}`;
      const once = await redeliver(account.key, sensor.id, delivery.id, { 'idempotency-key': key });
      assert.equal(once.status, 200, once.text);
      await server.ops.post('/drain');
      const replayed = await redeliver(account.key, sensor.id, delivery.id, { 'idempotency-key': key });
      assert.equal(replayed.headers['idempotency-replayed'], 'true');
      await server.ops.post('/drain');
      assert.equal(at(path).filter((r) => r.headers['webhook-id'] === delivery.id).length, 3, 'the 503, the scheduled retry, one redelivery');
    } finally {
      receiver.reply = () => ({ status: 200 });
    }
  });
});
