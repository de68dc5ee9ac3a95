// The search index in memory: what the filter's SQL face (filters/filter-sql.ts) reads of each
// live event, held in typed arrays and posting lists, so a search counts its matches and finds
// its newest ones by visiting only the postings its filter names, never the database's rows.
//
// Events are numbered densely as they are added. A changed event is given a new number and
// its old number is marked dead (its stale postings are skipped by that mark), so nothing is
// ever removed from a posting list; `garbage()` tells when a rebuild would pay.
//
// It answers for one snapshot of the corpus, the one memory-index-sync.ts brought it to: every
// report visible in that snapshot is at or below the cut-off read in it, so the SQL face's
// conditions on receive-sequence values (`<= cut-off`) hold for every row held here.
//
// Beside it: role values in columns (role-columns.ts), live events tallied by day
// (day-tallies.ts), a search's count and page (search-tally.ts) and the memory it works in
// (search-scratch.ts).
import { DAY_MS } from '../../../platform/clock.js';
import type { CompiledFilter } from '../../filters/filter.js';
import type { EventOrder } from '../../filters/filter.store.js';
import { SOURCES_CAP } from './day-counts.js';
import { DayTallies, dayOfUs, EVERY_TYPE } from './day-tallies.js';
import { FirstReportSpans } from './first-report-spans.js';
import { IdTable, type IdTableParts } from './id-table.js';
import type { IndexedEvent } from './indexed-event.js';
import { PostingLists, type PostingListsParts } from './posting-lists.js';
import { findValues, NO_UNIT, RoleColumns, type RoleColumnsParts, type ValueCodes } from './role-columns.js';
import { SearchScratch } from './search-scratch.js';
import { type Condition, Foremost, type IndexedMatch, NO_TYPE, Tally, tallyByDays, tallyConditions } from './search-tally.js';
import { resized } from './typed-arrays.js';

/** An index's parts, as memory-index-file.ts saves and loads them. */
export interface MemoryIndexParts {
  types: Uint32Array;
  firstReportUs: Float64Array;
  sources: Uint32Array;
  articleSources: Uint32Array;
  structuredSources: Uint32Array;
  independent: Uint32Array;
  articleIndependent: Uint32Array;
  ids: IdTableParts;
  live: number;
  entityCodes: IdTableParts;
  outletCodes: IdTableParts;
  interned: [string, number][];
  mentioned: PostingListsParts;
  participants: PostingListsParts;
  outlets: PostingListsParts;
  roles: RoleColumnsParts;
}

const INITIAL_CAPACITY = 1024;

export class MemoryIndex {
  /** The per-number arrays' length (the numbers they have room for). */
  private get capacity(): number {
    return this.types.length;
  }
  /** Per number: the event's type (interned), NO_TYPE once the number is dead. */
  private types = new Uint32Array(INITIAL_CAPACITY);
  private firstReportUs = new Float64Array(INITIAL_CAPACITY);
  private sources = new Uint32Array(INITIAL_CAPACITY);
  private articleSources = new Uint32Array(INITIAL_CAPACITY);
  private structuredSources = new Uint32Array(INITIAL_CAPACITY);
  /** Independent sources, over all reports and over articles (a structured report is a copy group of its own: structuredSources). */
  private independent = new Uint32Array(INITIAL_CAPACITY);
  private articleIndependent = new Uint32Array(INITIAL_CAPACITY);
  /** Where a search's window starts among the numbers (`firstInWindow`), and which spans of them reach it. */
  private spans = new FirstReportSpans(INITIAL_CAPACITY);
  /** Event ids by number; an id's latest number is its live one, unless marked dead. */
  private ids = new IdTable();
  private live = 0;

  /** Entities and outlets by code (their ids' numbers), the keys of the posting lists. */
  private entityCodes = new IdTable();
  private outletCodes = new IdTable();
  /** Event types and units, few: codes by value. */
  private interned = new Map<string, number>();
  private mentioned = new PostingLists();
  private participants = new PostingLists();
  private outlets = new PostingLists();
  private roles = RoleColumns.empty();
  /** Live events by type, day and sources, and each day's numbers: what a search with no condition reads. */
  private dayTallies = new DayTallies();

  private scratch = new SearchScratch(INITIAL_CAPACITY);
  /** What the role columns' value tests name, as this index's codes. */
  private readonly valueCodes: ValueCodes = {
    unit: (unit) => this.interned.get(unit),
    entity: (entityId) => this.entityCodes.find(entityId),
  };

