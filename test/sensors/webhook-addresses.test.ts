// Webhook addresses when a sensor is saved (decisions.md, 2026-11-25): a URL whose host is an IP
// address literal outside public space, however the URL writes it, is 400 validation-failed at
// create and update, pointing at /actions/<i>/url, unless EVMON_WEBHOOK_ALLOW_PRIVATE=1. Host
// names are judged when connecting; so is a literal saved before the rule or while it was lifted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { isolatedDatabase, PG_URL, prepareDataDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

/**
 * Outside public address space, in the forms a URL can write them; each with the address it
 * means. Each path differs, since several forms of one address are one URL once normalized.
 */
const REFUSED: [url: string, address: string][] = (
  [
    ['https://127.0.0.1/hook', '127.0.0.1'],
    ['https://0x7f.1/hook', '127.0.0.1'],
    ['https://2130706433/hook', '127.0.0.1'],
    ['https://127.1:8443/hook', '127.0.0.1'],
    ['https://0177.0.0.1/hook', '127.0.0.1'],
    ['https://127.0.0.1./hook', '127.0.0.1'],
    ['https://%31%32%37.0.0.1/hook', '127.0.0.1'],
    ['https://0/hook', '0.0.0.0'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://172.16.5.4/hook', '172.16.5.4'],
    ['https://192.168.0.10/hook', '192.168.0.10'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['https://100.100.100.200/metadata', '100.100.100.200'],
    ['https://224.0.0.1/hook', '224.0.0.1'],
    ['https://240.0.0.1/hook', '240.0.0.1'],
    ['https://255.255.255.255/hook', '255.255.255.255'],
    ['https://192.0.2.1/hook', '192.0.2.1'],
    ['https://198.51.100.7/hook', '198.51.100.7'],
    ['https://203.0.113.9/hook', '203.0.113.9'],
    ['https://198.18.0.1/hook', '198.18.0.1'],
    ['https://[::1]/hook', '::1'],
    ['https://[0:0:0:0:0:0:0:1]:8443/hook', '::1'],
    ['https://[::]/hook', '::'],
    ['https://[fe80::1]/hook', 'fe80::1'],
    ['https://[fd00:ec2::254]/metadata', 'fd00:ec2::254'],
    ['https://[ff02::1]/hook', 'ff02::1'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
    ['https://[::ffff:a00:1]/hook', '::ffff:a00:1'],
    ['https://[::7f00:1]/hook', '::7f00:1'],
    ['https://[2001:db8::1]/hook', '2001:db8::1'],
  ] as [string, string][]
).map(([url, address], i) => [`${url}-${i}`, address]);

/** Public addresses, and host names (judged when connecting, whatever they resolve to). */
const ACCEPTED = ['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://[::ffff:8.8.8.8]/hook', 'https://localhost:8443/hook'];

const chunks = <T>(items: T[], size: number) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));
const webhooks = (urls: string[]) => urls.map((url) => ({ type: 'webhook', url }));

describe('webhook addresses when a sensor is saved', () => {
  let kept: TestServer;
  let lifted: TestServer;

  before(async () => {
    kept = await startServer();
    lifted = await startServer({ EVMON_WEBHOOK_ALLOW_PRIVATE: '1', EVMON_DATABASE_URL: 'memory://' });
  });
  after(async () => {
    await kept.close();
    await lifted.close();
  });

  async function sensorMaker(server: TestServer) {
    const corpus: TestCorpus = testCorpus(server);
    const { key } = await corpus.account(0, SCOPES);
    const filter = { event_type_id: (await corpus.eventType()).id };
    const call = (method: string, path: string, body: unknown): Promise<HttpResponse> =>
      server.http.request(method, `/v1${path}`, { headers: bearer(key), body });
    return { create: (urls: string[]) => call('POST', '/sensors', { name: 'watch', filter, actions: webhooks(urls) }), call };
  }
  const refusal = (server: TestServer, response: HttpResponse) => {
    assert.equal(response.status, 400, response.text);
    assert.equal(response.json.type, `${server.docsUrl}/problems/validation-failed`);
    return new Map((response.json.errors as { pointer: string; detail: string }[]).map((e) => [e.pointer, e.detail]));
  };

  it('when a webhook URL names a non-public IP address, however written, then create is 400 pointing at each such action; public addresses and host names pass', async () => {
    const { create } = await sensorMaker(kept);
    for (const batch of chunks(REFUSED, 4)) {
      // A public webhook first, so the pointers show which action is refused.
      const errors = refusal(kept, await create(['https://8.8.4.4/first', ...batch.map(([url]) => url)]));
      assert.deepEqual(
        [...errors.keys()],
        batch.map((_, i) => `/actions/${i + 1}/url`),
      );
      for (const [i, [url, address]] of batch.entries())
        assert.equal(errors.get(`/actions/${i + 1}/url`), `names the address ${address}, which is not a public address`, url);
    }
    const accepted = await create(ACCEPTED);
    assert.equal(accepted.status, 201, accepted.text);
    assert.deepEqual(
      accepted.json.actions.map((action: { url: string }) => action.url),
      ['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://[::ffff:808:808]/hook', 'https://localhost:8443/hook'],
    );
  });

  it('when a PATCH sets a webhook URL naming a non-public IP address, then 400 pointing at it, and the sensor keeps its webhooks', async () => {
    const { create, call } = await sensorMaker(kept);
    const sensor = (await create(['https://hooks.example.com/h'])).json;
    for (const batch of chunks(REFUSED, 5)) {
      const errors = refusal(kept, await call('PATCH', `/sensors/${sensor.id}`, { actions: webhooks(batch.map(([url]) => url)) }));
      assert.deepEqual(
        [...errors.keys()],
        batch.map((_, i) => `/actions/${i}/url`),
      );
    }
    // Judged before the sensor is looked up, as the other action rules.
    refusal(kept, await call('PATCH', '/sensors/01900000-0000-7000-8000-000000000000', { actions: webhooks(['https://10.0.0.1/']) }));
    const unchanged = await call('GET', `/sensors/${sensor.id}`, undefined);
    assert.deepEqual(unchanged.json.actions, sensor.actions);
    const patched = await call('PATCH', `/sensors/${sensor.id}`, { actions: webhooks(['https://[2606:4700:4700::1111]/hook', 'https://localhost/h']) });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.actions.length, 2);
  });

  it('when EVMON_WEBHOOK_ALLOW_PRIVATE=1, then the same addresses are accepted at create and update, stored as the URL parser normalizes them', async () => {
    const { create, call } = await sensorMaker(lifted);
    const created = await create(['https://0x7f.1:9/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://10.1.2.3/hook']);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.json.actions.map((action: { url: string }) => action.url),
      ['https://127.0.0.1:9/hook', 'https://[::ffff:7f00:1]/hook', 'https://10.1.2.3/hook'],
    );
    for (const batch of chunks(REFUSED, 5)) {
      const patched = await call('PATCH', `/sensors/${created.json.id}`, { actions: webhooks(batch.map(([url]) => url)) });
      assert.equal(patched.status, 200, patched.text);
    }
  });
});

