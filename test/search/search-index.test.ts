// The search index in memory (search/index/memory-index*.ts): a search counted from it counts every
// report committed before the search began, whichever process answers; an index the change
// log was purged past rebuilds and answers the same; a restarted process builds it again from
// the tables and answers the same counts. (Its counts against the SQL face, on random filters:
// test/filters/filter-faces.test.ts.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { memoryIndexSync } from '../../src/modules/search/index/memory-index-sync.js';
import { purgeSearchLog } from '../../src/modules/search/index/memory-index.store.js';
import type { Queryable } from '../../src/platform/db/database.js';
import { normalizeFilter } from '../../src/modules/filters/filter.js';
import { compileWithRoleIds, filteredEvents, type IndexCandidates } from '../../src/modules/filters/filtered-events.js';
import { receivedUpTo } from '../../src/modules/corpus/event-view.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, PG_URL, spawnServer, startServer, tempDir, timeLimit, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Sweeps of the change log an hour apart until its horizon has passed every row written so far,
 * which they purge. Their margin is on the database's clock: here they are told the time, past
 * whatever the horizon noted. The horizon moves to the xmin a sweep noted, which a transaction
 * running anywhere in the cluster holds back (a load beside the tests): then more sweeps, as a
 * server's would follow. Answers the rows deleted.
 */
