// Read replicas under the crash test's mixed load (operations.md, "Read replicas"): a primary
// and a hot standby of the test's own (`pg_basebackup -R`), two api processes reading from the
// standby and a worker. Every create or change a process answers is read back at once through
// the other process and must be there; meanwhile the standby's replay is paused and resumed,
// and the standby is killed and started again. No request fails, the standby serves most reads
// while it replays, and after a drain the crash test's invariants hold.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HttpClient } from '../helpers/http.js';
import { scrape } from '../helpers/metrics.js';
import { buildWorld, checkInvariants, seeded, startLoad } from '../helpers/mixed-load.js';
import { ownPostgres, postgresBinDir } from '../helpers/own-postgres.js';
import { PG_URL, spawnServer, tempDir, timeLimit } from '../helpers/server.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const BIN = postgresBinDir();
const SEED = Number(process.env.EVMON_TEST_SEED ?? Date.now() % 100_000);
const DRAIN_MS = 120_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('read replicas under load', {
  skip: PG_URL === null || BIN === null ? 'needs PostgreSQL (EVMON_TEST_DATABASE_URL, and its server binaries)' : false,
}, () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('when the standby is paused, resumed, killed and restarted under a mixed load, then every write is read back at once through the other process and the invariants hold', {
    timeout: timeLimit({ starts: 3, otherMs: DRAIN_MS + 120_000 }),
  }, async (t) => {
    const random = seeded(SEED);
    t.diagnostic(`seed ${SEED} (EVMON_TEST_SEED repeats it)`);
    const primary = await ownPostgres(t, BIN!);
    const standby = await ownPostgres(t, BIN!, { standbyOf: primary });
    const standbyName = `127.0.0.1:${new URL(standby.url).port}/postgres`;
    // Real clocks: the two processes' updated_at compare, and the drain runs on time.
    const env = { EVMON_DATABASE_URL: primary.url, EVMON_DATABASE_REPLICA_URLS: standby.url, EVMON_TEST_CLOCK: '0', EVMON_WEBHOOK_ALLOW_PRIVATE: '1' };
    const apis = [
      await spawnServer(t, { ...env, EVMON_ROLE: 'api', EVMON_DATA_DIR: tempDir() }),
      await spawnServer(t, { ...env, EVMON_ROLE: 'api', EVMON_DATA_DIR: tempDir() }),
    ];
    const worker = await spawnServer(t, { ...env, EVMON_ROLE: 'worker', EVMON_DATA_DIR: tempDir() });
    const exits: string[] = [];
    for (const server of [...apis, worker]) void server.exited.then((code) => exits.push(`a process exited (${code}):\n${server.output().slice(-2_000)}`));
    t.after(() => Promise.all([...apis, worker].map((server) => server.stop())));

    const inUse = async () =>
      (await Promise.all(apis.map(async (api) => (await scrape(api.http)).value('evmon_db_standby_in_use', { standby: standbyName })))).every((v) => v === 1);
    const waitInUse = async (what: string) => {
      const deadline = Date.now() + 60_000;
      while (!(await inUse())) {
        assert.ok(Date.now() < deadline, `both api processes use the standby again (${what})`);
        await sleep(100);
      }
    };
    const reads = async () => {
      const scrapes = await Promise.all(apis.map((api) => scrape(api.http)));
      const sum = (target: string) => scrapes.reduce((total, s) => total + s.value('evmon_db_reads_total', { target }), 0);
      return { standby: sum(standbyName), primary: sum('primary') };
    };

    const world = await buildWorld(apis[0]!, receiver);
    await waitInUse('at the start');
    const other = (client: HttpClient) => (client === apis[0]!.http ? apis[1]! : apis[0]!).http;
    const load = startLoad(world, () => apis[Math.floor(random() * apis.length)]!.http, random, { workers: 6, networkErrorsAllowed: false, readBack: other });
    t.after(() => load.stop());

    // Replay running: the standby serves most reads.
    const before = await reads();
    await sleep(8_000);
    const running = await reads();
    const share = (running.standby - before.standby) / (running.standby - before.standby + running.primary - before.primary);
    t.diagnostic(`the standby's share of reads with replay running: ${share.toFixed(3)}`);
    assert.ok(share >= 0.5, `the standby served most reads while it replayed (${share.toFixed(3)})`);

    // Paused for a while, then resumed: reads go to the primary meanwhile, then back.
    await standby.admin('SELECT pg_wal_replay_pause()');
    await sleep(4_000);
    await standby.admin('SELECT pg_wal_replay_resume()');
    await waitInUse('after its replay resumed');
    await sleep(2_000);

    // Killed, down a while, started again: it replays what it missed and comes back.
    await standby.stop('immediate');
    await sleep(4_000);
    await standby.start();
    await waitInUse('after its restart');
    await sleep(3_000);

    const log = await load.stop();
    const atEnd = await reads();
    const requests = Object.values(log.outcomes).reduce((sum, n) => sum + n, 0);
    t.diagnostic(`${requests} requests; outcomes ${JSON.stringify(log.outcomes)}; reads ${JSON.stringify(atEnd)}`);
    const readBack = Object.entries(log.outcomes)
      .filter(([outcome]) => outcome.includes(' read back 200'))
      .reduce((sum, [, n]) => sum + n, 0);
    assert.ok(readBack >= 100, `creates and changes were read back through the other process: ${readBack}`);
    assert.deepEqual(exits, [], 'no process exited');
    const figures = await checkInvariants(apis[0]!, world, log, receiver, DRAIN_MS);
    t.diagnostic(`after the drain: ${JSON.stringify(figures)}`);
  });
});
