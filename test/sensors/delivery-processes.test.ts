import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, PG_URL, spawnServer, spawnServers, timeLimit, tempDir, type SpawnedServer } from '../helpers/server.js';
import { startReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

async function setUp(server: SpawnedServer, receiver: WebhookReceiver, sensors: number) {
  const corpus = testCorpus(server);
  const account = await corpus.account(0, SCOPES);
  const type = await corpus.eventType();
  const created = [];
  for (let i = 0; i < sensors; i++) {
    const sensor = await server.http.post(
      '/v1/sensors',
      { name: `s${i}`, filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: receiver.url(`/s${i}`) }] },
      bearer(account.key),
    );
    assert.equal(sensor.status, 201, sensor.text);
    created.push(sensor.json);
  }
  const outlet = await corpus.outlet();
  const ingest = async (on: SpawnedServer) =>
    testCorpus(on).article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
  return { account, sensors: created, ingest };
}

describe('deliveries across restarts and processes', () => {
  let receiver: WebhookReceiver;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  const servers: SpawnedServer[] = [];

  before(async () => {
    receiver = await startReceiver();
    database = await isolatedDatabase();
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await receiver.close();
    await database.drop();
  });

  it('when the server is killed with deliveries pending, then after a restart they are delivered under the same webhook-id', {
    timeout: timeLimit({ starts: 2, otherMs: 60_000 }),
  }, async (t) => {
    // On the embedded database, a data folder that outlives the process (not memory://).
    const env = { EVMON_DATABASE_URL: '', ...database.env, EVMON_DATA_DIR: tempDir(), EVMON_WEBHOOK_ALLOW_PRIVATE: '1' };
    const first = await spawnServer(t, env);
    servers.push(first);
    await first.ops.post('/clock', { now: NOW });
    receiver.reply = () => ({ status: 503 });
    const { account, sensors, ingest } = await setUp(first, receiver, 1);
    const eventId = await ingest(first);
    await first.ops.post('/drain');
    assert.equal(receiver.received.length, 1, 'a first attempt, refused by the receiver');
    const failedId = receiver.received[0]!.headers['webhook-id'];
    // On the embedded database (alone on its folder), an attempt cut off by the crash is free
    // again at start-up; on PostgreSQL its lease would hold it for two minutes.
    const midAttempt = PG_URL === null;
    if (midAttempt) {
      receiver.reply = () => ({ status: 200, delayMs: 60_000 });
      await ingest(first);
      await receiver.waitFor(2);
    }
    await first.stop('SIGKILL');

    // The restarted server's clock starts at the system time, past the retry: it is due at once.
    receiver.reply = () => ({ status: 204 });
    const second = await spawnServer(t, env);
    servers.push(second);
    await second.ops.post('/drain');
    assert.equal(receiver.received.length, midAttempt ? 4 : 2);
    const retried = receiver.received.find((r, i) => i > 0 && r.headers['webhook-id'] === failedId)!;
    assert.equal(retried.headers['webhook-id'], failedId);
    const payload = verifyWebhook(sensors[0].signing_secret, retried, Number(retried.headers['webhook-timestamp']) * 1000) as any;
    assert.equal(payload.data.event.id, eventId);
    const list = (await second.http.get(`/v1/sensors/${sensors[0].id}/deliveries`, bearer(account.key))).json.data;
    assert.equal(list.length, midAttempt ? 2 : 1);
    for (const delivery of list) {
      assert.equal(delivery.status, 'SUCCEEDED');
      assert.equal(delivery.attempts, 2, 'the failed or interrupted attempt, then the one after the restart');
      assert.equal(delivery.last_status_code, 204);
    }
    assert.ok(list.some((delivery: { id: string }) => delivery.id === failedId));
    await second.stop();
  });

  it('when two server processes share PostgreSQL, then each delivery attempt is made once', {
    skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false,
    timeout: timeLimit({ starts: 2, otherMs: 60_000 }),
  }, async (t) => {
    receiver.received.length = 0;
    receiver.reply = () => ({ status: 500, delayMs: 20 });
    const pair = await spawnServers(t, 2, { ...database.env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
    servers.push(...pair);
    const [a, b] = pair as [SpawnedServer, SpawnedServer];
    // Each process has its own test clock: keep them together.
    const setClocks = (now: string) => Promise.all(pair.map((server) => server.ops.post('/clock', { now })));
    await setClocks(NOW);
    const { sensors, ingest } = await setUp(a, receiver, 60);
    await ingest(a);
    await ingest(b);
    await Promise.all([a.ops.post('/drain'), b.ops.post('/drain')]);
    await receiver.waitFor(120);
    await new Promise((resolve) => setTimeout(resolve, 500)); // any duplicate would arrive meanwhile
    const firstIds = receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(firstIds.length, 120);
    assert.equal(new Set(firstIds).size, 120, 'no first attempt made twice');
    assert.equal(sensors.length, 60);

    // The retries, due together on both processes: each made once.
    receiver.reply = () => ({ status: 200, delayMs: 20 });
    await setClocks(new Date(Date.parse(NOW) + 60_000).toISOString());
    await Promise.all([a.ops.post('/drain'), b.ops.post('/drain')]);
    await receiver.waitFor(240);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const retryIds = receiver.received.slice(120).map((r) => r.headers['webhook-id']);
    assert.equal(retryIds.length, 120);
    assert.deepEqual(new Set(retryIds), new Set(firstIds), 'each delivery retried once, under its own webhook-id');
  });
});
