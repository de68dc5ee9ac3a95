// EVMON_ROLE (operations.md, added 2026-11-25): an api process serves requests and stores
// background work; a worker process does that work and answers only its probes and metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { scrape } from '../helpers/metrics.js';
import { runOwned } from '../helpers/processes.js';
import { isolatedDatabase, OPS_TOKEN, PG_URL, programArgs, ROOT, spawnServer, tempDir, timeLimit } from '../helpers/server.js';
import { startReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SENSORS_KIND = 'corpus.event-changed:sensors';
/** Several times the workers' poll intervals (jobs 0.5 s, webhooks 0.25 s): what any poller would have claimed by then. */
const POLLS_MS = 2_000;

/** Reads until `done` holds, or gives the last reading after `timeoutMs` (the assertions after it then fail). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('process roles', () => {
  let receiver: WebhookReceiver;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;

  before(async () => {
    receiver = await startReceiver();
    database = await isolatedDatabase();
  });
  after(async () => {
    await receiver.close();
    await database.drop();
  });

  it('when EVMON_ROLE=api is set on the embedded database, then start-up refuses, saying it needs PostgreSQL', {
    timeout: timeLimit({ runs: 1 }),
  }, async (t) => {
    const result = await runOwned(t, process.execPath, programArgs('src/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, EVMON_ROLE: 'api', EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_ROLE=api needs PostgreSQL \(EVMON_DATABASE_URL=postgres:\/\/…\)/);
  });

  it('when an api and a worker process share PostgreSQL, then the api alone stores the work and delivers nothing, the worker delivers it, and the worker serves only its probes and metrics', {
    skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false,
    timeout: timeLimit({ starts: 2, otherMs: 90_000 }),
  }, async (t) => {
    const env = { ...database.env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' };
    // The api first: each process's test clock starts at its own start, so the worker's is
    // later and the work the api stores is due for it.
    const api = await spawnServer(t, { ...env, EVMON_ROLE: 'api' });
    const corpus = testCorpus(api);
    const account = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    const type = await corpus.eventType();
    const sensor = await api.http.post(
      '/v1/sensors',
      { name: 'roles', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: receiver.url('/roles') }] },
      bearer(account.key),
    );
    assert.equal(sensor.status, 201, sensor.text);
    const eventId = await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: type.id,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });

    // Alone, the api leaves the change's jobs where it stored them.
    await new Promise((resolve) => setTimeout(resolve, POLLS_MS));
    const alone = await scrape(api.http);
    assert.equal(alone.value('evmon_jobs_backlog', { kind: SENSORS_KIND }), 1);
    assert.equal(receiver.received.length, 0);

    const worker = await spawnServer(t, { ...env, EVMON_ROLE: 'worker' });
    const [delivered] = await receiver.waitFor(1, 60_000);
    const payload = verifyWebhook(sensor.json.signing_secret, delivered!, Number(delivered!.headers['webhook-timestamp']) * 1000) as any;
    assert.equal(payload.type, 'event.matched');
    assert.equal(payload.data.event.id, eventId);

    // Each process's metrics say who did the work. The worker counts the attempt once the
    // receiver has answered, and each subscriber once its job is marked done: read until then.
    const workerMetrics = await eventually(
      () => scrape(worker.http),
      (m) =>
        m.value('evmon_webhook_attempts_total', { outcome: 'succeeded' }) === 1 &&
        m.value('evmon_event_change_lag_seconds_count', { subscriber: 'sensors' }) === 1 &&
        m.value('evmon_event_change_lag_seconds_count', { subscriber: 'beats' }) === 1,
    );
    assert.equal(workerMetrics.value('evmon_webhook_attempts_total'), 1);
    assert.equal(workerMetrics.value('evmon_event_change_lag_seconds_count', { subscriber: 'sensors' }), 1);
    assert.equal(workerMetrics.value('evmon_event_change_lag_seconds_count', { subscriber: 'beats' }), 1);
    assert.equal(workerMetrics.value('evmon_jobs_backlog', { kind: SENSORS_KIND }), 0);
    const apiMetrics = await scrape(api.http);
    assert.equal(apiMetrics.value('evmon_webhook_attempts_total'), 0);
    assert.equal(apiMetrics.value('evmon_event_change_lag_seconds_count'), 0);
    // The worker writes the outcome just after counting it.
    const deliveries = await eventually(
      () => api.http.get(`/v1/sensors/${sensor.json.id}/deliveries`, bearer(account.key)),
      (list) => list.json.data[0]?.status === 'SUCCEEDED',
    );
    assert.deepEqual(
      deliveries.json.data.map((d: { id: string; status: string }) => [d.id, d.status]),
      [[delivered!.headers['webhook-id'], 'SUCCEEDED']],
    );

    // The worker: probes and metrics, and 404 for everything else, operator routes included.
    assert.equal((await worker.http.get('/healthz')).status, 200);
    assert.equal((await worker.http.get('/readyz')).status, 200);
    assert.equal((await worker.http.get('/ops/v1/metrics')).status, 401);
    for (const path of ['/v1/sensors', `/v1/sensors/${sensor.json.id}`, '/v1/openapi.json', '/docs', '/console', '/mcp']) {
      assert.equal((await worker.http.get(path, bearer(account.key))).status, 404, path);
    }
    assert.equal((await worker.http.get('/ops/v1/plans', bearer(OPS_TOKEN))).status, 404);
    assert.equal((await worker.http.post('/ops/v1/drain', {}, bearer(OPS_TOKEN))).status, 404);

    assert.equal(await worker.stop(), 0);
    assert.equal(await api.stop(), 0);
  });
});
