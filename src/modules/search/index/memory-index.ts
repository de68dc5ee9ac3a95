// The search index in memory: what the filter's SQL face (filters/filter-sql.ts) reads of each live
// event, held in typed arrays and posting lists, so a search counts its matches and finds its
// newest ones by visiting only the postings its filter names, never the database's rows.
//
// Events are numbered densely as they are added. A changed event is given a new number and
// its old number is marked dead (its stale postings are skipped by that mark), so nothing is
// ever removed from a posting list; `garbage()` tells when a rebuild would pay.
//
// It answers for one snapshot of the corpus, the one memory-index-sync.ts brought it to: every
// report visible in that snapshot is at or below the cut-off read in it, so the SQL face's
// conditions on receive-sequence values (`<= cut-off`) hold for every row held here.
import { SOURCES_CAP } from './day-counts.js';
import { DayTallies, dayOfUs, EVERY_TYPE } from './day-tallies.js';
import type { CompiledFilter, RoleValueTest } from '../../filters/filter.js';
import { IdTable, type IdTableParts } from './id-table.js';
import { PostingLists, type PostingListsParts } from './posting-lists.js';
import { lowerBound, resized, type Typed } from './typed-arrays.js';
import { DAY_MS } from '../../../platform/clock.js';

/** One live event's facts, as memory-index.store.ts reads them. */
export interface IndexedEvent {
  id: string;
  typeId: string;
  /** First report date, microseconds since the epoch (PostgreSQL's precision: ties order as it does). */
  firstReportUs: number;
  /** cardinality(source_seqs): its distinct sources. */
  sources: number;
  articleSources: number;
  structuredSources: number;
  /** Entities by canonical id; `participant` as event_entities holds it. */
  entities: { entityId: string; participant: boolean }[];
  /** The outlets among its sources (source kind ARTICLE). */
  outlets: string[];
  values: IndexedRoleValue[];
}

export interface IndexedRoleValue {
  roleId: string;
  structured: boolean;
  entityId: string | null;
  /** A DATE value as 00:00 UTC of its day, in ms. */
  dateMs: number | null;
  amount: number | null;
  /** Folded, as event_role_values stores it ('' for none written by ingest; null never equals a unit). */
  unit: string | null;
}

/** A match in report order, as the SQL face's page answers it. */
export interface IndexedMatch {
  id: string;
  firstReportUs: number;
}

/** A column's values and how many of them are in use, as memory-index-file.ts saves them. */
interface ColumnParts<T> {
  items: T;
  length: number;
}

/** A growable column of numbers in a typed array of its kind. */
class Column<T extends Typed> {
  length = 0;
  constructor(public items: T) {}
  push(x: number): void {
    if (this.length === this.items.length) this.items = resized(this.items, Math.max(16, this.items.length * 2));
    this.items[this.length++] = x;
  }
  /** Gives back the room kept for growth (a built index may take no more values for long). */
  trim(): void {
    if (this.items.length !== this.length) this.items = resized(this.items, this.length);
  }
  parts(): ColumnParts<T> {
    this.trim();
    return { items: this.items, length: this.length };
  }
}

/**
 * The values of one role, from one kind of report (articles or structured), that carry the
 * same members (entity, date, amount): only those members' columns exist. A test on a member
 * a column lacks fails every value in it, as the SQL face's `IS NOT NULL` does. A date is a
 * day (DATE values are whole days), in 32 bits.
 */
class RoleColumn {
  readonly events = new Column(new Uint32Array(16));
  readonly entities: Column<Uint32Array> | null; // entity codes
  readonly days: Column<Int32Array> | null; // days since 1970-01-01
  readonly amounts: Column<Float64Array> | null;
  readonly units: Column<Uint32Array> | null; // interned, NO_UNIT for none
  /**
   * The types (interned) of the events it has held: a role code name shared by several types
   * has a column per type's role, and a search of one type skips the others' columns.
   */
  types = new Set<number>();
  constructor(
    readonly structured: boolean,
    has: { entity: boolean; date: boolean; amount: boolean },
  ) {
    this.entities = has.entity ? new Column(new Uint32Array(16)) : null;
    this.days = has.date ? new Column(new Int32Array(16)) : null;
    this.amounts = has.amount ? new Column(new Float64Array(16)) : null;
    this.units = has.amount ? new Column(new Uint32Array(16)) : null;
  }