  /** An index from its parts (memory-index-file.ts). */
  static fromParts(parts: MemoryIndexParts): MemoryIndex {
    const index = new MemoryIndex();
    const { types, firstReportUs, sources, articleSources, structuredSources, independent, articleIndependent, live } = parts;
    Object.assign(index, { types, firstReportUs, sources, articleSources, structuredSources, independent, articleIndependent, live });
    index.ids = IdTable.fromParts(parts.ids);
    index.entityCodes = IdTable.fromParts(parts.entityCodes);
    index.outletCodes = IdTable.fromParts(parts.outletCodes);
    index.interned = new Map(parts.interned);
    index.mentioned = PostingLists.fromParts(parts.mentioned);
    index.participants = PostingLists.fromParts(parts.participants);
    index.outlets = PostingLists.fromParts(parts.outlets);
    index.roles = RoleColumns.fromParts(parts.roles);
    index.scratch = new SearchScratch(types.length);
    index.spans = new FirstReportSpans(types.length);
    for (let n = 0; n < index.ids.count; n++) {
      index.spans.note(n, firstReportUs[n]!);
      if (types[n] !== NO_TYPE) index.dayTallies.add(n, types[n]!, firstReportUs[n]!, parts.sources[n]!);
    }
    return index;
  }

  /** Its parts, to save (they share this index's arrays: save them before it changes again). */
  parts(): MemoryIndexParts {
    const { types, firstReportUs, sources, articleSources, structuredSources, independent, articleIndependent, live } = this;
    return {
      types,
      firstReportUs,
      sources,
      articleSources,
      structuredSources,
      independent,
      articleIndependent,
      ids: this.ids.parts(),
      live,
      entityCodes: this.entityCodes.parts(),
      outletCodes: this.outletCodes.parts(),
      interned: [...this.interned],
      mentioned: this.mentioned.parts(),
      participants: this.participants.parts(),
      outlets: this.outlets.parts(),
      roles: this.roles.parts(),
    };
  }

  /** Live events held. */
  get size(): number {
    return this.live;
  }

  /** Dead numbers still held in posting lists, against live ones. */
  garbage(): number {
    return this.ids.count - this.live;
  }

  /** Sets an event to its facts now (null: it is gone, merged or deleted). */
  put(id: string, event: IndexedEvent | null): void {
    const old = this.ids.find(id);
    if (old !== -1 && this.types[old] !== NO_TYPE) {
      this.dayTallies.remove(this.types[old]!, this.firstReportUs[old]!, this.sources[old]!);
      this.types[old] = NO_TYPE;
      this.live--;
    }
    if (event === null) return;
    if (this.ids.count === this.capacity) this.grow();
    const n = this.ids.add(id);
    this.live++;
    this.types[n] = this.intern(event.typeId);
    this.firstReportUs[n] = event.firstReportUs;
    this.spans.note(n, event.firstReportUs);
    this.sources[n] = event.sources;
    this.articleSources[n] = event.articleSources;
    this.structuredSources[n] = event.structuredSources;
    this.independent[n] = event.independent;
    this.articleIndependent[n] = event.articleIndependent;
    this.dayTallies.add(n, this.types[n]!, event.firstReportUs, event.sources);
    for (const { entityId, participant } of event.entities) {
      const entity = this.entityCodes.code(entityId);
      this.mentioned.push(entity, n);
      if (participant) this.participants.push(entity, n);
    }
    for (const outlet of event.outlets) this.outlets.push(this.outletCodes.code(outlet), n);
    for (const value of event.values) {
      const column = this.roles.columnFor(value);
      column.types.add(this.types[n]!);
      column.events.push(n);
      if (column.entities) column.entities.push(this.entityCodes.code(value.entityId!));
      if (column.days) column.days.push(value.dateMs! / DAY_MS);
      if (column.amounts) column.amounts.push(value.amount!);
      if (column.units) column.units.push(value.unit === null ? NO_UNIT : this.intern(value.unit));
    }
  }

  /** Whether the index answers `filter`: every filter but REPRESENTED_ONLY, whose reports it does not hold. */
  static answers(filter: CompiledFilter): boolean {
    return filter.sourceKind !== 'REPRESENTED_ONLY';
  }

  /**
   * How many live events satisfy `filter` (MemoryIndex.answers) first reported at or after
   * `windowStartUs`, and the first `limit` of them newest first (ties by id, descending), as
   * the SQL face counts and pages them. `roleIds` are the role ids of each code name the filter names.
   */
  search(
    filter: CompiledFilter,
    roleIds: ReadonlyMap<string, readonly string[]>,
    windowStartUs: number,
    limit: number,
  ): { count: number; newest: IndexedMatch[] } {
    try {
      return this.match(filter, roleIds, windowStartUs, limit);
    } finally {
      this.scratch.release();
    }
  }

