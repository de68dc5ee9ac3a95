import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

describe('sensor deliveries', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let outlet: string;

  before(async () => {
    server = await startServer({ EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
    corpus = testCorpus(server);
    receiver = await startReceiver();
    await server.ops.post('/clock', { now: NOW });
    outlet = await corpus.outlet();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const drain = () => server.ops.post('/drain');
  const now = async () => (await server.ops.get('/clock')).now as string;
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });

  async function sensor(key: string, filter: Record<string, unknown>, path: string, extra: Record<string, unknown> = {}) {
    const created = await server.http.post('/v1/sensors', { name: 'watch', filter, actions: [{ type: 'webhook', url: receiver.url(path) }], ...extra }, bearer(key));
    assert.equal(created.status, 201, created.text);
    return created.json;
  }
  const received = (path: string) => receiver.received.filter((r) => r.path === path);
  const deliveries = async (key: string, sensorId: string) => {
    const list = await server.http.get(`/v1/sensors/${sensorId}/deliveries`, bearer(key));
    assert.equal(list.status, 200, list.text);
    return list.json.data;
  };

  it('when an event matches, then one signed event.matched delivery arrives, verified by a Standard Webhooks library, and never a second', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const entity = await corpus.entity();
    const watching = await sensor(account.key, { involved_entity_ids: [entity] }, '/one');
    const eventId = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    await drain();
    const [webhook] = received('/one');
    assert.ok(webhook, 'delivered');
    const payload = verifyWebhook(watching.signing_secret, webhook, await now()) as any;
    assert.equal(payload.type, 'event.matched');
    assert.equal(payload.data.sensor_id, watching.id);
    assert.equal(payload.data.event.id, eventId);
    assert.equal(payload.data.event.object, 'event');
    assert.deepEqual(payload.data.event.event_type, { code_name: type.code_name });
    assert.equal(typeof payload.timestamp, 'string');
    assert.equal(webhook.headers['content-type'], 'application/json');
    assert.equal(webhook.headers['webhook-timestamp'], String(Math.floor(Date.parse(await now()) / 1000)));

    // A second report on the same event: matched again, delivered never again.
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, incident_id: eventId, roles: [{ role: 'party', entity_id: entity }] });
    await drain();
    assert.equal(received('/one').length, 1);
    const [delivery] = await deliveries(account.key, watching.id);
    assert.equal(delivery.id, webhook.headers['webhook-id']);
    assert.equal(delivery.object, 'sensor_delivery');
    assert.equal(delivery.type, 'event.matched');
    assert.equal(delivery.event_id, eventId);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.equal(delivery.next_attempt_at, null);
  });
});