  static fromParts(parts: RoleColumnParts): RoleColumn {
    const column = new RoleColumn(parts.structured, { entity: parts.entities !== null, date: parts.days !== null, amount: parts.amounts !== null });
    Object.assign(column.events, parts.events);
    if (column.entities) Object.assign(column.entities, parts.entities);
    if (column.days) Object.assign(column.days, parts.days);
    if (column.amounts) Object.assign(column.amounts, parts.amounts);
    if (column.units) Object.assign(column.units, parts.units);
    column.types = new Set(parts.types);
    return column;
  }

  trim(): void {
    for (const column of [this.events, this.entities, this.days, this.amounts, this.units]) column?.trim();
  }

  parts(): RoleColumnParts {
    return {
      structured: this.structured,
      events: this.events.parts(),
      entities: this.entities?.parts() ?? null,
      days: this.days?.parts() ?? null,
      amounts: this.amounts?.parts() ?? null,
      units: this.units?.parts() ?? null,
      types: [...this.types],
    };
  }
}

interface RoleColumnParts {
  structured: boolean;
  events: ColumnParts<Uint32Array>;
  entities: ColumnParts<Uint32Array> | null;
  days: ColumnParts<Int32Array> | null;
  amounts: ColumnParts<Float64Array> | null;
  units: ColumnParts<Uint32Array> | null;
  types: number[];
}

/** An index's parts, as memory-index-file.ts saves and loads them. */
export interface MemoryIndexParts {
  types: Uint32Array;
  firstReportUs: Float64Array;
  sources: Uint32Array;
  articleSources: Uint32Array;
  structuredSources: Uint32Array;
  ids: IdTableParts;
  live: number;
  entityCodes: IdTableParts;
  outletCodes: IdTableParts;
  interned: [string, number][];
  mentioned: PostingListsParts;
  participants: PostingListsParts;
  outlets: PostingListsParts;
  roles: { roleId: string; columns: { key: number; column: RoleColumnParts }[] }[];
}