async function purgeWhatWasWritten(db: Queryable): Promise<number> {
  // A transaction id above every row written so far.
  const [{ above }] = (await db.query<{ above: string }>('SELECT pg_current_xact_id()::text AS above')) as [{ above: string }];
  const [noted] = await db.query<{ ms: number }>('SELECT (extract(epoch FROM greatest(noted_at, now())) * 1000)::float8 AS ms FROM event_search_log_horizon');
  let deleted = 0;
  // A minute at most: a load's transactions last seconds.
  for (let ms = noted!.ms + HOUR + MINUTE, tries = 0; tries < 600; ms += HOUR + MINUTE, tries++) {
    deleted += await purgeSearchLog(db, { now: new Date(ms), notedBefore: new Date(ms - HOUR) });
    const [{ below }] = (await db.query<{ below: string }>('SELECT purged_below::text AS below FROM event_search_log_horizon')) as [{ below: string }];
    if (BigInt(below) > BigInt(above)) return deleted;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the change log's horizon did not pass transaction ${above} in a minute`);
}

/** A restarted server loads its saved index and reads the widest search before it listens. */
function assertLoadedBeforeReady(output: string): void {
  const at = (message: string) => output.indexOf(`"msg":"${message}"`);
  assert.ok(at('search index loaded') >= 0 && at('search index loaded') < at('search warmed up') && at('search warmed up') < at('ready'), output);
}

describe('search index', () => {
  let server: TestServer;
  let corpus: TestCorpus;

  let database: Awaited<ReturnType<typeof isolatedDatabase>>;

  before(async () => {
    // A database of its own: its sweeps move the log's horizon, which the servers of other test
    // files sharing a schema would otherwise find purged past them.
    database = await isolatedDatabase();
    server = await startServer(database.env);
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  /**
   * Articles each its own event (events cluster by a shared participant), all naming one new
   * entity, and the filter of that entity over the last 30 days.
   */
  async function articlesNamingOneEntity() {
    const type = await corpus.eventType();
    const [outlet, entity] = [await corpus.outlet(), await corpus.entity()];
    const article = async () =>
      corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
        mentioned_entity_ids: [entity],
      });
    return { article, filter: normalizeFilter({ involved_entity_ids: [entity] }), windowStart: new Date(Date.parse(NOW) - 30 * 24 * 60 * MINUTE) };
  }

  it('when the change log is purged past an index, then it is rebuilt from the tables and counts what the SQL face counts', async () => {
    const db = server.runtime.db;
    const { article, filter, windowStart } = await articlesNamingOneEntity();

    // Each build waits until the test lets it go: what a search answers while one runs is then
    // not a matter of which finishes first.
    let release = () => {};
    let held = Promise.resolve();
    const hold = () => (held = new Promise<void>((resolve) => (release = resolve)));
    const sync = memoryIndexSync(db, server.runtime.logger, { beforeBuild: () => held });
    try {
      for (let i = 0; i < 3; i++) await article();
      hold();
      assert.equal(await sync.search(filter, windowStart, 10), null, 'no index before the first build: SQL counts');
      release();
      await sync.built();
      assert.equal((await sync.search(filter, windowStart, 10))?.count, 3);

      for (let i = 0; i < 2; i++) await article();
      assert.ok((await purgeWhatWasWritten(db)) > 0, 'the sweeps purged rows this index had not read');
      hold();
      assert.equal(await sync.search(filter, windowStart, 10), null, 'purged past: the index is dropped and rebuilt, SQL counts meanwhile');
      assert.equal(await sync.search(filter, windowStart, 10), null, 'still rebuilding: SQL counts, never the index the log passed');
      release();
      await sync.built();
      const rebuilt = await sync.search(filter, windowStart, 10);
      assert.equal(rebuilt?.count, 5);
      assert.equal(rebuilt.page.length, 5);
      // The horizon moved past the index before the rebuild; the rebuild is past it again.
      await article();
      assert.equal((await sync.search(filter, windowStart, 10))?.count, 6);
    } finally {
      await sync.close();
    }
  });

  it('when a process stops and starts again, then it loads the index it saved and catches up with what changed meanwhile, unless the database is another or the log was purged past it', async () => {
    const db = server.runtime.db;
    const { article, filter, windowStart } = await articlesNamingOneEntity();
    const file = path.join(tempDir(), 'search-index', 'index.v8');
    const messages: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void messages.push(JSON.parse(line).msg) });
    /** A process's index from start to stop: what it counted, and how it began. */
    const run = async (work: (sync: ReturnType<typeof memoryIndexSync>) => Promise<void> = async () => undefined) => {
      messages.length = 0;
      const sync = memoryIndexSync(db, logger, { file });
      try {
        // A loaded index is in place when start resolves (a server listens only then); a build runs on.
        await sync.start();
        const loadedAtStart = messages.includes('search index loaded');
        await sync.built();
        const began = messages.find((message) => /^search index (built|loaded)$/.test(message));
        assert.equal(loadedAtStart, began === 'search index loaded');
        const counted = await sync.search(filter, windowStart, 10);
        await work(sync);
        return { began, count: counted?.count, page: counted?.page.length };
      } finally {
        await sync.close();
      }
    };

    for (let i = 0; i < 3; i++) await article();
    assert.deepEqual(await run(), { began: 'search index built', count: 3, page: 3 }, 'no file yet: built from the tables');
    assert.ok(messages.includes('search index saved') && fs.existsSync(file));
    for (let i = 0; i < 2; i++) await article();
    assert.deepEqual(await run(), { began: 'search index loaded', count: 5, page: 5 }, 'loaded, and caught up with the two reports filed while it was stopped');
    // Caught up as it runs, as a built one does; then saved again at its stop.
    const later = await run(async (sync) => {
      await article();
      assert.equal((await sync.search(filter, windowStart, 10))?.count, 6);
    }).then(() => run());
    assert.deepEqual(later, { began: 'search index loaded', count: 6, page: 6 });

    // The log purged past the saved position: built instead.
    await article();
    assert.ok((await purgeWhatWasWritten(db)) > 0);
    assert.deepEqual(await run(), { began: 'search index built', count: 7, page: 7 }, 'purged past: built from the tables');

    // Another database (here: its epoch made afresh, as a new schema's would be): built instead.
    await db.query('UPDATE event_search_log_horizon SET index_epoch = gen_random_uuid()');
    assert.deepEqual(await run(), { began: 'search index built', count: 7, page: 7 }, 'another database: built from the tables');
    assert.equal(await run().then((r) => r.began), 'search index loaded');

    // Saves leave one file behind them, no temporary ones.
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['index.v8']);
    // A file cut short (a disk that filled, say) is left aside, and the index built.
    fs.truncateSync(file, fs.statSync(file).size - 1);
    assert.deepEqual(await run(), { began: 'search index built', count: 7, page: 7 }, 'a file cut short: built from the tables');
    // A file this version cannot read is left aside, and the index built.
    fs.writeFileSync(file, 'not an index');
    assert.deepEqual(await run(), { began: 'search index built', count: 7, page: 7 }, 'an unreadable file: built from the tables');
  });

  it('when a server warms up before it listens, then it runs a search and its charge for no one: nothing is charged or recorded', async () => {
    const db = server.runtime.db;
    const { key, id: accountId } = await corpus.account(100);
    await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: (await corpus.eventType()).id,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    const written = async () =>
      (
        await db.query<{ executions: number; ledger: number; balance: number; cost: number }>(
          `SELECT (SELECT count(*)::int FROM search_executions) AS executions, (SELECT count(*)::int FROM credit_ledger) AS ledger,
                  a.credit_balance::int AS balance, p.search_credit_cost AS cost
             FROM accounts a JOIN plans p ON p.name = a.plan WHERE a.id = $1`,
          [accountId],
        )
      )[0];
    const before = await written();
    await server.runtime.keys.warmUp();
    await server.runtime.search.warmUp();
    assert.deepEqual(await written(), before);
    // A real search is charged and recorded, as ever.
    const answer = await server.http.post('/v1/events/search', { lookback_days: 365 }, bearer(key));
    assert.equal(answer.status, 200, answer.text);
    const after = await written();
    assert.deepEqual(after, { ...before!, executions: before!.executions + 1, ledger: before!.ledger + 1, balance: before!.balance - before!.cost });
  });

  it('when an event changes between the catch-up of the index and the check of its candidates, then the page finds it through the change log', async () => {
    const db = server.runtime.db;
    const type = await corpus.eventType();
    const [entity, outletA, outletB] = [await corpus.entity(), await corpus.outlet(), await corpus.outlet()];
    // Two events (two parties), one outlet each, both mentioning the entity.
    const eventOf = async (outlet: string) =>
      corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
        mentioned_entity_ids: [entity],
      });
    const [survivor, merged] = [await eventOf(outletA), await eventOf(outletB)];
    const filter = normalizeFilter({ event_type_id: type.id, involved_entity_ids: [entity], min_reports: 2 });
    const scope = { countedUpTo: await receivedUpTo(db), windowStart: new Date(Date.parse(NOW) - 30 * 24 * 60 * MINUTE) };
    const { compiled, roleIds } = await compileWithRoleIds(db, [filter]);
    // The candidates as the index gives them now: neither event has two sources.
    const stale = await server.runtime.searchIndex.candidates(compiled, roleIds, scope.windowStart, 'newest-first', null, 10);
    assert.deepEqual(stale?.matches, []);
    // Then the merge: the survivor has both reports, received before the cut-off.
    assert.equal((await corpus.ops('POST', `/events/${merged}/merge`, { into_event_id: survivor })).status, 200);
    const pageWith = async (candidates: IndexCandidates) =>
      (await (await filteredEvents(db, [filter], scope, { candidates: async () => candidates })).page('newest-first', null, 10)).map((event) => event.id);
    assert.deepEqual(await pageWith(stale!), [survivor], 'the change log names the survivor: it is checked, and found');
    assert.deepEqual(await pageWith({ ...stale!, changedSince: () => 'SELECT NULL::uuid' }), [], 'the candidates alone miss it');
  });

  it('when a search has entity, outlet or role conditions, then total_count is what its pages list', async () => {
    const { key } = await corpus.account(100);
    const type = await corpus.eventType();
    const outlets = [await corpus.outlet(), await corpus.outlet()];
    const entities = [await corpus.entity(), await corpus.entity()];
    for (let i = 0; i < 9; i++) {
      const at = new Date(Date.parse(NOW) - (i + 1) * 7 * 60 * MINUTE).toISOString();
      await corpus.article({
        outlet_id: outlets[i % 2],
        event_type_id: type.id,
        published_at: at,
        received_at: at,
        roles: [
          { role: 'party', entity_id: await corpus.entity() },
          { role: 'price', amount: { value: 10 * i, unit: 'USD' } },
        ],
        mentioned_entity_ids: [entities[i % 2]],
      });
    }
    await server.runtime.searchIndex.built();
    for (const [conditions, expected] of [
      [{ involved_entity_ids: [entities[0]] }, 5],
      [{ required_source_news_outlet_ids: [outlets[1]] }, 4],
      [{ event_type_id: type.id, role_filters: [{ kind: 'amount_gte', role_code_name: 'price', min_value: 30 }] }, 6],
      [{ involved_entity_ids: entities, required_source_news_outlet_ids: [outlets[0]] }, 5],
    ] as const) {
      const body = { ...conditions, lookback_days: 30, limit: 2 };
      let page = await server.http.post('/v1/events/search', body, bearer(key));
      assert.equal(page.status, 200, page.text);
      assert.equal(page.json.total_count, expected, JSON.stringify(conditions));
      const listed = [...page.json.data];
      while (page.json.next_cursor) {
        page = await server.http.post('/v1/events/search', { cursor: page.json.next_cursor }, bearer(key));
        listed.push(...page.json.data);
      }
      assert.equal(listed.length, expected, JSON.stringify(conditions));
      const dates = listed.map((event) => Date.parse(event.first_report_date));
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => b - a),
        'newest first',
      );
    }
  });
});

