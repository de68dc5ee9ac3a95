import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

async function watch(server: TestServer, key: string, typeId: string, urls: string[]) {
  const created = await server.http.post(
    '/v1/sensors',
    { name: 'watch', filter: { event_type_id: typeId }, actions: urls.map((url) => ({ type: 'webhook', url })) },
    bearer(key),
  );
  assert.equal(created.status, 201, created.text);
  return created.json;
}

describe('webhook addresses without EVMON_WEBHOOK_ALLOW_PRIVATE', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;

  before(async () => {
    database = await isolatedDatabase();
    server = await startServer(database.env);
    corpus = testCorpus(server);
    receiver = await startReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await database.drop();
  });

  // Addresses written as IP literals are refused when the sensor is saved (webhook-addresses.test.ts).
  it('when a webhook host name resolves to loopback, then the connection is refused and nothing arrives; a name that does not resolve reads alike', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const port = receiver.port;
    const targets = [
      `https://localhost:${port}/by-name`,
      'https://no-such-host.invalid/unresolved', // .invalid never resolves (RFC 6761)
    ];
    const sensors = [];
    for (const url of targets) sensors.push(await watch(server, key, type.id, [url]));
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    await server.ops.post('/drain');
    assert.equal(receiver.received.length, 0);
    for (const [i, sensor] of sensors.entries()) {
      const [delivery] = (await server.http.get(`/v1/sensors/${sensor.id}/deliveries`, bearer(key))).json.data;
      assert.equal(delivery.attempts, 1, targets[i]);
      assert.equal(delivery.status, 'PENDING', targets[i]);
      assert.equal(delivery.last_status_code, null, targets[i]);
      // One wording for both, so last_error cannot tell which internal names exist.
      assert.equal(delivery.last_error, 'the host did not resolve to a public address', targets[i]);
    }
    // The server log keeps the difference for the operator.
    const causes = server.logs.filter((line) => line.includes('webhook attempt failed')).map((line) => JSON.parse(line).cause as string);
    assert.ok(
      causes.some((cause) => /localhost resolves to (127\.0\.0\.1|::1), not a public address/.test(cause)),
      causes.join('\n'),
    );
    assert.ok(
      causes.some((cause) => /^(ENOTFOUND|EAI_AGAIN)/.test(cause)),
      causes.join('\n'),
    );
  });
});

describe('EVMON_WEBHOOK_ALLOW_PRIVATE at start-up', () => {
  it('when it is set, then start-up logs a warning that the address rule is lifted; when unset, no such warning', async () => {
    const lifted = await startServer({ EVMON_WEBHOOK_ALLOW_PRIVATE: '1', EVMON_DATABASE_URL: 'memory://' });
    const kept = await startServer({ EVMON_DATABASE_URL: 'memory://' });
    try {
      const warnings = (server: TestServer) =>
        server.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40 && /EVMON_WEBHOOK_ALLOW_PRIVATE/.test(entry.msg));
      assert.equal(warnings(lifted).length, 1, lifted.logs.join(''));
      assert.match(warnings(lifted)[0].msg, /private, loopback and link-local addresses/);
      assert.equal(warnings(kept).length, 0);
    } finally {
      await lifted.close();
      await kept.close();
    }
  });
});

describe('webhook concurrency', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let slow: WebhookReceiver;
  let fast: WebhookReceiver;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;

  before(async () => {
    database = await isolatedDatabase();
    server = await startServer({ ...database.env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
    corpus = testCorpus(server);
    [slow, fast] = [await startReceiver(), await startReceiver()];
  });
  after(async () => {
    await slow.close(); // first, so the attempts it holds end now
    await fast.close();
    await server.close();
    await database.drop();
  });

  it('when one receiver hangs, then it holds at most its per-host share while other receivers and ingestion go on', async () => {
    const { key } = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    slow.reply = () => ({ status: 200, delayMs: 60_000 });
    for (let i = 0; i < 40; i++) await watch(server, key, type.id, [slow.url(`/slow/${i}`)]);
    await watch(server, key, type.id, [fast.url('/fast')]);
    const outlet = await corpus.outlet();
    await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });

    // The background dispatcher (no drain): the fast receiver is served while the slow one hangs.
    await fast.waitFor(1);
    await slow.waitFor(32);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(slow.received.length, 32, 'no more than 32 attempts at once on one host');
    const ingested = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    assert.ok(ingested);
    await fast.waitFor(2);
    assert.equal(slow.received.length, 32, 'the slow host is still full: its next deliveries wait their turn');
  });
});