const INITIAL_CAPACITY = 1024;
/** Numbers per span of `latestUpTo`, as a power of two (the index keeps one float per span). */
const SPAN_BITS = 4;
/** The spans of `capacity` numbers. */
const spansFor = (capacity: number) => (capacity + (1 << SPAN_BITS) - 1) >> SPAN_BITS;
const NO_TYPE = 0xffffffff;
const NO_UNIT = 0xffffffff;
/** An amount test's unit when it names none: any value's unit passes. */
const ANY_UNIT = -1;
/** The scratch arrays' length kept between searches (8 MB each). */
const SCRATCH_KEPT = 1 << 21;

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
  /**
   * Per span of 2^SPAN_BITS numbers: the latest first report date of any number up to the span's
   * end (dead numbers too). Numbers are given in the order events are added, close to the order
   * of their first reports, so a search's window start is passed at some span, and every
   * number before it is older than the window: searches start there (`firstInWindow`).
   */
  private latestUpTo = new Float64Array(spansFor(INITIAL_CAPACITY));
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
  /** Per role id, its columns by members and report kind (columnKey). */
  private roles = new Map<string, Map<number, RoleColumn>>();
  /** Live events by type, day and sources, and each day's numbers: what a search with no condition reads. */
  private dayTallies = new DayTallies();

  /** Per number: the query (generation) that last reached it, and how many of its conditions it passed. */
  private reachedBy = new Uint32Array(INITIAL_CAPACITY);
  private passed = new Uint8Array(INITIAL_CAPACITY);
  private generation = 0;
  /** Scratch for a search: the numbers a condition found, and the positions in a role column whose values passed the tests so far. */
  private candidates = new Uint32Array(0);
  private valuePositions = new Uint32Array(0);

  /** An index from its parts (memory-index-file.ts). */
  static fromParts(parts: MemoryIndexParts): MemoryIndex {
    const index = new MemoryIndex();
    const { types, firstReportUs, sources, articleSources, structuredSources, live } = parts;
    Object.assign(index, { types, firstReportUs, sources, articleSources, structuredSources, live });
    index.ids = IdTable.fromParts(parts.ids);
    index.entityCodes = IdTable.fromParts(parts.entityCodes);
    index.outletCodes = IdTable.fromParts(parts.outletCodes);
    index.interned = new Map(parts.interned);
    index.mentioned = PostingLists.fromParts(parts.mentioned);
    index.participants = PostingLists.fromParts(parts.participants);
    index.outlets = PostingLists.fromParts(parts.outlets);
    index.roles = new Map(parts.roles.map(({ roleId, columns }) => [roleId, new Map(columns.map(({ key, column }) => [key, RoleColumn.fromParts(column)]))]));
    index.reachedBy = new Uint32Array(types.length);
    index.passed = new Uint8Array(types.length);
    index.latestUpTo = new Float64Array(spansFor(types.length));
    for (let n = 0; n < index.ids.count; n++) {
      index.noteFirstReport(n);
      if (types[n] !== NO_TYPE) index.dayTallies.add(n, types[n]!, firstReportUs[n]!, parts.sources[n]!);
    }
    return index;
  }

  /** Its parts, to save (they share this index's arrays: save them before it changes again). */
  parts(): MemoryIndexParts {
    const { types, firstReportUs, sources, articleSources, structuredSources, live } = this;
    return {
      types,
      firstReportUs,
      sources,
      articleSources,
      structuredSources,
      ids: this.ids.parts(),
      live,
      entityCodes: this.entityCodes.parts(),
      outletCodes: this.outletCodes.parts(),
      interned: [...this.interned],
      mentioned: this.mentioned.parts(),
      participants: this.participants.parts(),
      outlets: this.outlets.parts(),
      roles: [...this.roles].map(([roleId, columns]) => ({ roleId, columns: [...columns].map(([key, column]) => ({ key, column: column.parts() })) })),
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
    this.noteFirstReport(n);
    this.sources[n] = event.sources;
    this.articleSources[n] = event.articleSources;
    this.structuredSources[n] = event.structuredSources;
    this.dayTallies.add(n, this.types[n]!, event.firstReportUs, event.sources);
    for (const { entityId, participant } of event.entities) {
      const entity = this.entityCodes.code(entityId);
      this.mentioned.push(entity, n);
      if (participant) this.participants.push(entity, n);
    }
    for (const outlet of event.outlets) this.outlets.push(this.outletCodes.code(outlet), n);
    for (const value of event.values) {
      const column = this.column(value);
      column.types.add(this.types[n]!);
      column.events.push(n);
      if (column.entities) column.entities.push(this.entityCodes.code(value.entityId!));
      if (column.days) column.days.push(value.dateMs! / DAY_MS);
      if (column.amounts) column.amounts.push(value.amount!);
      if (column.units) column.units.push(value.unit === null ? NO_UNIT : this.intern(value.unit));
    }
  }

  /** The column a value goes in, made on first use. */
  private column(value: IndexedRoleValue): RoleColumn {
    const has = { entity: value.entityId !== null, date: value.dateMs !== null, amount: value.amount !== null };
    const key = (value.structured ? 1 : 0) | (has.entity ? 2 : 0) | (has.date ? 4 : 0) | (has.amount ? 8 : 0);
    const columns = this.roles.get(value.roleId) ?? new Map<number, RoleColumn>();
    this.roles.set(value.roleId, columns);
    const column = columns.get(key) ?? new RoleColumn(value.structured, has);
    columns.set(key, column);
    return column;
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
      this.releaseScratch();
    }
  }

  /** MemoryIndex.search's work. */
  private match(
    filter: CompiledFilter,
    roleIds: ReadonlyMap<string, readonly string[]>,
    windowStartUs: number,
    limit: number,
  ): { count: number; newest: IndexedMatch[] } {
    const type = filter.eventTypeId === null ? null : this.interned.get(filter.eventTypeId);
    if (type === undefined) return { count: 0, newest: [] }; // a type no live event has
    const sourcesOf = filter.sourceKind === 'ANY' ? this.sources : filter.sourceKind === 'ARTICLES_ONLY' ? this.articleSources : this.structuredSources;
    const kind = filter.sourceKind === 'ANY' ? 'ANY' : filter.sourceKind === 'ARTICLES_ONLY' ? 'ARTICLE' : 'STRUCTURED';
    // Numbers before `from` are all older than the window: no condition finds them.
    const from = this.firstInWindow(windowStartUs);
    // Each condition writes the numbers it finds (ascending per key or column) into
    // `candidates`, and answers how many. Found from one key or column, they are distinct.
    const conditions: Condition[] = [];
    if (filter.entities !== null) {
      const lists = filter.scope === 'PARTICIPANT' ? this.participants : this.mentioned;
      const entities = filter.entities;
      conditions.push({ find: () => this.findAll(lists, this.entityCodes, entities, from), distinct: entities.size === 1 });
    }
    if (filter.outlets !== null) {
      // Outlets are article sources: under USER_REPORTS_ONLY none counts.
      if (filter.sourceKind === 'USER_REPORTS_ONLY') return { count: 0, newest: [] };
      const outlets = filter.outlets;
      conditions.push({ find: () => this.findAll(this.outlets, this.outletCodes, outlets, from), distinct: outlets.size === 1 });
    }
    for (const roleFilter of filter.roleFilters) {
      const columns = (roleIds.get(roleFilter.role) ?? [])
        .flatMap((id) => [...(this.roles.get(id)?.values() ?? [])])
        .filter((column) => type === null || column.types.has(type));
      const find = () => {
        let found = 0;
        for (const column of columns) found = this.findValues(column, roleFilter.tests, kind, from, found);
        return found;
      };
      conditions.push({ find, distinct: columns.length <= 1 });
    }

    const tally = new Tally(
      this.types,
      this.firstReportUs,
      sourcesOf,
      type ?? EVERY_TYPE,
      windowStartUs,
      filter.minReports,
      new Newest(limit, this.ids, this.firstReportUs),
    );
    // Numbers are taken newest first: they are mostly the newest events, so most offers to the
    // page's heap are turned away at its first comparison.
    if (conditions.length === 0) {
      if (filter.sourceKind === 'ANY' && filter.minReports <= SOURCES_CAP) return this.byDays(tally, type ?? EVERY_TYPE, windowStartUs, filter.minReports);
      for (let n = this.ids.count - 1; n >= from; n--) tally.take(n);
      return tally.result();
    }
    if (conditions.length === 1 && conditions[0]!.distinct) {
      // One condition's distinct numbers, ascending: nothing to intersect.
      const found = conditions[0]!.find();
      const candidates = this.candidates;
      for (let j = found - 1; j >= 0; j--) tally.take(candidates[j]!);
      return tally.result();
    }
    // Each condition passes on the events that passed all before it; the last one counts them.
    const generation = this.nextGeneration();
    const { reachedBy, passed } = this;
    for (let i = 0; i < conditions.length; i++) {
      const found = conditions[i]!.find();
      const candidates = this.candidates;
      const last = i === conditions.length - 1;
      for (let j = found - 1; j >= 0; j--) {
        const n = candidates[j]!;
        if (i === 0) {
          if (reachedBy[n] === generation) continue;
          reachedBy[n] = generation;
        } else if (reachedBy[n] !== generation || passed[n] !== i) continue;
        passed[n] = i + 1;
        if (last) tally.take(n);
      }
    }
    return tally.result();
  }

  /**
   * A search with no condition but its type (or EVERY_TYPE) and `minReports` (≤ SOURCES_CAP),
   * all sources: its window's whole days counted from the day tallies, its newest events
   * found day by day from the newest (days without one of its events skipped), and only its
   * first, partial day's numbers visited to count. Once a whole day leaves the page full, no
   * older day's event can enter it; the partial day comes last for that reason.
   */
  private byDays(tally: Tally, type: number, windowStartUs: number, minReports: number): { count: number; newest: IndexedMatch[] } {
    const firstDay = dayOfUs(windowStartUs);
    for (const day of this.dayTallies.daysDown(type, firstDay + 1, minReports)) {
      if (tally.pageFull) break;
      const numbers = this.numbersOn(day);
      for (let j = numbers.length - 1; j >= 0; j--) tally.offer(numbers[j]!);
    }
    const numbers = this.numbersOn(firstDay);
    for (let j = numbers.length - 1; j >= 0; j--) tally.take(numbers[j]!);
    const { count, newest } = tally.result();
    return { count: count + this.dayTallies.countFrom(type, firstDay + 1, minReports), newest };
  }

  /** The numbers first reported on `day` (dead ones too), ascending, in the scratch array. */
  private numbersOn(day: number): Uint32Array {
    const candidates = this.candidatesFor(this.dayTallies.lengthOn(day), 0);
    return candidates.subarray(0, this.dayTallies.copyDay(day, candidates));
  }

  /**
   * Gives back scratch arrays that a search of many postings grew past SCRATCH_KEPT numbers
   * (an entity list of popular entities can name tens of millions at ten million events):
   * between searches a process holds no more than that.
   */
  private releaseScratch(): void {
    if (this.candidates.length > SCRATCH_KEPT) this.candidates = new Uint32Array(0);
    if (this.valuePositions.length > SCRATCH_KEPT) this.valuePositions = new Uint32Array(0);
  }

  /** `candidates`, with room for `needed` numbers, the first `keep` of those it holds kept. */
  private candidatesFor(needed: number, keep: number): Uint32Array {
    if (this.candidates.length < needed) {
      const grown = new Uint32Array(Math.max(needed, this.candidates.length * 2));
      grown.set(this.candidates.subarray(0, keep));
      this.candidates = grown;
    }
    return this.candidates;
  }

  /** Writes the numbers at or above `from` of the lists of `keys` into `candidates`; answers how many. */
  private findAll(lists: PostingLists, codes: IdTable, keys: ReadonlySet<string>, from: number): number {
    let found = 0;
    for (const key of keys) {
      const code = codes.find(key);
      if (code === -1) continue;
      found = lists.copyInto(code, from, this.candidatesFor(found + lists.length(code), found), found);
    }
    return found;
  }

  /**
   * Writes the numbers of the events whose values of `column` pass every test (one value row
   * holds them all, as the SQL face's `v`) into `candidates` from `found`; answers where they
   * end. The tests run one after another, each over the positions the ones before it kept
   * (`valuePositions`), each in a loop of its own over one typed array: loops that stay
   * compiled whatever a search's tests are, where one loop testing every kind of test was
   * compiled and thrown away again as searches came (tens of ms each time).
   */
  private findValues(column: RoleColumn, tests: readonly RoleValueTest[], kind: 'ANY' | 'ARTICLE' | 'STRUCTURED', from: number, found: number): number {
    if (kind !== 'ANY' && column.structured !== (kind === 'STRUCTURED')) return found;
    const length = column.events.length;
    const events = column.events.items;
    // Values are added in number order: those of numbers before `from` come first.
    const first = lowerBound(events, 0, length, from);
    if (this.valuePositions.length < length - first) this.valuePositions = new Uint32Array(Math.max(length - first, this.valuePositions.length * 2));
    const positions = this.valuePositions;
    // The first test reads the values from `first` on, the others the positions kept before them.
    let kept = length - first;
    let range = first;
    for (let t = 0; t < tests.length && kept > 0; t++, range = NONE) {
      const test = tests[t]!;
      // A test on a member the column lacks fails every value in it.
      if (test.kind === 'amount') {
        if (!column.amounts || !column.units) return found;
        // A unit no value has: none passes (a value without one never equals a unit).
        const unit = test.unit === null ? ANY_UNIT : this.interned.get(test.unit);
        if (unit === undefined) return found;
        kept = keepAmounts(positions, kept, range, column.amounts.items, column.units.items, test.min, test.max, unit);
      } else if (test.kind === 'date') {
        if (!column.days) return found;
        kept = keepDays(positions, kept, range, column.days.items, test.afterMs, test.beforeMs);
      } else {
        if (!column.entities) return found;
        const codes = new Set<number>();
        for (const entity of test.entities) {
          const code = this.entityCodes.find(entity);
          if (code !== -1) codes.add(code);
        }
        kept = keepEntities(positions, kept, range, column.entities.items, codes);
      }
    }
    // An event's values are side by side in a column: each event is written once.
    const candidates = this.candidatesFor(found + kept, found);
    for (let i = 0, previous = -1; i < kept; i++) {
      const n = events[range === NONE ? positions[i]! : range + i]!;
      if (n !== previous) candidates[found++] = n;
      previous = n;
    }
    return found;
  }

  /** Notes number `n`'s first report date in its span's latest (numbers are noted in order). */
  private noteFirstReport(n: number): void {
    const span = n >> SPAN_BITS;
    const before = (n & ((1 << SPAN_BITS) - 1)) === 0 ? (span > 0 ? this.latestUpTo[span - 1]! : 0) : this.latestUpTo[span]!;
    this.latestUpTo[span] = Math.max(before, this.firstReportUs[n]!);
  }

  /** The first number of the first span holding a first report at or after `windowStartUs`: every number before it is older. */
  private firstInWindow(windowStartUs: number): number {
    return lowerBound(this.latestUpTo, 0, spansFor(this.ids.count), windowStartUs) << SPAN_BITS;
  }

  private nextGeneration(): number {
    if (this.generation === 0xffffffff) {
      this.reachedBy.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
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
    this.reachedBy = resized(this.reachedBy, capacity);
    this.passed = resized(this.passed, capacity);
    this.latestUpTo = resized(this.latestUpTo, spansFor(capacity));
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
    for (const columns of this.roles.values()) for (const column of columns.values()) column.trim();
  }

  private intern(key: string): number {
    const known = this.interned.get(key);
    if (known !== undefined) return known;
    const code = this.interned.size;
    this.interned.set(key, code);
    return code;
  }
}