  /** MemoryIndex.search's work. */
  private match(
    filter: CompiledFilter,
    roleIds: ReadonlyMap<string, readonly string[]>,
    windowStartUs: number,
    limit: number,
  ): { count: number; newest: IndexedMatch[] } {
    const planned = this.plan(filter, roleIds, windowStartUs);
    if (planned === null) return { count: 0, newest: [] };
    const { type, from, conditions, minimums } = planned;
    const tally = new Tally(this.types, this.firstReportUs, minimums, type, windowStartUs, new Foremost(limit, this.ids, this.firstReportUs));
    // Numbers are taken newest first: they are mostly the newest events, so most offers to the
    // page's heap are turned away at its first comparison.
    if (conditions.length === 0) {
      if (filter.sourceKind === 'ANY' && filter.minReports <= SOURCES_CAP && filter.minIndependent <= 1)
        return tallyByDays(tally, this.dayTallies, this.scratch, type, windowStartUs, filter.minReports);
      this.spans.visitInWindow(from, this.ids.count, windowStartUs, (n) => tally.take(n));
      return tally.result();
    }
    return tallyConditions(tally, conditions, this.scratch);
  }

  /**
   * The first `limit` live events in `order` after `after` (null: from the start) that satisfy
   * `filter` (MemoryIndex.answers) now, first reported at or after `windowStartUs`: a
   * continuation's candidates. Reports only add to what an event satisfies (sources, outlets,
   * role values all grow with the receive sequence), so these hold every event the SQL face
   * finds there at an older cut-off, and the caller checks them there.
   */
  page(
    filter: CompiledFilter,
    roleIds: ReadonlyMap<string, readonly string[]>,
    windowStartUs: number,
    order: EventOrder,
    after: { firstReportUs: number; id: string } | null,
    limit: number,
  ): IndexedMatch[] {
    try {
      const planned = this.plan(filter, roleIds, windowStartUs);
      if (planned === null || limit === 0) return [];
      const { type, conditions, minimums } = planned;
      const newestFirst = order === 'newest-first';
      const top = new Foremost(limit, this.ids, this.firstReportUs, order);
      const tally = new Tally(this.types, this.firstReportUs, minimums, type, windowStartUs, top, after && this.beyond(after, newestFirst));
      if (conditions.length > 0) return tallyConditions(tally, conditions, this.scratch).newest;
      // No condition: the window's days in order from the bound's, each day's numbers offered,
      // until a whole day leaves the page full (no later day's event can enter it then).
      const firstDay = dayOfUs(newestFirst ? windowStartUs : Math.max(windowStartUs, after?.firstReportUs ?? windowStartUs));
      const lastDay = newestFirst && after ? dayOfUs(after.firstReportUs) : Number.MAX_SAFE_INTEGER;
      const minSources = filter.sourceKind === 'ANY' ? Math.max(1, Math.min(filter.minReports, SOURCES_CAP)) : 1;
      for (const day of this.dayTallies.daysBetween(type, firstDay, lastDay, minSources, newestFirst)) {
        const numbers = this.scratch.candidatesFor(this.dayTallies.lengthOn(day), 0);
        const found = this.dayTallies.copyDay(day, numbers);
        for (let j = 0; j < found; j++) tally.offer(numbers[j]!);
        if (top.full) break;
      }
      return tally.result().newest;
    } finally {
      this.scratch.release();
    }
  }

  /** Whether a number comes after `after` in report order (its first report date, then its id). */
  private beyond(after: { firstReportUs: number; id: string }, newestFirst: boolean): (n: number) => boolean {
    const { firstReportUs: us, id } = after;
    const dates = this.firstReportUs;
    // Ids tie-break only on one microsecond: their text (lower case hex) sorts as their bytes do.
    if (newestFirst) return (n) => dates[n]! < us || (dates[n] === us && this.ids.id(n) < id);
    return (n) => dates[n]! > us || (dates[n] === us && this.ids.id(n) > id);
  }