describe('search index on several processes', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  before(async () => {
    database = await isolatedDatabase();
  });
  after(() => database.drop());

  it('when one process writes and another searches at once, then every search counts every report committed before it, and a restarted process, stopped or killed, loads its saved index and counts the same', {
    skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false,
    timeout: timeLimit({ starts: 4, otherMs: 60_000 }),
  }, async (t) => {
    const writer = await spawnServer(t, database.env);
    const readerEnv = { ...database.env, EVMON_DATA_DIR: tempDir() };
    let reader = await spawnServer(t, readerEnv);
    const built = /"msg":"search index built"/;
    await writer.waitForOutput(built, 30_000);
    await reader.waitForOutput(built, 30_000);
    const corpus = testCorpus(writer);
    const { key } = await corpus.account(1_000);
    const type = await corpus.eventType();
    const outlet = await corpus.outlet();
    const entity = await corpus.entity();
    const search = async (on: typeof reader) => {
      const answer = await on.http.post('/v1/events/search', { involved_entity_ids: [entity], lookback_days: 30, limit: 1 }, bearer(key));
      assert.equal(answer.status, 200, answer.text);
      return answer.json.total_count as number;
    };
    for (let written = 1; written <= 12; written++) {
      await corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
        mentioned_entity_ids: [entity],
      });
      // At once, on the process that did not write it, then on the one that did.
      assert.equal(await search(reader), written, 'the other process counts the report just committed');
      assert.equal(await search(writer), written);
    }
    // Stopped, it saves its index; three reports are filed meanwhile; started, it loads the index
    // and catches up with them.
    await reader.stop();
    for (let i = 0; i < 3; i++) {
      await corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
        mentioned_entity_ids: [entity],
      });
    }
    reader = await spawnServer(t, readerEnv);
    assertLoadedBeforeReady(reader.output());
    assert.equal(await search(reader), 15, 'a restarted process, its saved index caught up');
    // Killed, it saves nothing: the next start loads the file of the last stop and catches up from there.
    await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
      mentioned_entity_ids: [entity],
    });
    await reader.stop('SIGKILL');
    reader = await spawnServer(t, readerEnv);
    assertLoadedBeforeReady(reader.output());
    assert.equal(await search(reader), 16);
    await reader.stop();
    await writer.stop();
  });
});
