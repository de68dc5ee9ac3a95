// The crash test: two server processes on one PostgreSQL (a server of the test's own) under a
// mixed load, killed with SIGKILL and started again, their database connections terminated,
// at seeded random moments for a bounded time. Then, after a drain: balances equal ledgers,
// each execution a client saw is charged once, every acknowledged article and report exists,
// every matching event is delivered signed, and beat entries equal their charges.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildWorld, checkInvariants, seeded, startLoad } from '../helpers/mixed-load.js';
import { ownPostgres, postgresBinDir } from '../helpers/own-postgres.js';
import { PG_URL, type SpawnedServer, spawnServer, tempDir, timeLimit } from '../helpers/server.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const BIN = postgresBinDir();
const SEED = Number(process.env.EVMON_TEST_SEED ?? Date.now() % 100_000);
const CHAOS_MS = 40_000;
/** Work a killed process held waits for its lease (jobs 60 s, webhook attempts 120 s). */
const DRAIN_MS = 200_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('crash test', { skip: PG_URL === null || BIN === null ? 'needs PostgreSQL (EVMON_TEST_DATABASE_URL, and its server binaries)' : false }, () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('when processes are killed and connections terminated under a mixed load, then after a drain every invariant holds', {
    timeout: timeLimit({ starts: 8, otherMs: CHAOS_MS + DRAIN_MS + 60_000 }),
  }, async (t) => {
    const random = seeded(SEED);
    t.diagnostic(`seed ${SEED} (EVMON_TEST_SEED repeats it)`);
    const database = await ownPostgres(t, BIN!);
    const env = (dir: string) => ({ EVMON_DATABASE_URL: database.url, EVMON_TEST_CLOCK: '0', EVMON_WEBHOOK_ALLOW_PRIVATE: '1', EVMON_DATA_DIR: dir });
    const dirs = [tempDir(), tempDir()];
    // A slot is null while its process is down (killed, not yet started again).
    const slots: (SpawnedServer | null)[] = [];
    // Every exit but the kills is a failure: a terminated connection must not end a process.
    const killed = new Set<SpawnedServer>();
    const exits: string[] = [];
    const start = async (dir: string) => {
      const server = await spawnServer(t, env(dir));
      void server.exited.then((code) => killed.has(server) || exits.push(`a process exited by itself (${code}):\n${server.output().slice(-2_000)}`));
      return server;
    };
    for (const dir of dirs) slots.push(await start(dir));
    const first = slots[0]!;

    const world = await buildWorld(first, receiver);
    const pick = () => {
      const up = slots.filter((slot): slot is SpawnedServer => slot !== null);
      return up.length === 0 ? null : up[Math.floor(random() * up.length)]!.http;
    };
    const load = startLoad(world, pick, random, { workers: 6, networkErrorsAllowed: true });
    const figures = { kills: 0, terminations: 0, restarts: [] as Promise<void>[] };
    // Whatever fails (a restart that does not come up, an assertion), the load's workers and the
    // processes stop here: a worker left running would keep the test file from ever exiting.
    t.after(async () => {
      await Promise.allSettled(figures.restarts);
      await load.stop();
      for (const server of slots) if (server) killed.add(server);
      await Promise.all(slots.map((server) => server?.stop()));
    });

    const until = Date.now() + CHAOS_MS;
    while (Date.now() < until) {
      await sleep(500 + random() * 2_000);
      const roll = random();
      const i = Math.floor(random() * slots.length);
      const victim = slots[i];
      if (roll < 0.35 && victim && !slots.includes(null)) {
        // Killed mid-request, and started again as an operator's supervisor would.
        slots[i] = null;
        killed.add(victim);
        await victim.stop('SIGKILL');
        figures.kills++;
        figures.restarts.push(
          start(dirs[i]!).then((server) => {
            slots[i] = server;
          }),
        );
      } else if (roll < 0.85) {
        if (await database.terminateOne((n) => Math.floor(random() * n))) figures.terminations++;
      } else {
        figures.terminations += await database.terminateAll();
      }
    }
    await Promise.all(figures.restarts);
    const log = await load.stop();
    const requests = Object.values(log.outcomes).reduce((sum, n) => sum + n, 0);
    t.diagnostic(`${figures.kills} kills, ${figures.terminations} terminations, ${requests} requests; outcomes ${JSON.stringify(log.outcomes)}`);

    assert.deepEqual(exits, [], 'no process exited but those killed');
    const result = await checkInvariants(slots[0]!, world, log, receiver, DRAIN_MS);
    t.diagnostic(`after the drain: ${JSON.stringify(result)}`);
    assert.ok(figures.kills > 0 && figures.terminations > 0, 'the run had kills and terminations');
    assert.deepEqual(exits, [], 'no process exited but those killed');
  });
});
