// The search index in memory (memory-index.ts) against a plain reading of the same events, on
// more numbers than the tests through the database reach: thousands of events added mostly in
// the order of their first reports (some much older), changed and removed, so a search's
// window skips spans of numbers, posting-list blocks and role values. The same searches after
// the index is compacted, after it is saved to a file, loaded and added to again, and after a
// backfill of older events numbered after the newer ones. Its
// semantics against the SQL face are held by filter-faces.test.ts and search-counts.test.ts.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import type { CompiledFilter } from '../../../src/modules/filters/filter.js';
import { loadIndex, saveIndex } from '../../../src/modules/search/index/memory-index-file.js';
import type { IndexedEvent } from '../../../src/modules/search/index/indexed-event.js';
import { MemoryIndex } from '../../../src/modules/search/index/memory-index.js';
import { tempDir } from '../../helpers/server.js';
import { seededBelow } from '../../helpers/seeded-random.js';

const DAY_US = 86_400_000_000;
const NOW_US = Date.parse('2026-11-20T00:00:00Z') * 1000;

const ids = (n: number) => Array.from({ length: n }, () => uuidv7());
const types = ids(3);
const entities = ids(40);
const outlets = ids(12);
// An amount role per type, all under one code name, as event types share role code names.
const amountRoles = types.map(() => uuidv7());
const roleIds = new Map([['amount', amountRoles]]);