describe('a non-public address saved while the rule was lifted', () => {
  it('when a server with the rule delivers to it, then the connection is refused and nothing arrives', async () => {
    const database = await isolatedDatabase();
    // Two servers one after the other on one database: an embedded one on disk, or a schema of PostgreSQL.
    const env = PG_URL === null ? { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() } : database.env;
    if (PG_URL === null) prepareDataDir(env);
    const receiver = await startReceiver();
    try {
      const path = `/saved-${unique()}`;
      const before = await startServer({ ...env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
      let key: string;
      let typeId: string;
      try {
        const corpus = testCorpus(before);
        ({ key } = await corpus.account(0, SCOPES));
        typeId = (await corpus.eventType()).id;
        const created = await before.http.post(
          '/v1/sensors',
          { name: 'saved', filter: { event_type_id: typeId }, actions: webhooks([`https://127.0.0.1:${receiver.port}${path}`]) },
          bearer(key),
        );
        assert.equal(created.status, 201, created.text);
      } finally {
        await before.close();
      }

      const server = await startServer(env);
      try {
        const corpus = testCorpus(server);
        await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: typeId, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
        await server.ops.post('/drain');
        assert.equal(receiver.received.length, 0);
        const [sensor] = (await server.http.get('/v1/sensors', bearer(key))).json.data;
        const [delivery] = (await server.http.get(`/v1/sensors/${sensor.id}/deliveries`, bearer(key))).json.data;
        assert.equal(delivery.attempts, 1);
        assert.equal(delivery.status, 'PENDING');
        assert.equal(delivery.last_error, 'the host did not resolve to a public address');
        assert.ok(
          server.logs.some((line) => line.includes('refused: 127.0.0.1 resolves to 127.0.0.1, not a public address')),
          server.logs.join(''),
        );
      } finally {
        await server.close();
      }
    } finally {
      await receiver.close();
      await database.drop();
    }
  });
});
