// Reads on a hot standby (platform/db/standby-reads.ts; operations.md, "Read replicas"): on a
// primary of the test's own and a standby made from it with `pg_basebackup -R`, every row
// written before a read is seen by it, whether the standby serves it, lags, has its replay
// paused, is killed or comes back; the standby serves the reads again once caught up. And two
// api processes on them: what one ingests, the other reads at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import type { Database } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { openPostgres } from '../../src/platform/db/postgres.js';
import { memoryIndexStore as store } from '../../src/modules/search/index/memory-index.store.js';
import { parseLsn, standbyReads, type StandbyReads } from '../../src/platform/db/standby-reads.js';
import { testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { scrape } from '../helpers/metrics.js';
import { ownPostgres, postgresBinDir } from '../helpers/own-postgres.js';
import { runOwned } from '../helpers/processes.js';
import { PG_URL, programArgs, ROOT, spawnServer, tempDir, timeLimit } from '../helpers/server.js';

const BIN = postgresBinDir();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done` holds, checking every 50 ms, for at most `ms`. */
async function until(what: string, done: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await sleep(50);
  }
}

/** Writes a row on the primary and reads it back at once through the reads; answers where it was read. */
async function writeThenRead(primary: Database, routing: StandbyReads, n: number): Promise<'standby' | 'primary'> {
  const before = routing.primaryReads();
  await primary.query('INSERT INTO written (n) VALUES ($1)', [n]);
  const rows = await routing.reads.query<{ n: number }>('SELECT n FROM written WHERE n = $1', [n]);
  assert.deepEqual(
    rows.map((row) => row.n),
    [n],
    `row ${n}, committed before the read, is seen by it`,
  );
  return routing.primaryReads() > before ? 'primary' : 'standby';
}

describe('reads on a hot standby', {
  skip: PG_URL === null || BIN === null ? 'needs PostgreSQL (EVMON_TEST_DATABASE_URL, and its server binaries)' : false,
}, () => {
  it('sees every write committed before it, through pauses, a kill and a restart of the standby', async (t) => {
    const primaryServer = await ownPostgres(t, BIN!);
    const standbyServer = await ownPostgres(t, BIN!, { standbyOf: primaryServer });
    const primary = await openPostgres(primaryServer.url);
    const logged: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line).msg) });
    const routing = standbyReads(primary, [standbyServer.url], logger);
    t.after(async () => {
      await routing.close();
      await primary.close();
    });
    await primary.exec('CREATE TABLE written (n int PRIMARY KEY)');
    routing.start();
    await until('the standby is in use', () => routing.standbys()[0]!.inUse);

    // Replay running: reads go to the standby, and see what was written just before.
    const places: string[] = [];
    for (let n = 1; n <= 40; n++) places.push(await writeThenRead(primary, routing, n));
    const onStandby = places.filter((place) => place === 'standby').length;
    assert.ok(onStandby > 20, `the standby served ${onStandby} of 40 reads right after their writes`);
    assert.equal(routing.standbys()[0]!.reads, onStandby);

    // Replay paused: a read does not see a stale standby; it goes to the primary.
    await standbyServer.admin('SELECT pg_wal_replay_pause()');
    assert.equal(await writeThenRead(primary, routing, 100), 'primary');
    assert.equal(routing.standbys()[0]!.inUse, false, 'left out once it kept a read waiting');
    assert.equal(await writeThenRead(primary, routing, 101), 'primary');
    await standbyServer.admin('SELECT pg_wal_replay_resume()');
    await until('the standby is back in use', () => routing.standbys()[0]!.inUse);
    const resumed: string[] = [];
    for (let n = 102; n < 112; n++) resumed.push(await writeThenRead(primary, routing, n));
    assert.ok(resumed.includes('standby'), `the standby serves again once resumed: ${resumed.join(' ')}`);

    // Hung (its processes stopped, its connections open): a read waits at most about a second,
    // then goes to the primary; the standby comes back once it answers again.
    standbyServer.freeze(true);
    const hung = performance.now();
    assert.equal(await writeThenRead(primary, routing, 150), 'primary');
    assert.ok(performance.now() - hung < 5_000, `a hung standby held the read ${Math.round(performance.now() - hung)} ms`);
    assert.equal(routing.standbys()[0]!.inUse, false, 'left out while it does not answer');
    for (let n = 151; n < 155; n++) assert.equal(await writeThenRead(primary, routing, n), 'primary');
    standbyServer.freeze(false);
    await until('the standby is back in use after it answers again', () => routing.standbys()[0]!.inUse);

    // Killed: reads keep answering, from the primary, and never fail.
    await standbyServer.stop('immediate');
    for (let n = 200; n < 210; n++) assert.equal(await writeThenRead(primary, routing, n), 'primary');
    await until('the standby is left out', () => !routing.standbys()[0]!.inUse && routing.standbys()[0]!.lagBytes === null);
    for (let n = 210; n < 220; n++) assert.equal(await writeThenRead(primary, routing, n), 'primary');

    // Started again: it replays what it missed, comes back, and serves.
    await standbyServer.start();
    await until('the standby is back in use after its restart', () => routing.standbys()[0]!.inUse);
    const after: string[] = [];
    for (let n = 300; n < 320; n++) after.push(await writeThenRead(primary, routing, n));
    assert.ok(after.filter((place) => place === 'standby').length > 10, `the standby served again: ${after.join(' ')}`);
    const rows = await routing.reads.query<{ count: number }>('SELECT count(*)::int AS count FROM written');
    assert.equal(rows[0]!.count, 40 + 12 + 5 + 20 + 20);

    assert.ok(
      logged.some((line) => line.startsWith('standby left out of reads')),
      'leaving out is logged',
    );
    assert.ok(logged.includes('standby back in use for reads'), 'coming back is logged');
  });

  it("after a failover, a standby still following the old primary, past the point where the histories part, is left out (timeline), and reads see the new primary's rows", async (t) => {
    const oldPrimary = await ownPostgres(t, BIN!);
    const promoted = await ownPostgres(t, BIN!, { standbyOf: oldPrimary });
    const follower = await ownPostgres(t, BIN!, { standbyOf: oldPrimary });
    await oldPrimary.admin('CREATE TABLE written (n int PRIMARY KEY)');
    const replayed = async (server: typeof follower) => (await server.admin<{ lsn: string }>('SELECT pg_last_wal_replay_lsn()::text AS lsn'))[0]!.lsn;
    const flushed = (await oldPrimary.admin<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn'))[0]!.lsn;
    await until(
      'both standbys have the table',
      async () => parseLsn(await replayed(promoted)) >= parseLsn(flushed) && parseLsn(await replayed(follower)) >= parseLsn(flushed),
    );
    await promoted.admin('SELECT pg_promote()');
    await until('the standby is promoted', async () => (await promoted.admin<{ r: boolean }>('SELECT pg_is_in_recovery() AS r'))[0]!.r === false);
    await promoted.admin('INSERT INTO written (n) VALUES (1)');
    // The old primary takes writes the new one never has; the follower replays them, past the
    // new primary's position.
    await oldPrimary.admin('INSERT INTO written (n) SELECT generate_series(1000, 21000)');
    const oldAt = (await oldPrimary.admin<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn'))[0]!.lsn;
    await until("the follower has replayed the old primary's writes", async () => parseLsn(await replayed(follower)) >= parseLsn(oldAt));
    const newAt = (await promoted.admin<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn'))[0]!.lsn;
    assert.ok(parseLsn(await replayed(follower)) > parseLsn(newAt), 'the follower is past the new primary by position alone');

    const primary = await openPostgres(promoted.url);
    const logged: string[] = [];
    const routing = standbyReads(primary, [follower.url], pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line).msg) }));
    t.after(async () => {
      await routing.close();
      await primary.close();
    });
    routing.start();
    await sleep(1_500); // the first check, and the next ones
    const rows = await routing.reads.query<{ n: number }>('SELECT n FROM written ORDER BY n');
    assert.deepEqual(
      rows.map((row) => row.n),
      [1],
      "the reads see the new primary's rows, and none of the old one's since the failover",
    );
    assert.equal(routing.standbys()[0]!.inUse, false, 'the follower is never in use');
    assert.ok(logged.includes('standby left out of reads: it follows another timeline than the primary (a failover it has not followed)'), logged.join('\n'));
  });

  it('a search index catching up never reads a snapshot behind the one it last read: a paused standby says so, the reads take the primary, and the primary says so while a transaction the last snapshot saw as ended still runs there', async (t) => {
    const primaryServer = await ownPostgres(t, BIN!);
    const standbyServer = await ownPostgres(t, BIN!, { standbyOf: primaryServer });
    const primary = await openPostgres(primaryServer.url);
    await migrate(primary);
    const standby = await openPostgres(standbyServer.url);
    const routing = standbyReads(primary, [standbyServer.url], pino({ level: 'silent' }));
    t.after(async () => {
      await routing.close();
      await standby.close();
      await primary.close();
    });
    routing.start();
    await until('the standby is in use', () => routing.standbys()[0]!.inUse);
    const logChange = () => primary.query('INSERT INTO event_search_log (event_id) VALUES (gen_random_uuid()) RETURNING xid::text AS xid');

    // A transaction holds the primary's xmin, so the change below is one the snapshot lists as seen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let heldXid = 0n;
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const holder = primary.transaction(async (tx) => {
      heldXid = BigInt((await tx.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid'))[0]!.xid);
      holding();
      await held;
    });
    await holds;
    const start = await store.readLog(primary, null);
    assert.equal(start.position.xmin, heldXid);

    await standbyServer.admin('SELECT pg_wal_replay_pause()');
    await until(
      'replay is paused',
      async () => (await standbyServer.admin<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state'))[0]!.state === 'paused',
    );
    const [change] = await logChange();
    const onPrimary = await store.readLog(primary, start.position);
    assert.equal(onPrimary.changed.length, 1);
    assert.ok(onPrimary.position.seen.includes(BigInt((change as { xid: string }).xid)), 'the change is one the position lists as seen');
    assert.equal(typeof onPrimary.countedUpTo, 'number', 'the primary reads the cut-off in the snapshot');

    // The paused standby has not replayed it: behind the position, it reads nothing.
    const onStandby = await store.readLog(standby, onPrimary.position);
    assert.equal(onStandby.behind, true, 'a standby that has not replayed a change the position saw is behind it');
    assert.deepEqual(onStandby.changed, []);
    assert.equal(onStandby.countedUpTo, null, 'a standby leaves the cut-off to the primary');
    assert.equal((await store.readLog(standby, start.position)).behind, false, 'but not behind a position from before the change');
    // Through the reads, the read goes to the primary, which has it.
    const primaryReads = routing.primaryReads();
    const routed = await store.readLog(routing.reads, onPrimary.position);
    assert.equal(routed.behind, false);
    assert.equal(routing.primaryReads(), primaryReads + 1, 'read on the primary');
    const inSnapshot = await routing.reads.snapshot((tx) => store.readLog(tx, onPrimary.position));
    assert.equal(inSnapshot.behind, false, 'a snapshot too');

    // A position whose xmin is past the primary's (as a standby's is when a commit it has
    // replayed is not yet visible on the primary): the primary is behind it until that ends.
    const ahead = { xmin: heldXid + 1n, seen: [] };
    assert.equal((await store.readLog(primary, ahead)).behind, true, "the primary, its xmin below the position's, is behind it");
    release();
    await holder;
    assert.equal((await store.readLog(primary, ahead)).behind, false, 'and no longer once the transaction has ended');

    // Resumed, the standby replays the change and is no longer behind.
    await standbyServer.admin('SELECT pg_wal_replay_resume()');
    await until('the standby has replayed the change', async () => !(await store.readLog(standby, onPrimary.position)).behind);
    await until('the standby is back in use', () => routing.standbys()[0]!.inUse);
    const standbyReadsBefore = routing.standbys()[0]!.reads;
    const back = await routing.reads.snapshot((tx) => store.readLog(tx, onPrimary.position));
    assert.equal(back.behind, false);
    assert.equal(routing.standbys()[0]!.reads, standbyReadsBefore + 1, 'a snapshot read on the standby');
  });

  it('two api processes on a primary and its standby: an event ingested through one is read and counted by a search at once through the other, whose search index catches up on the standby, replay running or paused', {
    timeout: timeLimit({ starts: 2, otherMs: 90_000 }),
  }, async (t) => {
    const primaryServer = await ownPostgres(t, BIN!);
    const standbyServer = await ownPostgres(t, BIN!, { standbyOf: primaryServer });
    const env = { EVMON_DATABASE_URL: primaryServer.url, EVMON_DATABASE_REPLICA_URLS: standbyServer.url, EVMON_ROLE: 'api' };
    const writer = await spawnServer(t, { ...env, EVMON_DATA_DIR: tempDir() });
    const reader = await spawnServer(t, { ...env, EVMON_DATA_DIR: tempDir() });
    const corpus = testCorpus(writer);
    const type = await corpus.eventType();
    const outlet = await corpus.outlet();
    const { key } = await corpus.account(1_000, ['EVENTS_READ']);
    const mentioned = await corpus.entity();
    const standby = `127.0.0.1:${new URL(standbyServer.url).port}/postgres`;
    const inUse = async () => (await scrape(reader.http)).value('evmon_db_standby_in_use', { standby }) === 1;
    await until('the reader uses its standby', inUse);
    await reader.waitForOutput(/"msg":"search index built"/, 30_000);

    // Between requests, the reader's search index catches up each second: on the standby.
    const idle = await scrape(reader.http);
    await sleep(2_500);
    const idled = await scrape(reader.http);
    const catchUpsOnStandby = idled.value('evmon_db_reads_total', { target: standby }) - idle.value('evmon_db_reads_total', { target: standby });
    assert.ok(catchUpsOnStandby >= 2, `the index caught up on the standby while no request came: ${catchUpsOnStandby} reads`);
    assert.equal(
      idled.value('evmon_db_reads_total', { target: 'primary' }),
      idle.value('evmon_db_reads_total', { target: 'primary' }),
      'and none on the primary',
    );

    const ingestThenRead = async (n: number) => {
      const id = await corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        url: `https://example.com/${n}`,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
        mentioned_entity_ids: [mentioned],
      });
      const read = await reader.http.get(`/v1/events/${id}`, bearer(key));
      assert.equal(read.status, 200, `event ${n}, ingested through the other process, is read at once: ${read.text}`);
      assert.equal(read.json.id, id);
      const search = await reader.http.post('/v1/events/search', { involved_entity_ids: [mentioned], lookback_days: 30, limit: 50 }, bearer(key));
      assert.equal(search.status, 200, search.text);
      assert.equal(search.json.total_count, n + 1, `event ${n} is counted at once by a search through the other process`);
      assert.ok(
        search.json.data.some((event: { id: string }) => event.id === id),
        'and listed',
      );
    };
    for (let n = 0; n < 20; n++) await ingestThenRead(n);
    const running = await scrape(reader.http);
    const onStandby = running.value('evmon_db_reads_total', { target: standby });
    assert.ok(
      onStandby > running.value('evmon_db_reads_total', { target: 'primary' }),
      `most reads on the standby: ${onStandby} against ${running.value('evmon_db_reads_total', { target: 'primary' })} on the primary`,
    );

    await standbyServer.admin('SELECT pg_wal_replay_pause()');
    for (let n = 20; n < 25; n++) await ingestThenRead(n);
    const paused = await scrape(reader.http);
    assert.equal(paused.value('evmon_db_standby_in_use', { standby }), 0, 'left out while paused');
    assert.ok(paused.value('evmon_db_reads_total', { target: 'primary' }) >= 5, 'the reads went to the primary');
    await standbyServer.admin('SELECT pg_wal_replay_resume()');
    await until('the reader uses its standby again', inUse);
    for (let n = 25; n < 30; n++) await ingestThenRead(n);
    assert.ok((await scrape(reader.http)).value('evmon_db_reads_total', { target: standby }) > onStandby, 'the standby serves again');

    assert.doesNotMatch(reader.output(), /catching up the search index failed/, 'every search counted from the index, caught up');
    assert.doesNotMatch(reader.output(), /counts in SQL/);

    // A sensor made through one process is read at once through the other, alone and in its list.
    const owner = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    for (let n = 0; n < 10; n++) {
      const made = await writer.http.post(
        '/v1/sensors',
        { name: `sensor ${n}`, filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: 'https://example.com/hook' }] },
        bearer(owner.key),
      );
      assert.equal(made.status, 201, made.text);
      const read = await reader.http.get(`/v1/sensors/${made.json.id}`, bearer(owner.key));
      assert.equal(read.status, 200, `sensor ${n} is read at once through the other process: ${read.text}`);
      const list = await reader.http.get('/v1/sensors?limit=100', bearer(owner.key));
      assert.equal(list.json.data.length, n + 1, 'the list holds every sensor made before it');
    }
  });

  it('when EVMON_DATABASE_REPLICA_URLS is set on the embedded database, then start-up refuses, saying it needs PostgreSQL', {
    skip: false,
    timeout: timeLimit({ runs: 1 }),
  }, async (t) => {
    const result = await runOwned(t, process.execPath, programArgs('src/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, EVMON_DATABASE_REPLICA_URLS: 'postgres://127.0.0.1:5999/x', EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /EVMON_DATABASE_REPLICA_URLS needs EVMON_DATABASE_URL=postgres:\/\/…/);
  });
});
