// The filter vocabulary has two faces: SQL over the corpus (search, backfill) and matching
// one changed event against saved filters (sensors, beats). On random filters over a corpus
// with merges, deletions, mentions and late reports, both must find the same events. The
// search index in memory (search/index/memory-index.ts) is held to the SQL face too, at its own cut-off:
// the server's, caught up through every change that made the corpus, and one built afresh.
// Articles carry texts, some of them copies of others (from other outlets, some dated before
// the text they copy, some placed in other events by incident_id), so min_independent_sources
// and each event's independent_source_count are held to one another across the faces too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { loadEventFacts } from '../../src/modules/filters/event-facts.js';
import { databaseEntityResolver } from '../../src/modules/filters/entity-resolver.js';
import { SqlParams } from '../../src/platform/db/sql-params.js';
import { filterConditions } from '../../src/modules/filters/filter-sql.js';
import { type EventPosition, filterStore } from '../../src/modules/filters/filter.store.js';
import { type CandidateSource, filteredEvents } from '../../src/modules/filters/filtered-events.js';
import { MemoryIndex } from '../../src/modules/search/index/memory-index.js';
import { memoryIndexSync } from '../../src/modules/search/index/memory-index-sync.js';
import { compileFilter, normalizeFilter, type EventFilter, type RoleFilter } from '../../src/modules/filters/filter.js';
import { matchesFilter } from '../../src/modules/filters/matching.js';
import { loadEventViews } from '../../src/modules/corpus/event-view.js';
import { eventsStore } from '../../src/modules/corpus/events.store.js';
import { referenceStore } from '../../src/modules/corpus/reference.store.js';
import type { Queryable } from '../../src/platform/db/database.js';
import { independentSourceCount } from '../../src/modules/corpus/independent-sources.js';
import { testCorpus } from '../helpers/corpus.js';
import { receiveSeqsOfType } from '../helpers/corpus-snapshot.js';
import { reportingClient } from '../helpers/reporting.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const iso = (hoursAgo: number) => new Date(NOW - hoursAgo * 3_600_000).toISOString();