/** In the keep functions: the positions are those held in `positions`, not a range. */
const NONE = -1;

/**
 * Keeps, in `positions`, those of `count` positions whose amount is within [min, max] (and of
 * `unit`, unless ANY_UNIT); answers how many. The positions are `positions`' first `count`, or
 * the `count` from `range` on (unless NONE), as in the two functions below.
 */
function keepAmounts(
  positions: Uint32Array,
  count: number,
  range: number,
  amounts: Float64Array,
  units: Uint32Array,
  min: number,
  max: number,
  unit: number,
): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const at = range === NONE ? positions[i]! : range + i;
    const amount = amounts[at]!;
    if (amount >= min && amount <= max && (unit === ANY_UNIT || units[at] === unit)) positions[kept++] = at;
  }
  return kept;
}

/** Keeps those of `count` positions whose day (a DATE, 00:00 UTC) is after `afterMs` and before `beforeMs`; answers how many. */
function keepDays(positions: Uint32Array, count: number, range: number, days: Int32Array, afterMs: number, beforeMs: number): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const at = range === NONE ? positions[i]! : range + i;
    const ms = days[at]! * DAY_MS;
    if (ms > afterMs && ms < beforeMs) positions[kept++] = at;
  }
  return kept;
}

/** Keeps those of `count` positions whose entity (a code) is one of `codes`; answers how many. */
function keepEntities(positions: Uint32Array, count: number, range: number, entities: Uint32Array, codes: ReadonlySet<number>): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const at = range === NONE ? positions[i]! : range + i;
    if (codes.has(entities[at]!)) positions[kept++] = at;
  }
  return kept;
}

