// Webhook signing secrets at rest (operations.md, EVMON_ENCRYPTION_KEY): sealed with
// AES-256-GCM under the operator's key (or the embedded database's key file), never in the
// database in clear; deliveries still verify with the secret the API showed; a key rotation
// re-encrypts; a wrong key stops start-up instead of signing with garbage; rows an earlier
// version kept in clear are sealed on upgrade.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { completeFilter } from '../../src/modules/sensors/sensors.service.js';
import type { Database } from '../../src/platform/db/database.js';
import { listMigrations } from '../../src/platform/db/migrate.js';
import { openPglite } from '../../src/platform/db/pglite.js';
import { openPostgres } from '../../src/platform/db/postgres.js';
import { decodeKey } from '../../src/config.js';
import { keyIdOf } from '../../src/platform/secret-box.js';
import { evmon } from '../helpers/evmon.js';
import { bearer } from '../helpers/http.js';
import { runOwned } from '../helpers/processes.js';
import { isolatedDatabase, PG_URL, programArgs, ROOT, spawnServer, tempDir, timeLimit, type SpawnedServer } from '../helpers/server.js';
import { startDeliveryServer, startReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

/** Every form in which a `whsec_` secret could sit in a row: as it is, its base64 body, its 32 bytes in hex, and the hex of its text (a bytea column). */
function spellings(secret: string): string[] {
  const body = secret.slice('whsec_'.length);
  const bytes = Buffer.from(body, 'base64');
  return [secret, body, bytes.toString('hex'), bytes.toString('base64url'), Buffer.from(secret).toString('hex'), Buffer.from(body).toString('hex')];
}

/** Rows of any table of the database whose text holds one of the secrets in any spelling, as `table: count`. */
async function rowsHolding(db: Pick<Database, 'query'>, secrets: string[]): Promise<string[]> {
  const needles = secrets.flatMap(spellings);
  const tables = await db.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1');
  assert.ok(
    tables.some((table) => table.name === 'sensors'),
    'the scan reads the tables of the service',
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${name}" t WHERE EXISTS (SELECT FROM unnest($1::text[]) AS s WHERE strpos(t::text, s) > 0)`,
      [needles],
    );
    if (rows[0]!.n > 0) found.push(`${name}: ${rows[0]!.n}`);
  }
  return found;
}

type StoredSecrets = { signing_secret: string; previous_signing_secret: string | null };

