// The database may go away (issue: surviving the database going away): on a PostgreSQL server
// of the test's own, two server processes under a mixed load see their backends terminated at
// random points, then the server itself stopped and started again. No process exits; a
// request fails only with 503 (nothing done) or, a billed search whose commit is in doubt,
// 502; each process serves again within seconds of the database's return, without a restart;
// and after a drain nothing acknowledged is lost.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { bearer } from '../helpers/http.js';
import { buildWorld, checkInvariants, outcomesBetween, seeded, startLoad } from '../helpers/mixed-load.js';
import { ownPostgres, postgresBinDir } from '../helpers/own-postgres.js';
import { PG_URL, type SpawnedServer, spawnServer, spawnServers, tempDir, timeLimit } from '../helpers/server.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const BIN = postgresBinDir();
const SEED = Number(process.env.EVMON_TEST_SEED ?? Date.now() % 100_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Well formed, so the server looks it up in the database, and unknown there (401). */
const UNKNOWN_KEY = `evk_${'A'.repeat(43)}`;
const WAITS = 'database unavailable at start-up; trying again';
const WAITED = new RegExp(WAITS, 'g');

/** What PostgreSQL sends a connection whose backend was terminated: a FATAL ErrorResponse, 57P01. */
function terminationMessage(): Buffer {
  const fields = { S: 'FATAL', V: 'FATAL', C: '57P01', M: 'terminating connection due to administrator command' };
  const body = Buffer.concat([...Object.entries(fields).map(([code, text]) => Buffer.from(`${code}${text}\0`)), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from('E'), length, body]);
}

/**
 * A TCP proxy in front of PostgreSQL whose first `terminate` connections are answered, after
 * their start-up message, as a terminated backend answers; later ones pass through.
 */
async function terminatingProxy(upstream: URL, terminate: number): Promise<{ url: string; terminated: () => number; close(): void }> {
  let terminated = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (terminated < terminate) {
      terminated++;
      socket.once('data', () => socket.end(terminationMessage()));
      return;
    }
    const onward = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(onward);
    onward.on('error', () => socket.destroy());
    onward.on('close', () => socket.destroy());
    socket.on('close', () => onward.destroy());
    socket.pipe(onward).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(upstream);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    terminated: () => terminated,
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('the database going away', {
  skip: PG_URL === null || BIN === null ? 'needs PostgreSQL (EVMON_TEST_DATABASE_URL, and its server binaries)' : false,
}, () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('when backends are terminated under load and then the server restarts, then no process exits, each serves again within seconds, and nothing is lost', {
    timeout: timeLimit({ starts: 3, otherMs: 240_000 }),
  }, async (t) => {
    const random = seeded(SEED);
    t.diagnostic(`seed ${SEED} (EVMON_TEST_SEED repeats it)`);
    const database = await ownPostgres(t, BIN!);
    // Real clocks: leases, retries and the drain run on time as in production.
    const env = { EVMON_DATABASE_URL: database.url, EVMON_TEST_CLOCK: '0', EVMON_WEBHOOK_ALLOW_PRIVATE: '1' };
    const servers: SpawnedServer[] = [];
    for (let i = 0; i < 2; i++) servers.push(...(await spawnServers(t, 1, { ...env, EVMON_DATA_DIR: tempDir() })));
    const exits: string[] = [];
    for (const [i, server] of servers.entries()) void server.exited.then((code) => exits.push(`process ${i} exited with ${code}`));

    const world = await buildWorld(servers[0]!, receiver);
    const load = startLoad(world, () => servers[Math.floor(random() * servers.length)]!.http, random, { workers: 6, networkErrorsAllowed: false });

    // Backends terminated one at a time, at random moments: in a transaction, between
    // statements, idle in the pool, during a commit.
    let terminated = 0;
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      await sleep(50 + random() * 250);
      if (await database.terminateOne((n) => Math.floor(random() * n))) terminated++;
    }

    // The server stops (every connection closed, open transactions rolled back) and stays
    // down for three seconds.
    const beforeOutage = load.outcomes();
    await database.stop('fast');
    await sleep(3_000);
    const down = load.outcomes();
    await database.start();
    const back = Date.now();
    const servingAfter: number[] = [];
    for (const server of servers) {
      for (;;) {
        const read = await server.http.get(`/v1/sensors/${world.sensor.id}`, bearer(world.watcher.key));
        if (read.status === 200) break;
        assert.ok(Date.now() - back < 60_000, `a process serves again after the database returns (still ${read.status})`);
        await sleep(100);
      }
      servingAfter.push((Date.now() - back) / 1000);
    }
    const duringOutage = outcomesBetween(beforeOutage, down);
    await sleep(3_000); // more load on the returned database
    const log = await load.stop();
    assert.deepEqual(exits, [], 'no process exited');

    const figures = await checkInvariants(servers[0]!, world, log, receiver, 180_000);
    t.diagnostic(`terminated ${terminated} backends; outcomes ${JSON.stringify(outcomesBetween({}, beforeOutage))}`);
    t.diagnostic(`while the database was down (3 s): ${JSON.stringify(duringOutage)}`);
    t.diagnostic(`whole run: ${JSON.stringify(log.outcomes)}`);
    t.diagnostic(`serving again ${servingAfter.map((s) => `${s.toFixed(1)} s`).join(', ')} after the database returned; ${JSON.stringify(figures)}`);
    assert.ok(
      Object.keys(duringOutage).some((outcome) => outcome.endsWith(' 503')),
      'the outage was seen',
    );
    assert.deepEqual(exits, [], 'no process exited');
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('when the database refuses or terminates the first connections of a start, then start-up waits it out and the process serves', {
    timeout: timeLimit({ starts: 2, otherMs: 60_000 }),
  }, async (t) => {
    const database = await ownPostgres(t, BIN!);
    const env = { EVMON_TEST_CLOCK: '0' };

    // Refused: the server is down when the process starts, and back once the process has said
    // it waits.
    await database.stop('fast');
    let back: Promise<void> | null = null;
    const refused = await spawnServer(
      t,
      { ...env, EVMON_DATABASE_URL: database.url, EVMON_DATA_DIR: tempDir() },
      {
        onOutput: (output) => {
          if (back !== null || !output.includes(WAITS)) return;
          back = database.start();
          back.catch(() => undefined); // heard here too: a failed start must not outlive the test unheard
        },
      },
    );
    await back;
    const refusedWaits = refused.output().match(WAITED)?.length ?? 0;
    assert.ok(refusedWaits >= 1, `start-up waited while the connection was refused:\n${refused.output()}`);
    assert.equal((await refused.http.get('/v1/sensors', bearer(UNKNOWN_KEY))).status, 401);
    await refused.stop();

    // Terminated: the first two connections are terminated as a restart or an operator would.
    const proxy = await terminatingProxy(new URL(database.url), 2);
    t.after(() => proxy.close());
    const terminated = await spawnServer(t, { ...env, EVMON_DATABASE_URL: proxy.url, EVMON_DATA_DIR: tempDir() });
    assert.equal(proxy.terminated(), 2);
    const terminatedWaits = terminated.output().match(WAITED)?.length ?? 0;
    assert.ok(terminatedWaits >= 1, `start-up waited while connections were terminated:\n${terminated.output()}`);
    assert.equal((await terminated.http.get('/v1/sensors', bearer(UNKNOWN_KEY))).status, 401);
    t.diagnostic(`start-up waited ${refusedWaits} time(s) while refused, ${terminatedWaits} time(s) while terminated`);
    await terminated.stop();
  });
});