/** A search's condition: writes the numbers it finds into `candidates` and answers how many; `distinct` when no number can be found twice. */
interface Condition {
  find: () => number;
  distinct: boolean;
}

/** Counts the numbers taken that a search counts (live, of its type, first reported in its window, with its minimum of sources) and keeps the newest of them. */
class Tally {
  private count = 0;
  constructor(
    private readonly types: Uint32Array,
    private readonly firstReportUs: Float64Array,
    private readonly sourcesOf: Uint32Array,
    private readonly type: number,
    private readonly windowStartUs: number,
    private readonly minReports: number,
    private readonly top: Newest,
  ) {}

  take(n: number): void {
    if (!this.matches(n)) return;
    this.count++;
    this.top.offer(n);
  }

  /** Offers `n` to the page alone, when it matches: it is counted elsewhere (the day tallies). */
  offer(n: number): void {
    if (this.matches(n)) this.top.offer(n);
  }

  /** Whether the page holds its `limit` events. */
  get pageFull(): boolean {
    return this.top.full;
  }

  private matches(n: number): boolean {
    const t = this.types[n]!;
    return (
      t !== NO_TYPE && (this.type === EVERY_TYPE || t === this.type) && this.firstReportUs[n]! >= this.windowStartUs && this.sourcesOf[n]! >= this.minReports
    );
  }

