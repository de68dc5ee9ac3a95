// Event search counts its widest searches (no filter, or a type and min_reports) from the day
// counts (migration 018, search/index/day-counts.ts). On a corpus changed at random, round after
// round (articles on random days, reports joining events from new and known outlets, reports
// dated before their event's first, merges, deletions, and the deltas folded now and then),
// those counts must equal the SQL face's count at the same cut-off, for every type, window
// and min_reports, whole days and partial ones; and a search's total_count must equal the
// events its pages then list. The search index in memory, caught up round by round, is held
// to the SQL face the same way: on entity and outlet conditions, and on a type and
// min_reports alone, which it counts from its own day tallies (search/index/day-tallies.ts), as
// the service does once the index is built.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countByDay, countableByDay, foldDayCounts, SOURCES_CAP } from '../../src/modules/search/index/day-counts.js';
import { filteredEvents } from '../../src/modules/filters/filtered-events.js';
import { normalizeFilter } from '../../src/modules/filters/filter.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEED = Number(process.env.EVMON_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('search counts from the day counts', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  const types: string[] = [];
  const outlets: string[] = [];
  const entities: string[] = [];
  const events: string[] = [];
  const typeOf = new Map<string, string>();
  /** The entities and outlets each live event was reported with (merges move them along). */
  const namedBy = new Map<string, { entities: Set<string>; outlets: Set<string> }>();
  let hotJoins = 0;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: new Date(NOW).toISOString() });
    for (let i = 0; i < 2; i++) types.push((await corpus.eventType()).id);
    for (let i = 0; i < 12; i++) outlets.push(await corpus.outlet());
    for (let i = 0; i < 6; i++) entities.push(await corpus.entity());
  });
  after(() => server.close());

  let seed = SEED % 2147483647 || 1;
  const next = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  /** An instant within the last 40 days: any minute, and now and then exactly midnight. */
  const someInstant = () => (next(4) === 0 ? Math.floor((NOW - next(40) * DAY) / DAY) * DAY : NOW - next(40 * 24) * HOUR - next(60) * 60_000);
  const published: number[] = [];
  /**
   * A window's start: now and then anywhere, mostly within two days before a report of the
   * corpus (at a minute or a midnight), so that most windows hold something.
   */
  const someWindowStart = () => {
    if (published.length === 0 || next(4) === 0) return someInstant();
    const at = published[next(published.length)]! - next(48) * HOUR - next(60) * 60_000;
    return next(4) === 0 ? Math.floor(at / DAY) * DAY : at;
  };

  async function changeAtRandom() {
    for (let i = 0, n = 4 + next(8); i < n; i++) {
      const at = someInstant();
      published.push(at);
      // The first two reports of a round join the oldest event (once there is one), which so
      // collects more distinct sources than the cap; a third of the others join a live event.
      const hot = events.length > 0 && i < 2;
      const joined = hot ? events[0]! : events.length > 0 && next(3) === 0 ? events[next(events.length)]! : null;
      const type = joined ? typeOf.get(joined)! : types[next(types.length)]!;
      // Reports joining the oldest come from each outlet in turn: it gains distinct sources.
      const outlet = joined === events[0] ? outlets[hotJoins++ % outlets.length]! : outlets[next(outlets.length)]!;
      const entity = entities[next(entities.length)]!;
      const eventId = await corpus.article({
        outlet_id: outlet,
        event_type_id: type,
        published_at: new Date(at).toISOString(),
        received_at: new Date(Math.min(NOW, at + next(3) * DAY)).toISOString(),
        roles: [{ role: 'party', entity_id: entity }],
        ...(joined ? { incident_id: joined } : {}),
      });
      if (!typeOf.has(eventId)) events.push(eventId);
      typeOf.set(eventId, type);
      if (!namedBy.has(eventId)) namedBy.set(eventId, { entities: new Set(), outlets: new Set() });
      namedBy.get(eventId)!.entities.add(entity);
      namedBy.get(eventId)!.outlets.add(outlet);
    }
    // `events` keeps the live ones: reports join only those. The oldest (events[0]) is never
    // merged away or deleted, so that it keeps collecting sources.
    if (events.length > 4 && next(3) === 0) {
      const from = events[1 + next(events.length - 1)]!;
      const sameType = events.filter((id) => id !== from && typeOf.get(id) === typeOf.get(from));
      if (sameType.length > 0) {
        const into = sameType[next(sameType.length)]!;
        const merged = await corpus.ops('POST', `/events/${from}/merge`, { into_event_id: into });
        assert.equal(merged.status, 200, merged.text);
        events.splice(events.indexOf(from), 1);
        for (const entity of namedBy.get(from)!.entities) namedBy.get(into)!.entities.add(entity);
        for (const outlet of namedBy.get(from)!.outlets) namedBy.get(into)!.outlets.add(outlet);
      }
    }
    if (events.length > 4 && next(4) === 0) {
      const [gone] = events.splice(1 + next(events.length - 1), 1);
      const deleted = await corpus.ops('DELETE', `/events/${gone}`);
      assert.ok(deleted.status < 300, deleted.text);
    }
  }

  /** The day counts against the SQL face, in one snapshot (other test files may be writing). */
  async function compare(typeId: string | null, minReports: number, windowStart: Date) {
    const filter = normalizeFilter({ event_type_id: typeId, min_reports: minReports });
    if (!countableByDay(filter)) {
      assert.ok(minReports > SOURCES_CAP);
      return 0;
    }
    return server.runtime.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const byDay = await countByDay(tx, filter, windowStart, 3);
      const sqlFace = await filteredEvents(tx, [filter], { countedUpTo: byDay.countedUpTo, windowStart });
      const bySql = await sqlFace.count();
      const what = `seed ${SEED}: type ${typeId ?? 'any'}, min_reports ${minReports}, window from ${windowStart.toISOString()}`;
      assert.equal(byDay.count, bySql, what);
      // The newest, read with the count, are the SQL face's first page at its cut-off.
      const page = (await sqlFace.page('newest-first', null, 3)).map(({ id, firstReportDate }) => ({ id, firstReportDate }));
      assert.deepEqual(byDay.newest, page, what);
      return bySql;
    });
  }

  /** The server's search index against the SQL face at the index's cut-off (nothing else writes this database). */
  async function compareIndex(conditions: Record<string, unknown>, windowStart: Date) {
    const filter = normalizeFilter(conditions);
    const fromIndex = await server.runtime.searchIndex.search(filter, windowStart, 3);
    assert.ok(fromIndex, 'the index is built');
    const events = await filteredEvents(server.runtime.db, [filter], { countedUpTo: fromIndex.countedUpTo, windowStart });
    const what = `seed ${SEED}: ${JSON.stringify(conditions)}, window from ${windowStart.toISOString()}`;
    assert.equal(fromIndex.count, await events.count(), what);
    const page = (await events.page('newest-first', null, 3)).map(({ id, firstReportDate }) => ({ id, firstReportDate }));
    assert.deepEqual(fromIndex.page, page, what);
    return fromIndex.count;
  }

  it('when the corpus changes at random, then the day counts equal the SQL count, and their newest its first page, for every type, window and min_reports', async (t) => {
    const db = server.runtime.db;
    const unfolded = async () => (await db.query('SELECT 1 FROM event_day_counts GROUP BY event_type_id, day, sources HAVING count(*) > 1')).length;
    let found = 0;
    let indexFound = 0;
    let talliesFound = 0;
    let sawUnfolded = false;
    for (let round = 0; round < 8; round++) {
      await changeAtRandom();
      // Before and after the deltas are folded (the drain runs the sweeps).
      sawUnfolded ||= (await unfolded()) > 0;
      for (let i = 0; i < 16; i++) {
        if (i === 8) await server.ops.post('/drain');
        const type = [null, ...types][next(3)] ?? null;
        const minReports = next(4) === 0 ? 1 + next(10) : 1 + next(2);
        // Half the windows start near a report, half in the corpus's first ten days (they hold most of it).
        const windowStart = i % 2 === 0 ? someWindowStart() : NOW - (31 + next(10)) * DAY - next(24) * HOUR;
        if ((await compare(type, minReports, new Date(windowStart))) > 0) found++;
        // The search index, caught up through the same changes, on entity and outlet conditions.
        // Always an entity or an outlet of this test's own: other test files may share the database.
        // One of each names a live event, so that most conditions match something (with a
        // random second one, which may not).
        const named = namedBy.get(events[next(events.length)]!)!;
        const oneOf = (set: Set<string>) => [...set][next(set.size)]!;
        const withEntities = next(3) !== 0;
        const conditions = {
          event_type_id: type,
          min_reports: minReports,
          ...(withEntities ? { involved_entity_ids: [oneOf(named.entities), entities[next(entities.length)]] } : {}),
          ...(!withEntities || next(2) === 0 ? { required_source_news_outlet_ids: [oneOf(named.outlets), outlets[next(outlets.length)]] } : {}),
          ...(next(3) === 0 ? { scope: 'PARTICIPANT' } : {}),
        };
        if ((await compareIndex(conditions, new Date(windowStart))) > 0) indexFound++;
        // The index's day tallies: a type of this test's own (others may share the database).
        if ((await compareIndex({ event_type_id: types[next(types.length)], min_reports: minReports }, new Date(windowStart))) > 0) talliesFound++;
      }
    }
    t.diagnostic(`${indexFound} of 128 index comparisons counted something; ${talliesFound} of 128 by the day tallies`);
    assert.ok(talliesFound >= 30, `seed ${SEED}: only ${talliesFound} of 128 day-tally comparisons counted anything`);
    assert.ok(indexFound >= 30, `seed ${SEED}: only ${indexFound} of 128 index comparisons counted anything`);
    t.diagnostic(`seed ${SEED} (EVMON_TEST_SEED repeats it): ${found} of 128 comparisons counted something`);
    assert.ok(found >= 60, `seed ${SEED}: only ${found} of 128 comparisons counted anything`);
    assert.ok(sawUnfolded, 'counts were read from deltas not yet folded');
    const [widest] = await server.runtime.db.query<{ n: number }>(
      'SELECT max(cardinality(source_seqs))::int AS n FROM events WHERE event_type_id = ANY($1::uuid[]) AND merged_into_event_id IS NULL AND deleted_at IS NULL',
      [types],
    );
    assert.ok(widest!.n > SOURCES_CAP, `seed ${SEED}: no event has more distinct sources than the cap (${widest!.n})`);
    await foldDayCounts(db);
    assert.equal(await unfolded(), 0, 'a fold leaves one row per key');
    const [deltas] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_day_counts WHERE delta');
    assert.equal(deltas!.n, 0, 'a fold leaves no delta unfolded (its index, which the next fold reads, is empty)');
    assert.equal(await foldDayCounts(db), 0, 'a fold with nothing to fold folds nothing');
  });

  it('when a widest search is counted (the index, or the day counts while it builds), then total_count is what its pages list', async () => {
    const { key } = await corpus.account(100);
    // Events of the first type within the last week, whatever the random rounds left there.
    for (let i = 0; i < 6; i++) {
      const at = new Date(NOW - (i + 1) * 20 * HOUR).toISOString();
      await corpus.article({
        outlet_id: outlets[i],
        event_type_id: types[0],
        published_at: at,
        received_at: at,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
      });
    }
    for (const [typeId, lookback, minReports] of [
      [types[0], 30, 1],
      [types[1], 7, 1],
      [types[0], 30, 2],
      [types[1], 30, 9],
    ] as const) {
      const body = { event_type_id: typeId, lookback_days: lookback, min_reports: minReports, limit: 4 };
      let page = await server.http.post('/v1/events/search', body, bearer(key));
      assert.equal(page.status, 200, page.text);
      const total = page.json.total_count;
      const listed = [...page.json.data];
      while (page.json.next_cursor) {
        page = await server.http.post('/v1/events/search', { cursor: page.json.next_cursor }, bearer(key));
        listed.push(...page.json.data);
      }
      assert.equal(listed.length, total, `type ${typeId}, ${lookback} days, min_reports ${minReports}`);
      if (minReports === 1 && lookback === 30) assert.ok(total > 5, 'the corpus has events in the window');
    }
  });
});
