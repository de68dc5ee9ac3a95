// The server as a real process: start-up, configuration errors, the data folder lock, restart
// durability, SIGTERM draining.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import https from 'node:https';
import { OPS_TOKEN, ROOT, spawnServer, tempDir } from '../helpers/server.js';

describe('server process', () => {
  it('when a setting is invalid, then start-up stops with a message naming it', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, EVMON_PORT: 'eighty', EVMON_SEED: 'sometimes', EVMON_TRUSTED_PROXIES: '10.0.0.1,banana', EVMON_DATA_DIR: tempDir() },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_PORT must be a whole number/);
    assert.match(result.stderr, /EVMON_SEED must be demo or none/);
    assert.match(result.stderr, /EVMON_TRUSTED_PROXIES must list IP addresses or CIDR ranges.*banana/);
  });

  it('when the embedded database is on disk, then a restart keeps its data, and SIGTERM exits 0', { skip: false }, async () => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir };
    const first = await spawnServer(env);
    const account = await first.ops.createAccount({ display_name: 'Durable', credit_balance: 7 });
    assert.equal(await first.stop('SIGTERM'), 0);

    const second = await spawnServer(env);
    try {
      const again = await second.ops.get(`/accounts/${account.id}`);
      assert.equal(again.display_name, 'Durable');
      assert.equal(again.credit_balance, 7);
    } finally {
      assert.equal(await second.stop('SIGTERM'), 0);
    }
  });

  it('when a second process opens the same data folder, then it is refused with a clear message; after kill -9 a restart works', async () => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir };
    const first = await spawnServer(env);
    const second = await spawnServer(env, { expectFailure: true });
    assert.equal(await second.exited, 1);
    assert.match(second.output(), /in use by another evmon process \(pid \d+\)/);

    first.child.kill('SIGKILL');
    await first.exited;
    const third = await spawnServer(env);
    assert.equal((await third.http.get('/readyz')).status, 200);
    assert.equal(await third.stop(), 0);
  });

  it('when the database is empty and EVMON_SEED=demo, then a demo key with every scope is printed once', async () => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir, EVMON_SEED: 'demo' };
    const first = await spawnServer(env);
    const key = /Demo API key[^:]*: (evk_[A-Za-z0-9_-]{43})/.exec(first.output())?.[1];
    assert.ok(key, first.output());
    const sensors = await first.http.get('/v1/sensors', { authorization: `Bearer ${key}` });
    assert.equal(sensors.status, 200);
    assert.equal(await first.stop(), 0);
    const second = await spawnServer(env);
    assert.doesNotMatch(second.output(), /Demo API key/);
    assert.equal(await second.stop(), 0);
  });

  it('when a request is in flight at SIGTERM, then it completes before the process exits 0', async () => {
    const server = await spawnServer({ EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() });
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