  result(): { count: number; newest: IndexedMatch[] } {
    return { count: this.count, newest: this.top.matches() };
  }
}

/**
 * The `limit` newest of the numbers offered, by first report date then id, both descending.
 * A heap with the oldest kept at its root: an offer older than it is turned away at once, and a
 * newer one costs a walk down the heap (log(limit), not limit). Searches offer numbers newest
 * first (mostly the newest events), so once the heap is full most offers are turned away.
 */
class Newest {
  private readonly heap: number[] = [];
  constructor(
    private readonly limit: number,
    private readonly ids: IdTable,
    private readonly firstReportUs: Float64Array,
  ) {}

  /** Whether event `a` comes before event `b` newest first. */
  private before(a: number, b: number): boolean {
    const da = this.firstReportUs[a]!;
    const db = this.firstReportUs[b]!;
    return da > db || (da === db && this.ids.after(a, b));
  }

  get full(): boolean {
    return this.heap.length === this.limit;
  }

  offer(n: number): void {
    const { heap, limit } = this;
    if (heap.length < limit) {
      // Up from the end while older than its parent.
      let at = heap.push(n) - 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!this.before(heap[parent]!, n)) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = n;
      return;
    }
    if (limit === 0 || !this.before(n, heap[0]!)) return;
    // In place of the oldest, then down while a child is older.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= limit) break;
      const right = left + 1;
      const older = right < limit && this.before(heap[left]!, heap[right]!) ? right : left;
      if (!this.before(n, heap[older]!)) break;
      heap[at] = heap[older]!;
      at = older;
    }
    heap[at] = n;
  }

  matches(): IndexedMatch[] {
    return [...this.heap].sort((a, b) => (this.before(a, b) ? -1 : 1)).map((n) => ({ id: this.ids.id(n), firstReportUs: this.firstReportUs[n]! }));
  }
}