/** The key id a sealed value names (`v1.<key id>.<nonce>.<ciphertext>.<tag>`). */
const keyIdIn = (stored: string) => {
  assert.match(stored, /^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  return stored.split('.')[1];
};

/** On the embedded database on disk or a PostgreSQL schema of the test's own: the env of its servers, and the database opened directly while none runs. */
async function databaseOnDisk(t: TestContext) {
  const database = await isolatedDatabase();
  t.after(() => database.drop());
  const dataDir = tempDir();
  const env: Record<string, string> = { EVMON_DATABASE_URL: '', ...database.env, EVMON_DATA_DIR: dataDir };
  return {
    env: { ...env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' },
    async read<T>(work: (db: Database) => Promise<T>): Promise<T> {
      const db = PG_URL === null ? await openPglite(path.join(dataDir, 'pglite')) : await openPostgres(env.EVMON_DATABASE_URL!);
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    },
  };
}

async function receiverFor(t: TestContext): Promise<WebhookReceiver> {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  return receiver;
}

/** Starts a server on `env`, its clock at NOW. */
async function started(t: TestContext, env: Record<string, string>): Promise<SpawnedServer> {
  const server = await spawnServer(t, env);
  await server.ops.post('/clock', { now: NOW });
  return server;
}

/** Sends a test delivery of the sensor, lets it be attempted, and answers what arrived at `path`. */
async function testDelivery(server: Pick<SpawnedServer, 'http' | 'ops'>, receiver: WebhookReceiver, key: string, sensorId: string, at: string) {
  const before = receiver.received.filter((r) => r.path === at).length;
  const sent = await server.http.post(`/v1/sensors/${sensorId}/test`, undefined, bearer(key));
  assert.equal(sent.status, 201, sent.text);
  await server.ops.post('/drain');
  const arrived = receiver.received.filter((r) => r.path === at);
  assert.equal(arrived.length, before + 1, `one test delivery arrived at ${at}`);
  return arrived.at(-1)!;
}

/** A sensor of a new account whose webhook is `receiver` at `at`; answers the key and the sensor (with its one-time secret). */
async function sensorOf(server: Pick<SpawnedServer, 'http' | 'ops'>, receiver: WebhookReceiver, at: string) {
  const owner = await server.ops.createKey((await server.ops.createAccount()).id, SCOPES);
  const created = await server.http.post(
    '/v1/sensors',
    { name: 'watch', filter: { required_source_news_outlet_ids: [randomUUID()] }, actions: [{ type: 'webhook', url: receiver.url(at) }] },
    bearer(owner),
  );
  assert.equal(created.status, 201, created.text);
  return { key: owner, sensor: created.json as { id: string; signing_secret: string } };
}

describe('webhook signing secrets at rest', () => {
  it('when a sensor is created and its secret rotated over HTTPS, then no table holds either secret in clear, and deliveries verify with the secrets the API showed', async () => {
    const { server, receiver, close } = await startDeliveryServer(NOW);
    try {
      const { key, sensor } = await sensorOf(server, receiver, '/at-rest');
      const first = sensor.signing_secret;
      assert.match(first, /^whsec_[A-Za-z0-9+/]{43}=$/);

      const [row] = await server.runtime.db.query<StoredSecrets>('SELECT signing_secret, previous_signing_secret FROM sensors WHERE id = $1', [sensor.id]);
      keyIdIn(row!.signing_secret);
      assert.equal(row!.previous_signing_secret, null);
      assert.deepEqual(await rowsHolding(server.runtime.db, [first]), []);
      const delivered = await testDelivery(server, receiver, key, sensor.id, '/at-rest');
      assert.equal((verifyWebhook(first, delivered, NOW) as { type: string }).type, 'sensor.test');

      const rotated = await server.http.post(`/v1/sensors/${sensor.id}/rotate-secret`, undefined, { ...bearer(key), 'idempotency-key': randomUUID() });
      assert.equal(rotated.status, 200, rotated.text);
      const second = rotated.json.signing_secret as string;
      const [after] = await server.runtime.db.query<StoredSecrets>('SELECT signing_secret, previous_signing_secret FROM sensors WHERE id = $1', [sensor.id]);
      assert.equal(after!.previous_signing_secret, row!.signing_secret, 'the previous secret moves as it was sealed');
      keyIdIn(after!.signing_secret);
      assert.deepEqual(await rowsHolding(server.runtime.db, [first, second]), [], 'not in the sensors nor in the stored idempotent answer');
      const both = await testDelivery(server, receiver, key, sensor.id, '/at-rest');
      assert.equal(both.headers['webhook-signature']!.split(' ').length, 2);
      verifyWebhook(second, both, NOW);
      verifyWebhook(first, both, NOW);
    } finally {
      await close();
    }
  });

  it('when a sealed secret is copied onto another sensor, then it does not open there: nothing is sent, and the delivery says why', async () => {
    const { server, receiver, close } = await startDeliveryServer(NOW);
    try {
      const donor = await sensorOf(server, receiver, '/donor');
      const { key, sensor } = await sensorOf(server, receiver, '/copied');
      await server.runtime.db.query('UPDATE sensors SET signing_secret = (SELECT signing_secret FROM sensors WHERE id = $1) WHERE id = $2', [
        donor.sensor.id,
        sensor.id,
      ]);
      const sent = await server.http.post(`/v1/sensors/${sensor.id}/test`, undefined, bearer(key));
      assert.equal(sent.status, 201, sent.text);
      await server.ops.post('/drain');
      assert.equal(receiver.received.filter((r) => r.path === '/copied').length, 0, 'nothing signed with a secret that did not open');
      const [delivery] = (await server.http.get(`/v1/sensors/${sensor.id}/deliveries`, bearer(key))).json.data;
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.status, 'PENDING');
      assert.equal(delivery.last_error, 'not sent: the signing secret could not be read');
      assert.ok(server.logs.some((line) => line.includes('the signing secret of a webhook did not open')));
    } finally {
      await close();
    }
  });

  it('when a key is not 32 bytes in hex or base64, then start-up stops naming the variable, not the value', { timeout: timeLimit({ runs: 1 }) }, async (t) => {
    const result = await runOwned(t, process.execPath, programArgs('src/main.ts'), {
      cwd: ROOT,
      env: {
        ...process.env,
        EVMON_DATA_DIR: tempDir(),
        EVMON_DATABASE_URL: '',
        EVMON_ENCRYPTION_KEY: 'not-a-key-but-a-password',
        EVMON_ENCRYPTION_KEY_PREVIOUS: randomBytes(31).toString('base64'),
      },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_ENCRYPTION_KEY must be 32 bytes written as 64 hex digits or in base64/);
    assert.match(result.stderr, /EVMON_ENCRYPTION_KEY_PREVIOUS must be 32 bytes/);
    assert.doesNotMatch(result.stderr, /not-a-key-but-a-password/);
  });

  it('when PostgreSQL is configured without EVMON_ENCRYPTION_KEY, then start-up refuses with the reason', {
    skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false,
    timeout: timeLimit({ runs: 1 }),
  }, async (t) => {
    const result = await runOwned(t, process.execPath, programArgs('src/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, EVMON_DATA_DIR: tempDir(), EVMON_DATABASE_URL: PG_URL!, EVMON_ENCRYPTION_KEY: '' },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_ENCRYPTION_KEY is required with PostgreSQL/);
  });

  it('when the embedded database starts without a key, then it makes a key file of mode 0600, a restart reuses it, and deliveries still verify', {
    skip: PG_URL !== null ? 'embedded database only' : false,
    timeout: timeLimit({ starts: 2 }),
  }, async (t) => {
    const dataDir = tempDir();
    const env = { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dataDir, EVMON_WEBHOOK_ALLOW_PRIVATE: '1', EVMON_ENCRYPTION_KEY: '' };
    const receiver = await receiverFor(t);
    const first = await started(t, env);
    const { key, sensor } = await sensorOf(first, receiver, '/key-file');
    assert.equal(await first.stop(), 0);

    const file = path.join(dataDir, 'encryption.key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.readFileSync(file, 'utf8');
    const fileKey = decodeKey(written);
    assert.ok(fileKey, 'the file holds a key in the form EVMON_ENCRYPTION_KEY takes');
    const db = await openPglite(path.join(dataDir, 'pglite'));
    try {
      const [row] = await db.query<StoredSecrets>('SELECT signing_secret FROM sensors WHERE id = $1', [sensor.id]);
      assert.equal(keyIdIn(row!.signing_secret), keyIdOf(fileKey), 'sealed under the key of the file');
      assert.deepEqual(await rowsHolding(db, [sensor.signing_secret]), []);
    } finally {
      await db.close();
    }

    const second = await started(t, env);
    assert.equal(fs.readFileSync(file, 'utf8'), written, 'the same key, not a new one');
    verifyWebhook(sensor.signing_secret, await testDelivery(second, receiver, key, sensor.id, '/key-file'), NOW);
    assert.equal(await second.stop(), 0);
  });

  it('when the key is rotated, then the new key with the previous one reads both, evmon secrets re-encrypt seals every secret under the new key, the new key alone then serves, and the old one alone is refused', {
    timeout: timeLimit({ starts: 4, runs: 1 }),
  }, async (t) => {
    const database = await databaseOnDisk(t);
    const receiver = await receiverFor(t);
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const onlyA = { ...database.env, EVMON_ENCRYPTION_KEY: keyA.toString('base64') };
    const bWithA = { ...database.env, EVMON_ENCRYPTION_KEY: keyB.toString('hex'), EVMON_ENCRYPTION_KEY_PREVIOUS: keyA.toString('base64url') };
    const onlyB = { ...database.env, EVMON_ENCRYPTION_KEY: keyB.toString('hex') };

    const underA = await started(t, onlyA);
    const plain = await sensorOf(underA, receiver, '/plain');
    const rotated = await sensorOf(underA, receiver, '/rotated');
    const answer = await underA.http.post(`/v1/sensors/${rotated.sensor.id}/rotate-secret`, undefined, bearer(rotated.key));
    assert.equal(answer.status, 200, answer.text);
    const rotatedSecrets = [answer.json.signing_secret as string, rotated.sensor.signing_secret];
    assert.equal(await underA.stop(), 0);

    const during = await started(t, bWithA);
    verifyWebhook(plain.sensor.signing_secret, await testDelivery(during, receiver, plain.key, plain.sensor.id, '/plain'), NOW);
    const later = await sensorOf(during, receiver, '/later');
    assert.equal(await during.stop(), 0);

    const keysOf = () =>
      database.read((db) =>
        db
          .query<StoredSecrets & { id: string }>('SELECT id, signing_secret, previous_signing_secret FROM sensors ORDER BY id')
          .then((rows) =>
            Object.fromEntries(
              rows.map((row) => [row.id, [row.signing_secret, row.previous_signing_secret].filter((v) => v !== null).map((v) => keyIdIn(v!))]),
            ),
          ),
      );
    assert.deepEqual(await keysOf(), {
      [plain.sensor.id]: [keyIdOf(keyA)],
      [rotated.sensor.id]: [keyIdOf(keyA), keyIdOf(keyA)],
      [later.sensor.id]: [keyIdOf(keyB)],
    });

    const reencrypted = await evmon(t, bWithA, 'secrets', 're-encrypt', '--batch-size', '1');
    assert.equal(reencrypted.status, 0, reencrypted.stderr);
    assert.deepEqual(reencrypted.json, { object: 'secrets_reencryption', key_id: keyIdOf(keyB), resealed: 2, remaining: 0 });
    assert.deepEqual(await keysOf(), {
      [plain.sensor.id]: [keyIdOf(keyB)],
      [rotated.sensor.id]: [keyIdOf(keyB), keyIdOf(keyB)],
      [later.sensor.id]: [keyIdOf(keyB)],
    });
    assert.deepEqual(await database.read((db) => rowsHolding(db, [plain.sensor.signing_secret, ...rotatedSecrets, later.sensor.signing_secret])), []);

    const underB = await started(t, onlyB);
    verifyWebhook(plain.sensor.signing_secret, await testDelivery(underB, receiver, plain.key, plain.sensor.id, '/plain'), NOW);
    verifyWebhook(later.sensor.signing_secret, await testDelivery(underB, receiver, later.key, later.sensor.id, '/later'), NOW);
    const both = await testDelivery(underB, receiver, rotated.key, rotated.sensor.id, '/rotated');
    for (const secret of rotatedSecrets) verifyWebhook(secret, both, NOW);
    assert.equal(await underB.stop(), 0);

    const refused = await spawnServer(t, onlyA, { expectFailure: true });
    assert.equal(await refused.exited, 1);
    assert.match(refused.output(), /webhook signing secrets are sealed under a key this process does not have/);
    assert.match(refused.output(), new RegExp(`key id ${keyIdOf(keyB)}`));
  });

  it('when a database holds secrets in clear from before migration 011, then the first start seals them all, once, and deliveries verify with the secrets as they were', {
    timeout: timeLimit({ starts: 2 }),
  }, async (t) => {
    const database = await databaseOnDisk(t);
    const receiver = await receiverFor(t);
    const accountId = randomUUID();
    const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
    const old = [
      { id: randomUUID(), at: '/old-one', current: secret(), previous: null },
      { id: randomUUID(), at: '/old-two', current: secret(), previous: secret() },
    ];

    // The database as the previous version left it: migrations up to 010, secrets in clear.
    await database.read(async (db) => {
      await db.exec('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const migration of listMigrations().filter((m) => m.name < '011')) {
        await db.exec(migration.sql);
        await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      }
      await db.query(`INSERT INTO accounts (id, kind, plan, created_at, updated_at) VALUES ($1, 'INDIVIDUAL', 'standard', $2, $2)`, [accountId, NOW]);
      for (const sensor of old) {
        const url = receiver.url(sensor.at);
        await db.query(
          `INSERT INTO sensors (id, account_id, name, description, enabled, filter, actions, signing_secret, previous_signing_secret,
                                previous_secret_expires_at, created_at, updated_at)
           VALUES ($1, $2, 'old', NULL, true, $3, $4, $5, $6, $7, $8, $8)`,
          [
            sensor.id,
            accountId,
            JSON.stringify(completeFilter({ required_source_news_outlet_ids: [randomUUID()] })),
            JSON.stringify([{ id: randomUUID(), type: 'webhook', url, host: new URL(url).host }]),
            sensor.current,
            sensor.previous,
            sensor.previous ? '2026-11-21T00:00:00.000Z' : null,
            NOW,
          ],
        );
      }
      assert.deepEqual(
        await rowsHolding(
          db,
          old.flatMap((s) => [s.current, s.previous ?? s.current]),
        ),
        ['sensors: 2'],
        'the scan finds secrets in clear',
      );
    });

    // On PostgreSQL two processes start at once: one seals, the other waits for it and finds nothing left.
    const env = { ...database.env, EVMON_LOG_LEVEL: 'info' };
    const servers = await Promise.all((PG_URL === null ? [env] : [env, env]).map((e) => started(t, e)));
    const sealing = /"sensors":2[^\n]*sealed the webhook signing secrets an earlier version kept in clear/;
    assert.equal(servers.filter((server) => sealing.test(server.output())).length, 1, 'sealed once, by one process');
    const key = await servers[0]!.ops.createKey(accountId, SCOPES);
    const server = servers.at(-1)!;
    verifyWebhook(old[0]!.current, await testDelivery(server, receiver, key, old[0]!.id, '/old-one'), NOW);
    const both = await testDelivery(server, receiver, key, old[1]!.id, '/old-two');
    verifyWebhook(old[1]!.current, both, NOW);
    verifyWebhook(old[1]!.previous!, both, NOW);
    for (const each of servers) assert.equal(await each.stop(), 0);

    await database.read(async (db) => {
      const rows = await db.query<StoredSecrets>('SELECT signing_secret, previous_signing_secret FROM sensors ORDER BY id');
      assert.equal(rows.length, 2);
      for (const row of rows) for (const stored of [row.signing_secret, row.previous_signing_secret]) if (stored !== null) keyIdIn(stored);
      assert.deepEqual(
        await rowsHolding(
          db,
          old.flatMap((s) => [s.current, s.previous ?? s.current]),
        ),
        [],
      );
      // Every row now meets the rule that new rows were held to from migration 011 on.
      await db.exec('ALTER TABLE sensors VALIDATE CONSTRAINT sensors_secrets_sealed');
    });
  });
});
