// The server as a real process: start-up, configuration errors, the data folder lock, restart
// durability, SIGTERM draining.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import https from 'node:https';
import { runOwned } from '../helpers/processes.js';
import { OPS_TOKEN, programArgs, ROOT, spawnServer, tempDir, timeLimit } from '../helpers/server.js';

describe('server process', () => {
  it('when a setting is invalid, then start-up stops with a message naming it', { timeout: timeLimit({ runs: 1 }) }, async (t) => {
    const result = await runOwned(t, process.execPath, programArgs('src/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, EVMON_PORT: 'eighty', EVMON_SEED: 'sometimes', EVMON_TRUSTED_PROXIES: '10.0.0.1,banana', EVMON_DATA_DIR: tempDir() },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_PORT must be a whole number/);
    assert.match(result.stderr, /EVMON_SEED must be demo or none/);
    assert.match(result.stderr, /EVMON_TRUSTED_PROXIES must list IP addresses or CIDR ranges.*banana/);
  });

  it('when the embedded database is on disk, then a restart keeps its data, and SIGTERM exits 0', { timeout: timeLimit({ starts: 2 }) }, async (t) => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir };
    const first = await spawnServer(t, env);
    const account = await first.ops.createAccount({ display_name: 'Durable', credit_balance: 7 });
    assert.equal(await first.stop('SIGTERM'), 0);

    const second = await spawnServer(t, env);
    try {
      const again = await second.ops.get(`/accounts/${account.id}`);
      assert.equal(again.display_name, 'Durable');
      assert.equal(again.credit_balance, 7);
    } finally {
      assert.equal(await second.stop('SIGTERM'), 0);
    }
  });

  it('when the port is taken, then start-up stops with a message naming it, after stopping the background work it had started', {
    timeout: timeLimit({ starts: 1 }),
  }, async (t) => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => taken.close());
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir, EVMON_PORT: String((taken.address() as net.AddressInfo).port) };
    const server = await spawnServer(t, env, { expectFailure: true });
    assert.equal(await server.exited, 1);
    assert.match(server.output(), /evmon failed to start: Error: listen EADDRINUSE/);
    // The runtime was closed before the process ended: closing saves the search index.
    assert.match(server.output(), /"msg":"search index saved"/);
    assert.ok(fs.existsSync(path.join(dataDir, 'search-index', 'index.v8')));
  });

  it('when a second process opens the same data folder, then it is refused with a clear message; after kill -9 a restart works', {
    timeout: timeLimit({ starts: 3 }),
  }, async (t) => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir };
    const first = await spawnServer(t, env);
    const second = await spawnServer(t, env, { expectFailure: true });
    assert.equal(await second.exited, 1);
    assert.match(second.output(), /in use by another evmon process \(pid \d+\)/);

    first.child.kill('SIGKILL');
    await first.exited;
    const third = await spawnServer(t, env);
    assert.equal((await third.http.get('/readyz')).status, 200);
    assert.equal(await third.stop(), 0);
  });

  it('when the database is empty and EVMON_SEED=demo, then the server is ready and the printed key works before the corpus is seeded; SIGTERM stops seeding cleanly, and a restart prints no key and warns the corpus is partial', {
    timeout: timeLimit({ starts: 2 }),
  }, async (t) => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir, EVMON_SEED: 'demo' };
    const first = await spawnServer(t, env);
    const key = /Demo API key[^:]*: (evk_[A-Za-z0-9_-]{43})/.exec(first.output())?.[1];
    assert.ok(key, first.output());
    const sensors = await first.http.get('/v1/sensors', { authorization: `Bearer ${key}` });
    assert.equal(sensors.status, 200);
    assert.match(first.output(), /"msg":"demo corpus: seeding in the background"/);
    // The 20,000 events take far longer than the requests above: SIGTERM arrives mid-seeding.
    assert.equal(await first.stop(), 0);
    assert.match(first.output(), /"msg":"demo corpus: seeding stopped before it was complete"/);
    const second = await spawnServer(t, env);
    assert.doesNotMatch(second.output(), /Demo API key/);
    assert.match(second.output(), /"level":40[^\n]*"msg":"demo corpus incomplete/);
    assert.equal(await second.stop(), 0);
  });

  it('when the demo corpus is seeded in the background, then progress is logged after ready, and search finds its events once it is complete', {
    timeout: timeLimit({ starts: 2, otherMs: 150_000 }),
  }, async (t) => {
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir(), EVMON_SEED: 'demo', EVMON_TEST_DEMO_EVENTS: '300' };
    const server = await spawnServer(t, env);
    try {
      const key = /Demo API key[^:]*: (evk_[A-Za-z0-9_-]{43})/.exec(server.output())?.[1];
      assert.ok(key, server.output());
      await server.waitForOutput(/"msg":"demo corpus seeded"/, 120_000);
      const output = server.output();
      const ready = output.indexOf('"msg":"ready"');
      assert.ok(ready >= 0 && ready < output.indexOf('"msg":"demo corpus: events loaded"'), 'progress is logged after ready');
      assert.ok(output.indexOf('"msg":"demo corpus: events loaded"') < output.indexOf('"msg":"demo corpus seeded"'));
      // The last 30 days first, before the older events' progress.
      const recent = output.indexOf('"msg":"demo corpus: the last 30 days are loaded and searchable');
      assert.ok(ready < recent && recent < output.indexOf('"msg":"demo corpus: events loaded"'), output);
      // The last line measures the clustering against the generator's ground truth.
      assert.match(output, /"bcubed_precision":(0\.\d+|1),"bcubed_recall":(0\.\d+|1),[^\n]*"msg":"demo corpus seeded"/);
      const found = await server.http.request('POST', '/v1/events/search', {
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
        body: { lookback_days: 365, limit: 1 },
      });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.json.data.length, 1);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const restarted = await spawnServer(t, env);
    assert.doesNotMatch(restarted.output(), /demo corpus incomplete/);
    assert.equal(await restarted.stop(), 0);
  });

  it('when a request is in flight at SIGTERM, then it completes before the process exits 0', { timeout: timeLimit({ starts: 1 }) }, async (t) => {
    const server = await spawnServer(t, { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() });
    const body = JSON.stringify({ display_name: 'Arrived during shutdown' });
    const url = new URL(server.http.baseUrl);
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = https.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/ops/v1/accounts',
          method: 'POST',
          ca: server.ca,
          servername: 'localhost',
          headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      // Half the body now, SIGTERM while the server waits for the rest, then the rest.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 300);
    });
    const answered = await response;
    assert.equal(answered.status, 201, answered.text);
    assert.equal(JSON.parse(answered.text).display_name, 'Arrived during shutdown');
    assert.equal(await server.exited, 0);
    await server.stop();
  });
});