describe('filter faces', () => {
  let server: TestServer;
  let typeId: string;
  /** A second type whose roles share code names with the first's: a role filter's code name names both. */
  let twinTypeId: string;
  const entities: string[] = [];
  const outlets: string[] = [];
  const lists: string[] = [];
  const events = new Set<string>();

  before(async () => {
    server = await startServer();
    const corpus = testCorpus(server);
    await server.ops.post('/clock', { now: iso(0) });
    typeId = (await corpus.eventType({ party: 'NAMED_ENTITY', other: 'NAMED_ENTITY', weight: 'WEIGHT', closing: 'DATE' })).id;
    twinTypeId = (await corpus.eventType({ party: 'NAMED_ENTITY', weight: 'WEIGHT' })).id;
    for (let i = 0; i < 6; i++) entities.push(await corpus.entity());
    for (let i = 0; i < 3; i++) outlets.push(await corpus.outlet());
    // A fixed pseudo-random corpus: reports spread over 40 hours, some received "later".
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    // Three stories of random words, story k mentioning entities[k]; an article mostly tells one
    // of them, mentioning that entity (a copy, case changed, when another told it first: copies
    // join only a report naming an entity in common), else one of its own, or has no text.
    const words = 'rain court strike bridge union price vote river harbour council minister market'.split(' ');
    const storyText = () => Array.from({ length: 70 }, () => `${words[next(words.length)]}${next(100)}`).join(' ');
    const stories = Array.from({ length: 3 }, storyText);
    const textOf = (): { text?: string; story?: number } => {
      const roll = next(6);
      if (roll < 4) {
        const story = next(3);
        return { text: next(2) ? stories[story]! : stories[story]!.toUpperCase(), story };
      }
      return roll < 5 ? { text: storyText() } : {};
    };
    for (let i = 0; i < 40; i++) {
      const hours = 2 + next(40);
      const { text, story } = textOf();
      const roles: unknown[] = [{ role: 'party', entity_id: entities[next(6)] }];
      if (next(2)) roles.push({ role: 'other', entity_id: entities[next(6)] });
      if (next(2)) roles.push({ role: 'weight', amount: { value: next(1000), unit: ['kg', 'KG', 'lb', 'ÉKG'][next(4)] } });
      if (next(2)) roles.push({ role: 'closing', date: `2026-11-${String(1 + next(28)).padStart(2, '0')}` });
      const known = [...events];
      const joins = known.length > 0 && next(3) === 0 ? { incident_id: known[next(known.length)] } : {};
      const eventId = await corpus.article({
        outlet_id: outlets[next(3)],
        event_type_id: typeId,
        published_at: iso(hours),
        received_at: iso(next(4) === 0 ? 1 : hours),
        roles,
        mentioned_entity_ids: story !== undefined ? [entities[story]] : next(2) ? [entities[next(6)]] : [],
        ...joins,
        ...(text === undefined ? {} : { text }),
      });
      events.add(eventId);
    }
    for (let i = 0; i < 10; i++) {
      const hours = 2 + next(40);
      const eventId = await corpus.article({
        outlet_id: outlets[next(3)],
        event_type_id: twinTypeId,
        published_at: iso(hours),
        received_at: iso(hours),
        roles: [
          { role: 'party', entity_id: entities[next(6)] },
          { role: 'weight', amount: { value: next(1000), unit: 'kg' } },
        ],
      });
      events.add(eventId);
    }
    // Structured reports from three accounts, two of them under grants pinning entities, which
    // cluster into the events above by a shared participant (or open their own).
    const reporting = reportingClient(server, corpus);
    const filers = [];
    for (const pins of [[entities[0]!, entities[1]!], [entities[2]!, entities[4]!], null]) {
      const filer = await reporting.account();
      const grant = pins
        ? (await reporting.grant({ account_id: filer.id, event_type_id: typeId, pins: [{ role: 'other', allowed_entity_ids: pins }] })).id
        : null;
      filers.push({ ...filer, grant, pins });
    }
    for (let i = 0; i < 24; i++) {
      const filer = filers[next(3)]!;
      const roles: unknown[] = [{ role: 'party', entity_id: entities[next(6)] }];
      if (filer.pins) roles.push({ role: 'other', entity_id: filer.pins[next(2)] });
      if (next(2)) roles.push({ role: 'weight', amount: { value: next(1000), unit: ['kg', 'lb'][next(2)] } });
      if (next(2)) roles.push({ role: 'closing', date: `2026-11-${String(1 + next(28)).padStart(2, '0')}` });
      const filed = await reporting.file(filer.key, {
        event_type_id: typeId,
        happened_at: iso(2 + next(40)),
        roles,
        ...(filer.grant ? { grant_id: filer.grant } : {}),
      });
      assert.equal(filed.status, 201, filed.text);
      await server.ops.post('/drain');
      events.add((await reporting.call('GET', `/reports/${filed.json.id}`, filer.key)).json.incident_id);
    }
    const ids = [...events];
    await corpus.ops('POST', `/events/${ids[3]}/merge`, { into_event_id: ids[4] });
    await corpus.ops('DELETE', `/events/${ids[5]}`);
    await corpus.ops('POST', `/entities/${entities[4]}/merge`, { into_entity_id: entities[0] });
    await corpus.ops('DELETE', `/entities/${entities[5]}`);
    lists.push((await corpus.ops('POST', '/entity-lists', { name: 'l', entity_ids: [entities[1], entities[4]] })).json.id);
    await server.ops.post('/drain');
  });
  after(() => server.close());

  it('when the events are read at any cut-off, then their independent sources are what the matching face counts, and fewer than their outlets where copies meet', async () => {
    const db = server.runtime.db;
    const seqs = await receiveSeqsOfType(db, typeId);
    let fewer = 0;
    for (const cutOff of [seqs[Math.floor(seqs.length / 3)]!, seqs[Math.floor((seqs.length * 2) / 3)]!, seqs.at(-1)!]) {
      const views = await loadEventViews(db, [...events], { seq: cutOff });
      for (const view of views) {
        const facts = await loadEventFacts(db, view.id, cutOff);
        assert.equal(view.independent_source_count, independentSourceCount(facts!.reports), `event ${view.id} at ${cutOff}`);
        assert.ok(view.independent_source_count <= view.distinct_outlet_count);
        if (view.independent_source_count < view.distinct_outlet_count) fewer++;
      }
    }
    assert.ok(fewer >= 3, `only ${fewer} readings found copies counted once`);
  });

  it('when random filters are applied, then the SQL face and the matching face find the same events', async () => {
    // Built here: the ids exist only once the corpus is made.
    const someOf = <T>(values: T[]) => fc.subarray(values, { maxLength: Math.min(3, values.length) });
    const roleFilter: fc.Arbitrary<RoleFilter> = fc
      .oneof(
        fc.record({
          kind: fc.constant('amount_gte' as const),
          role_code_name: fc.constant('weight'),
          min_value: fc.integer({ min: 0, max: 1000 }),
          unit: fc.option(fc.constantFrom('kg', 'LB', 'g', 'ékg', 'Ékg'), { nil: undefined }),
        }),
        fc.record({ kind: fc.constant('amount_lte' as const), role_code_name: fc.constant('weight'), max_value: fc.integer({ min: 0, max: 1000 }) }),
        fc.record({
          kind: fc.constant('date_after' as const),
          role_code_name: fc.constant('closing'),
          after_iso: fc.integer({ min: 1, max: 28 }).map((d) => `2026-11-${String(d).padStart(2, '0')}T00:00:00Z`),
        }),
        fc.record({
          kind: fc.constant('date_before' as const),
          role_code_name: fc.constant('closing'),
          before_iso: fc.integer({ min: 1, max: 28 }).map((d) => `2026-11-${String(d).padStart(2, '0')}T06:00:00Z`),
        }),
        fc.record({
          kind: fc.constant('entity_in' as const),
          role_code_name: fc.constantFrom('party', 'other'),
          canonical_ids: fc.constant(null).chain(() => someOf(entities)),
          entity_list_ids: fc.constant(null).chain(() => someOf(lists)),
        }),
      )
      .map((rf) => Object.fromEntries(Object.entries(rf).filter(([, v]) => v !== undefined)) as RoleFilter);

    const filter: fc.Arbitrary<EventFilter> = fc
      .record({
        involved_entity_ids: someOf(entities),
        involved_entity_list_ids: someOf(lists),
        scope: fc.constantFrom('MENTIONED' as const, 'PARTICIPANT' as const),
        // Often none: an outlet excludes every filter counting only structured reports.
        required_source_news_outlet_ids: fc.oneof(fc.constant<string[]>([]), someOf(outlets)),
        report_source_kind: fc.constantFrom('ANY' as const, 'ARTICLES_ONLY' as const, 'USER_REPORTS_ONLY' as const, 'REPRESENTED_ONLY' as const),
        represented_entity_ids: someOf(entities),
        represented_entity_list_ids: someOf(lists),
        min_reports: fc.integer({ min: 1, max: 3 }),
        min_independent_sources: fc.integer({ min: 1, max: 3 }),
        role_filters: fc.array(roleFilter, { maxLength: 3 }),
      })
      // Always a type of this file's own: on a shared PostgreSQL schema other files add events.
      .chain((fields) => fc.constantFrom(typeId, typeId, twinTypeId).map((type) => normalizeFilter({ ...fields, event_type_id: type })));

    const db = server.runtime.db;
    // Cut-offs at a quarter, half, four fifths and all of the corpus's reports, in receive order
    // (the structured reports arrive last).
    const seqs = await receiveSeqsOfType(db, typeId);
    const cutOffs = [seqs[Math.floor(seqs.length / 4)]!, seqs[Math.floor(seqs.length / 2)]!, seqs[Math.floor((seqs.length * 4) / 5)]!, seqs.at(-1)!];
    /** Both faces on one filter, cut-off and window: they must agree; answers what they found. */
    async function bothFaces(eventFilter: EventFilter, cutOff: number, windowHours: number | null): Promise<string[]> {
      // A search's window, which entity look-ups prune by inside the entity index.
      const windowStart = windowHours === null ? undefined : new Date(NOW - windowHours * 3_600_000);
      const compiled = await compileFilter(eventFilter, databaseEntityResolver(db));
      const params = new SqlParams();
      const where = filterConditions(compiled, params, { countedUpTo: cutOff, windowStart });
      const rows = await db.query<{ id: string }>(`SELECT e.id FROM events e WHERE ${where.join(' AND ')}`, params.values);
      const bySql = rows.map((r) => r.id).sort();
      const byMatching: string[] = [];
      for (const id of events) {
        const facts = await loadEventFacts(db, id, cutOff);
        const [event] = await db.query<{ first_report_date: Date }>('SELECT first_report_date FROM events WHERE id = $1', [id]);
        const inWindow = !windowStart || event!.first_report_date.getTime() >= windowStart.getTime();
        if (facts && inWindow && matchesFilter(compiled, facts)) byMatching.push(id);
      }
      assert.deepEqual(bySql, byMatching.sort());
      if (cutOff === seqs.at(-1) && MemoryIndex.answers(compiled)) await indexFace(eventFilter, compiled, windowStart);
      if (MemoryIndex.answers(compiled)) await pagesFromIndex(eventFilter, cutOff, windowStart, bySql);
      return bySql;
    }

    /**
     * Pages whose candidates come from the server's index (caught up to now, past the cut-off),
     * checked in SQL at the cut-off: every page, newest first and oldest first, in small pages,
     * lists what the SQL face finds there, in order. Older cut-offs are where the index holds more
     * than the cut-off counts (reports since, independent sources fallen as origins changed).
     */
    let paged = 0;
    async function pagesFromIndex(eventFilter: EventFilter, cutOff: number, windowStart: Date | undefined, bySql: readonly string[]) {
      const ordered = await db.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[]) ORDER BY first_report_date DESC, id DESC', [bySql]);
      const index = server.runtime.searchIndex;
      const source: CandidateSource = {
        async candidates(...args) {
          const found = await index.candidates(...args);
          assert.ok(found, 'the index gives candidates');
          return found;
        },
      };
      const events = await filteredEvents(db, [eventFilter], { countedUpTo: cutOff, windowStart }, source);
      for (const order of ['newest-first', 'oldest-first'] as const) {
        const listed: string[] = [];
        for (let after: EventPosition | null = null; ; ) {
          const page = await events.page(order, after, 4);
          listed.push(...page.map((event) => event.id));
          if (page.length < 4) break;
          after = page[3]!;
        }
        const expected = ordered.map((row) => row.id);
        assert.deepEqual(listed, order === 'newest-first' ? expected : expected.reverse(), `${order} pages of ${JSON.stringify(eventFilter)} at ${cutOff}`);
      }
      paged++;
    }

    /**
     * Each index (the server's, and one built afresh) against the SQL face at the index's
     * cut-off: the same count, and the same five newest (first report date, then id, descending).
     */
    const built = memoryIndexSync(db, server.runtime.logger);
    await built.start();
    await built.built();
    let indexed = 0;
    async function indexFace(eventFilter: EventFilter, compiled: Awaited<ReturnType<typeof compileFilter>>, windowStart: Date | undefined) {
      const roleIds = await filterStore.roleIds(db, [...new Set(compiled.roleFilters.map((rf) => rf.role))]);
      for (const sync of [server.runtime.searchIndex, built]) {
        const fromIndex = await sync.read(({ index, countedUpTo }) => ({
          countedUpTo,
          ...index.search(compiled, roleIds, (windowStart?.getTime() ?? 0) * 1000, 5),
        }));
        assert.ok(fromIndex, 'the index is built');
        const params = new SqlParams();
        const where = filterConditions(compiled, params, { countedUpTo: fromIndex.countedUpTo, windowStart });
        const rows = await db.query<{ id: string }>(
          `SELECT e.id FROM events e WHERE ${where.join(' AND ')} ORDER BY e.first_report_date DESC, e.id DESC`,
          params.values,
        );
        const filterText = JSON.stringify(eventFilter);
        assert.equal(fromIndex.count, rows.length, `count of ${filterText}`);
        assert.deepEqual(
          fromIndex.newest.map((m) => m.id),
          rows.slice(0, 5).map((r) => r.id),
          `newest of ${filterText}`,
        );
      }
      indexed++;
    }

    // The index answers at the newest cut-off only, so that one is drawn half the time: about
    // 110 of the 300 filters are held to the index (three quarters of filters are ones it answers).
    const newestHalfTheTime = fc.constantFrom(...cutOffs, seqs.at(-1)!, seqs.at(-1)!);
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(filter, newestHalfTheTime, fc.constantFrom(null, null, 30, 40), async (eventFilter, cutOff, windowHours) => {
        if ((await bothFaces(eventFilter, cutOff, windowHours)).length > 0) nonEmpty++;
      }),
      { numRuns: 300 },
    );
    assert.ok(nonEmpty >= 15, `only ${nonEmpty} of 300 filters found anything: the corpus does not exercise the faces`);
    assert.ok(indexed >= 60, `only ${indexed} filters were held to the index`);
    assert.ok(paged >= 150, `only ${paged} filters were paged from the index`);
    await built.close();

    // Represented entities, drawn less often by chance: each grant's pinned entities (and a
    // list holding one), alone and with a second filing account required.
    let representedFound = 0;
    for (const represented of [
      { represented_entity_ids: [entities[0]!] },
      { represented_entity_ids: [entities[2]!, entities[1]!] },
      { represented_entity_list_ids: [lists[0]!] },
    ]) {
      for (const minReports of [1, 2]) {
        const found = await bothFaces(
          normalizeFilter({ event_type_id: typeId, report_source_kind: 'REPRESENTED_ONLY', min_reports: minReports, ...represented }),
          seqs.at(-1)!,
          null,
        );
        if (found.length > 0) representedFound++;
      }
    }
    assert.ok(representedFound >= 3, `only ${representedFound} represented-entity filters found anything`);
  });

  it('when an entity was merged or deleted and its events not refreshed yet, then both faces find them through the survivor, as the merge finds them', async () => {
    // The merge's and the deletion's own writes, in a transaction rolled back after the checks:
    // the refresh job that recomputes the events (and their rows' involved_entity_ids) never runs.
    const db = server.runtime.db;
    const [merged, survivor, deleted] = [entities[1]!, entities[2]!, entities[3]!];
    const cutOff = (await db.query<{ s: number }>('SELECT max(received_seq)::int AS s FROM reports'))[0]!.s;
    /** The events of this file each face finds for an entity filter: the two faces must agree. */
    const found = async (tx: Queryable, ids: string[], scope: 'MENTIONED' | 'PARTICIPANT') => {
      const compiled = await compileFilter(normalizeFilter({ involved_entity_ids: ids, scope }), databaseEntityResolver(tx));
      const params = new SqlParams();
      const where = filterConditions(compiled, params, { countedUpTo: cutOff });
      const rows = await tx.query<{ id: string }>(`SELECT e.id FROM events e WHERE ${where.join(' AND ')}`, params.values);
      const bySql = rows
        .map((r) => r.id)
        .filter((id) => events.has(id))
        .sort();
      const byMatching: string[] = [];
      for (const id of events) {
        const facts = await loadEventFacts(tx, id, cutOff);
        if (facts && matchesFilter(compiled, facts)) byMatching.push(id);
      }
      assert.deepEqual(bySql, byMatching.sort(), `${scope} ${ids}`);
      return bySql;
    };
    const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort();
    class RolledBack extends Error {}
    await assert.rejects(
      db.transaction(async (tx) => {
        const before = {
          mentioned: union(await found(tx, [merged], 'MENTIONED'), await found(tx, [survivor], 'MENTIONED')),
          participant: union(await found(tx, [merged], 'PARTICIPANT'), await found(tx, [survivor], 'PARTICIPANT')),
          deleted: await found(tx, [deleted], 'MENTIONED'),
        };
        // Events where the merged entity is only mentioned are found through their reports.
        const onlyMentioned = (await found(tx, [merged], 'MENTIONED')).filter((id) => !before.participant.includes(id));
        assert.ok(onlyMentioned.length > 0, 'no event only mentions the entity merged');
        assert.ok(before.deleted.length > 0, 'no event names the entity deleted');
        const naming = union(await eventsStore.eventsNaming(tx, merged), await eventsStore.eventsNaming(tx, survivor)).filter((id) => events.has(id));
        assert.deepEqual(naming, before.mentioned, 'the events the merge refreshes are those naming either entity');

        await referenceStore.mergeEntity(tx, merged, survivor);
        await referenceStore.deleteEntity(tx, deleted, new Date(NOW));
        const stale = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE $1 = ANY(involved_entity_ids)', [merged]);
        assert.ok(stale[0]!.n > 0, 'the event rows still name the entity merged (no refresh yet)');
        assert.deepEqual(await found(tx, [survivor], 'MENTIONED'), before.mentioned);
        assert.deepEqual(await found(tx, [survivor], 'PARTICIPANT'), before.participant);
        assert.deepEqual(
          (await eventsStore.eventsNaming(tx, survivor)).filter((id) => events.has(id)),
          before.mentioned,
          'a second merge would refresh them all',
        );
        for (const id of before.deleted) {
          const facts = await loadEventFacts(tx, id, cutOff);
          assert.ok(!facts!.involved.has(deleted) && !facts!.involved.has(merged), `event ${id} still lists a gone entity`);
        }
        throw new RolledBack();
      }),
      RolledBack,
    );
  });

  it('when an entity is merged and another deleted, then the search index reads their events again at once, before the refresh job runs', async () => {
    const { db, jobs, reference, searchIndex } = server.runtime;
    const [merged, survivor, deleted] = [entities[1]!, entities[2]!, entities[3]!];
    await jobs.stop(); // the refresh job, which writes the events' rows (and so the change log), waits
    try {
      await reference.mergeEntity(merged, survivor);
      await reference.deleteEntity(deleted);
      const stale = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE involved_entity_ids && $1::uuid[]', [[merged, deleted]]);
      assert.ok(stale[0]!.n > 0, 'the event rows still name the entities merged and deleted (no refresh yet)');
      for (const scope of ['MENTIONED', 'PARTICIPANT'] as const) {
        for (const ids of [[survivor], [entities[0]!, survivor]]) {
          const compiled = await compileFilter(normalizeFilter({ involved_entity_ids: ids, scope }), databaseEntityResolver(db));
          const roleIds = await filterStore.roleIds(db, []);
          const fromIndex = await searchIndex.read(({ index, countedUpTo }) => ({ countedUpTo, ...index.search(compiled, roleIds, 0, 100) }));
          assert.ok(fromIndex, 'the index is built');
          const params = new SqlParams();
          const where = filterConditions(compiled, params, { countedUpTo: fromIndex.countedUpTo });
          const rows = await db.query<{ id: string }>(`SELECT e.id FROM events e WHERE ${where.join(' AND ')}`, params.values);
          assert.ok(rows.length > 0, `${scope} ${ids}: the SQL face finds nothing`);
          assert.deepEqual(fromIndex.newest.map((m) => m.id).sort(), rows.map((r) => r.id).sort(), `${scope} ${ids}`);
        }
      }
    } finally {
      jobs.start();
    }
    await server.ops.post('/drain');
  });
});