describe('search index in memory', () => {
  it('when thousands of events are added, changed and removed, then every search counts and pages what a plain reading does, compacted, and saved, loaded and added to', async () => {
    const random = seededBelow(17);
    const live = new Map<string, IndexedEvent>();
    /** The first report date of each number the index gave, in order (dead ones too). */
    const numbered: number[] = [];
    const index = new MemoryIndex();
    let added = 0;
    /** A new version of event `id`, first reported about `at` (now and then much earlier). */
    const eventAt = (id: string, at: number): IndexedEvent => {
      const type = random(3);
      const reports = 1 + random(4);
      const independent = 1 + random(reports); // wire copies counted once: never more than its sources
      return {
        id,
        typeId: types[type]!,
        firstReportUs: random(10) === 0 ? at - random(200) * DAY_US : at + random(DAY_US),
        sources: reports,
        articleSources: reports,
        structuredSources: 0,
        independent,
        articleIndependent: independent,
        entities: [...new Set([entities[random(entities.length)]!, entities[random(8)]!])].map((entityId) => ({ entityId, participant: random(2) === 0 })),
        outlets: [...new Set(Array.from({ length: reports }, () => outlets[random(outlets.length)]!))],
        values: Array.from({ length: random(3) }, () => ({
          roleId: amountRoles[type]!,
          structured: false,
          entityId: null,
          dateMs: null,
          amount: random(1000),
          unit: '',
        })),
      };
    };
    /**
     * `count` events into `held`, each first reported a little after the one before; a tenth
     * of the time an earlier one changes or goes.
     */
    const addEvents = (held: MemoryIndex, count: number) => {
      const put = (id: string, event: IndexedEvent | null) => {
        held.put(id, event);
        if (event) {
          numbered.push(event.firstReportUs);
          live.set(id, event);
        } else live.delete(id);
      };
      for (let i = 0; i < count; i++, added++) {
        const at = NOW_US - 400 * DAY_US + added * (DAY_US / 12);
        const id = uuidv7();
        put(id, eventAt(id, at));
        if (random(10) === 0) {
          const known = [...live.keys()];
          const changed = known[random(known.length)]!;
          put(changed, random(3) === 0 ? null : eventAt(changed, at));
        }
      }
    };
    addEvents(index, 4_000);

    /** The searches: a filter, a window and a page size, drawn at random. */
    const searches = Array.from({ length: 150 }, () => {
      const filter: CompiledFilter = {
        eventTypeId: random(3) === 0 ? null : types[random(3)]!,
        entities: random(2) === 0 ? new Set([entities[random(entities.length)]!, entities[random(8)]!]) : null,
        scope: random(2) === 0 ? 'MENTIONED' : 'PARTICIPANT',
        outlets: random(3) === 0 ? new Set([outlets[random(outlets.length)]!]) : null,
        sourceKind: 'ANY',
        represented: null,
        minReports: 1 + random(3),
        minIndependent: random(3) === 0 ? 1 + random(3) : 1,
        // An amount of at least some value; a third of them also at most some value (a second test over the positions the first kept).
        roleFilters:
          random(3) === 0
            ? [
                {
                  role: 'amount',
                  tests: [
                    { kind: 'amount', min: random(1000), max: Infinity, unit: null },
                    ...(random(3) === 0 ? [{ kind: 'amount' as const, min: -Infinity, max: 300 + random(700), unit: null }] : []),
                  ],
                },
              ]
            : [],
      };
      // A third of the windows start exactly at the latest first report among the numbers up
      // to the end of some span of a power of two (the index skips by such spans): that event
      // is in the window.
      const spanEnd = Math.min(numbered.length, (1 << random(9)) * (1 + random(64))) - 1;
      const windowStartUs = random(3) === 0 ? Math.max(...numbered.slice(0, spanEnd + 1)) : NOW_US - random(420) * DAY_US - random(DAY_US);
      return { filter, windowStartUs, limit: 1 + random(6) };
    });
    const expected = (filter: CompiledFilter, windowStartUs: number, limit: number) => {
      const matches = [...live.values()].filter(
        (e) =>
          (filter.eventTypeId === null || e.typeId === filter.eventTypeId) &&
          e.firstReportUs >= windowStartUs &&
          e.sources >= filter.minReports &&
          e.independent >= filter.minIndependent &&
          (filter.entities === null || e.entities.some((x) => filter.entities!.has(x.entityId) && (filter.scope === 'MENTIONED' || x.participant))) &&
          (filter.outlets === null || e.outlets.some((o) => filter.outlets!.has(o))) &&
          filter.roleFilters.every((rf) => e.values.some((v) => rf.tests.every((t) => t.kind === 'amount' && v.amount! >= t.min && v.amount! <= t.max))),
      );
      matches.sort((a, b) => b.firstReportUs - a.firstReportUs || (a.id < b.id ? 1 : -1));
      return { count: matches.length, newest: matches.slice(0, limit).map((e) => ({ id: e.id, firstReportUs: e.firstReportUs })) };
    };
    const holdsEverySearch = (held: MemoryIndex, stage: string) => {
      let counted = 0;
      for (const [i, { filter, windowStartUs, limit }] of searches.entries()) {
        const want = expected(filter, windowStartUs, limit);
        assert.deepEqual(held.search(filter, roleIds, windowStartUs, limit), want, `${stage}: search ${i}`);
        if (want.count > 0) counted++;
      }
      assert.ok(counted >= 75, `${stage}: only ${counted} of 150 searches counted something`);
    };

    holdsEverySearch(index, 'built');
    index.compact();
    holdsEverySearch(index, 'compacted');
    const file = path.join(tempDir('memory-index-'), 'index.v8');
    await saveIndex(file, { epoch: uuidv7(), position: { xmin: 1n, seen: [] }, index: index.parts() });
    const loaded = MemoryIndex.fromParts((await loadIndex(file))!.index);
    holdsEverySearch(loaded, 'loaded');
    // Grown past what the load sized its arrays for.
    addEvents(loaded, 2_000);
    holdsEverySearch(loaded, 'loaded and added to');
    // Then a backfill: events of the year before, oldest first, numbered after every newer one
    // (as a demo corpus loaded newest first, or an archive imported after live news). Spans of
    // them wholly older than a window are passed over (first-report-spans.ts), the others read.
    const backfilled = numbered.length;
    for (let i = 0; i < 3_000; i++) {
      const id = uuidv7();
      const event = eventAt(id, NOW_US - 420 * DAY_US + i * (DAY_US / 8));
      loaded.put(id, event);
      numbered.push(event.firstReportUs);
      live.set(id, event);
    }
    // Windows starting on a backfilled event's own first report, and at the start of its day.
    for (let i = 0; i < 60; i++) {
      const at = numbered[backfilled + random(3_000)]!;
      searches[i]!.windowStartUs = random(2) === 0 ? at : at - (at % DAY_US);
    }
    holdsEverySearch(loaded, 'backfilled');
  });

  it('when a search has no condition but a type and min_reports, then its day tallies count and page as a plain reading does, at the edges of days, sources and limits', () => {
    const random = seededBelow(29);
    const index = new MemoryIndex();
    const live = new Map<string, IndexedEvent>();
    const put = (id: string, event: IndexedEvent | null) => {
      index.put(id, event);
      if (event) live.set(id, event);
      else live.delete(id);
    };
    const midnight = NOW_US - 3 * DAY_US;
    const eventOf = (id: string, typeId: string, firstReportUs: number, sources: number): IndexedEvent => ({
      id,
      typeId,
      firstReportUs,
      sources,
      articleSources: sources,
      structuredSources: 0,
      independent: sources,
      articleIndependent: sources,
      entities: [],
      outlets: [],
      values: [],
    });
    // Ties at one midnight microsecond (sources past the cap of 8 among them), around it, and spread over 20 days.
    for (let i = 0; i < 300; i++) {
      const at = i < 40 ? midnight : i < 80 ? midnight + (random(3) - 1) : NOW_US - random(20 * DAY_US);
      const id = uuidv7();
      put(id, eventOf(id, types[random(2)]!, at, 1 + random(12)));
    }
    // A type whose only events are merged away, and an event dated far ahead that is changed, then deleted.
    const gone = [uuidv7(), uuidv7()];
    for (const id of gone) put(id, eventOf(id, types[2]!, midnight, 3));
    for (const id of gone) put(id, null);
    const ahead = uuidv7();
    put(ahead, eventOf(ahead, types[0]!, Date.parse('9999-12-31T00:00:00Z') * 1000, 2));
    const searches: { type: string | null; minReports: number; windowStartUs: number; limit: number }[] = [];
    for (const type of [null, ...types])
      for (const minReports of [1, 2, 8])
        for (const windowStartUs of [midnight - 1, midnight, midnight + 1, NOW_US - 25 * DAY_US, NOW_US - DAY_US / 2])
          for (const limit of [0, 1, 7]) searches.push({ type, minReports, windowStartUs, limit });
    const holdsEverySearch = (stage: string) => {
      for (const { type, minReports, windowStartUs, limit } of searches) {
        const matches = [...live.values()].filter((e) => (type === null || e.typeId === type) && e.firstReportUs >= windowStartUs && e.sources >= minReports);
        matches.sort((a, b) => b.firstReportUs - a.firstReportUs || (a.id < b.id ? 1 : -1));
        const want = { count: matches.length, newest: matches.slice(0, limit).map((e) => ({ id: e.id, firstReportUs: e.firstReportUs })) };
        const filter: CompiledFilter = {
          eventTypeId: type,
          entities: null,
          scope: 'MENTIONED',
          outlets: null,
          sourceKind: 'ANY',
          represented: null,
          minReports,
          minIndependent: 1,
          roleFilters: [],
        };
        assert.deepEqual(index.search(filter, roleIds, windowStartUs, limit), want, `${stage}: ${JSON.stringify({ type, minReports, windowStartUs, limit })}`);
      }
    };
    holdsEverySearch('far ahead');
    put(ahead, eventOf(ahead, types[0]!, midnight, 9));
    holdsEverySearch('moved back');
    put(ahead, null);
    holdsEverySearch('deleted');
  });
});