  /**
   * What a search of `filter` visits: its type's code (or EVERY_TYPE), the first number in its
   * window, its conditions and its minimums of sources; null when nothing can match.
   */
  private plan(filter: CompiledFilter, roleIds: ReadonlyMap<string, readonly string[]>, windowStartUs: number) {
    const type = filter.eventTypeId === null ? EVERY_TYPE : this.interned.get(filter.eventTypeId);
    if (type === undefined) return null; // a type no live event has
    const sourcesOf = filter.sourceKind === 'ANY' ? this.sources : filter.sourceKind === 'ARTICLES_ONLY' ? this.articleSources : this.structuredSources;
    const independentOf =
      filter.sourceKind === 'ANY' ? this.independent : filter.sourceKind === 'ARTICLES_ONLY' ? this.articleIndependent : this.structuredSources;
    const kind = filter.sourceKind === 'ANY' ? 'ANY' : filter.sourceKind === 'ARTICLES_ONLY' ? 'ARTICLE' : 'STRUCTURED';
    // Numbers before `from` are all older than the window: no condition finds them.
    const from = this.spans.firstInWindow(windowStartUs, this.ids.count);
    // Each condition writes the numbers it finds (ascending per key or column) into the
    // scratch's candidates, and answers how many. Found from one key or column, they are distinct.
    const conditions: Condition[] = [];
    if (filter.entities !== null) {
      const lists = filter.scope === 'PARTICIPANT' ? this.participants : this.mentioned;
      const entities = filter.entities;
      conditions.push({ find: () => this.findAll(lists, this.entityCodes, entities, from), distinct: entities.size === 1 });
    }
    if (filter.outlets !== null) {
      // Outlets are article sources: under USER_REPORTS_ONLY none counts.
      if (filter.sourceKind === 'USER_REPORTS_ONLY') return null;
      const outlets = filter.outlets;
      conditions.push({ find: () => this.findAll(this.outlets, this.outletCodes, outlets, from), distinct: outlets.size === 1 });
    }
    // The runs of numbers whose role values are read: those of spans not wholly older than the window.
    const runs = filter.roleFilters.length > 0 ? this.spans.runsInWindow(from, this.ids.count, windowStartUs) : [];
    for (const roleFilter of filter.roleFilters) {
      const columns = this.roles.of(roleIds.get(roleFilter.role) ?? [], type === EVERY_TYPE ? null : type);
      const find = () => {
        let found = 0;
        for (const column of columns) found = findValues(column, roleFilter.tests, kind, runs, found, this.scratch, this.valueCodes);
        return found;
      };
      conditions.push({ find, distinct: columns.length <= 1 });
    }
    // Numbers at or after `from` may still be older than the window (first-report-spans.ts):
    // those of spans wholly older are dropped before the search looks at each. (The candidates
    // are read after `find`, which may have grown them into a new array.)
    const inWindow = conditions.map(({ find, distinct }) => ({
      find: () => {
        const found = find();
        return this.spans.keepInWindow(this.scratch.candidates, found, windowStartUs);
      },
      distinct,
    }));
    const minimums = { sourcesOf, minReports: filter.minReports, independentOf, minIndependent: filter.minIndependent };
    return { type, from, conditions: inWindow, minimums };
  }

  /** Writes the numbers at or above `from` of the lists of `keys` into the scratch's candidates; answers how many. */
  private findAll(lists: PostingLists, codes: IdTable, keys: ReadonlySet<string>, from: number): number {
    let found = 0;
    for (const key of keys) {
      const code = codes.find(key);
      if (code === -1) continue;
      found = lists.copyInto(code, from, this.scratch.candidatesFor(found + lists.length(code), found), found);
    }
    return found;
  }

  private grow(): void {
    this.resize(this.capacity * 2);
  }

  /** The per-number arrays, `capacity` long. */
  private resize(capacity: number): void {
    this.types = resized(this.types, capacity);
    this.firstReportUs = resized(this.firstReportUs, capacity);
    this.sources = resized(this.sources, capacity);
    this.articleSources = resized(this.articleSources, capacity);
    this.structuredSources = resized(this.structuredSources, capacity);
    this.independent = resized(this.independent, capacity);
    this.articleIndependent = resized(this.articleIndependent, capacity);
    this.scratch.resize(capacity);
    this.spans.resize(capacity);
  }

  /**
   * Gives back the room kept for growth once a build or a load is done, or before a save: the
   * per-number arrays keep an eighth more, role columns none, posting lists are packed.
   */
  compact(): void {
    this.resize(Math.max(INITIAL_CAPACITY, Math.ceil(this.ids.count * 1.125)));
    this.ids.trim();
    this.entityCodes.trim();
    this.outletCodes.trim();
    this.mentioned = this.mentioned.packed();
    this.dayTallies.compact();
    this.participants = this.participants.packed();
    this.outlets = this.outlets.packed();
    this.roles.trim();
  }

  private intern(key: string): number {
    const known = this.interned.get(key);
    if (known !== undefined) return known;
    const code = this.interned.size;
    this.interned.set(key, code);
    return code;
  }
}
