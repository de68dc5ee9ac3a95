// The search index in memory: what the filter's SQL face (filter-sql.ts) reads of each live
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
import type { CompiledFilter, RoleValueTest } from './filter.js';

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

/** A growable array of 32-bit numbers. */
class Numbers {
  items = new Uint32Array(4);
  length = 0;
  push(n: number): void {
    if (this.length === this.items.length) {
      const grown = new Uint32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = n;
  }
}

/** A growable column of 64-bit floats. */
class Floats {
  items = new Float64Array(4);
  length = 0;
  push(x: number): void {
    if (this.length === this.items.length) {
      const grown = new Float64Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = x;
  }
}

/** One role's values, column by column; NaN stands for no date or no amount, -1 for no entity. */
class RoleColumn {
  readonly events = new Numbers();
  readonly flags = new Numbers(); // bit 0: structured
  readonly entities = new Numbers(); // interned + 1; 0: none
  readonly dates = new Floats();
  readonly amounts = new Floats();
  readonly units = new Numbers(); // interned
}

const NO_TYPE = 0xffffffff;
const NO_UNIT = 0xffffffff;

export class MemoryIndex {
  private capacity = 1024;
  /** Per number: the event's type (interned), NO_TYPE once the number is dead. */
  private types = new Uint32Array(this.capacity);
  private firstReportUs = new Float64Array(this.capacity);
  private sources = new Uint32Array(this.capacity);
  private articleSources = new Uint32Array(this.capacity);
  private structuredSources = new Uint32Array(this.capacity);
  private ids: string[] = [];
  private next = 0;
  private readonly numberOf = new Map<string, number>();

  private readonly interned = new Map<string, number>();
  private readonly mentioned = new Map<number, Numbers>();
  private readonly participants = new Map<number, Numbers>();
  private readonly outlets = new Map<number, Numbers>();
  private readonly roles = new Map<string, RoleColumn>();

  /** Per number: the query (generation) that last reached it, and how many of its conditions it passed. */
  private reachedBy = new Uint32Array(this.capacity);
  private passed = new Uint8Array(this.capacity);
  private generation = 0;

  /** Live events held. */
  get size(): number {
    return this.numberOf.size;
  }

  /** Dead numbers still held in posting lists, against live ones. */
  garbage(): number {
    return this.next - this.numberOf.size;
  }

  /** Sets an event to its facts now (null: it is gone, merged or deleted). */
  put(id: string, event: IndexedEvent | null): void {
    const old = this.numberOf.get(id);
    if (old !== undefined) {
      this.types[old] = NO_TYPE;
      this.numberOf.delete(id);
    }
    if (event === null) return;
    const n = this.number(id);
    this.types[n] = this.intern(event.typeId);
    this.firstReportUs[n] = event.firstReportUs;
    this.sources[n] = event.sources;
    this.articleSources[n] = event.articleSources;
    this.structuredSources[n] = event.structuredSources;
    for (const { entityId, participant } of event.entities) {
      this.posting(this.mentioned, entityId).push(n);
      if (participant) this.posting(this.participants, entityId).push(n);
    }
    for (const outlet of event.outlets) this.posting(this.outlets, outlet).push(n);
    for (const value of event.values) {
      const column = this.roles.get(value.roleId) ?? new RoleColumn();
      this.roles.set(value.roleId, column);
      column.events.push(n);
      column.flags.push(value.structured ? 1 : 0);
      column.entities.push(value.entityId === null ? 0 : this.intern(value.entityId) + 1);
      column.dates.push(value.dateMs ?? Number.NaN);
      column.amounts.push(value.amount ?? Number.NaN);
      column.units.push(value.unit === null ? NO_UNIT : this.intern(value.unit));
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
    const type = filter.eventTypeId === null ? null : this.interned.get(filter.eventTypeId);
    if (type === undefined) return { count: 0, newest: [] }; // a type no live event has
    const sourcesOf = filter.sourceKind === 'ANY' ? this.sources : filter.sourceKind === 'ARTICLES_ONLY' ? this.articleSources : this.structuredSources;
    const kindFlag = filter.sourceKind === 'ANY' ? null : filter.sourceKind === 'ARTICLES_ONLY' ? 0 : 1;
    const conditions: ((visit: (n: number) => void) => void)[] = [];
    if (filter.entities !== null) {
      const lists = filter.scope === 'PARTICIPANT' ? this.participants : this.mentioned;
      conditions.push((visit) => this.visitAll(lists, filter.entities!, visit));
    }
    if (filter.outlets !== null) {
      // Outlets are article sources: under USER_REPORTS_ONLY none counts.
      if (filter.sourceKind === 'USER_REPORTS_ONLY') return { count: 0, newest: [] };
      conditions.push((visit) => this.visitAll(this.outlets, filter.outlets!, visit));
    }
    for (const roleFilter of filter.roleFilters) {
      const columns = (roleIds.get(roleFilter.role) ?? []).flatMap((id) => this.roles.get(id) ?? []);
      conditions.push((visit) => {
        for (const column of columns) this.visitValues(column, roleFilter.tests, kindFlag, visit);
      });
    }

    const { types, firstReportUs } = this;
    const minReports = filter.minReports;
    const top = new Newest(limit, this.ids, firstReportUs);
    let count = 0;
    const accept = (n: number): void => {
      const t = types[n]!;
      if (t === NO_TYPE || (type !== null && t !== type) || firstReportUs[n]! < windowStartUs || sourcesOf[n]! < minReports) return;
      count++;
      top.offer(n);
    };
    if (conditions.length === 0) {
      for (let n = 0; n < this.next; n++) accept(n);
      return { count, newest: top.matches() };
    }
    // Each condition passes on the events that passed all before it; the last one accepts.
    const generation = this.nextGeneration();
    const { reachedBy, passed } = this;
    conditions.forEach((condition, i) => {
      const last = i === conditions.length - 1;
      condition((n) => {
        if (i === 0) {
          if (reachedBy[n] === generation) return;
          reachedBy[n] = generation;
        } else if (reachedBy[n] !== generation || passed[n] !== i) return;
        passed[n] = i + 1;
        if (last) accept(n);
      });
    });
    return { count, newest: top.matches() };
  }

  private visitAll(lists: Map<number, Numbers>, keys: ReadonlySet<string>, visit: (n: number) => void): void {
    for (const key of keys) {
      const code = this.interned.get(key);
      const list = code === undefined ? undefined : lists.get(code);
      if (!list) continue;
      const { items, length } = list;
      for (let i = 0; i < length; i++) visit(items[i]!);
    }
  }

  /** Visits the events of the role values passing every test (one value row holds them all, as the SQL face's `v`). */
  private visitValues(column: RoleColumn, tests: readonly RoleValueTest[], kindFlag: number | null, visit: (n: number) => void): void {
    const events = column.events.items;
    const flags = column.flags.items;
    const entities = column.entities.items;
    const dates = column.dates.items;
    const amounts = column.amounts.items;
    const units = column.units.items;
    const compiled = tests.map((test) => this.valueTest(test));
    const length = column.events.length;
    next: for (let i = 0; i < length; i++) {
      if (kindFlag !== null && (flags[i]! & 1) !== kindFlag) continue;
      for (const t of compiled) {
        if (t.kind === 'amount') {
          const a = amounts[i]!;
          if (Number.isNaN(a) || a < t.min || a > t.max || (t.unit !== null && units[i] !== t.unit)) continue next;
        } else if (t.kind === 'date') {
          const d = dates[i]!;
          if (Number.isNaN(d) || !(d > t.afterMs) || !(d < t.beforeMs)) continue next;
        } else if (!t.entities.has(entities[i]!)) continue next;
      }
      visit(events[i]!);
    }
  }

  /** A test with its unit and entities as interned codes (entities + 1, as the column holds them). */
  private valueTest(test: RoleValueTest) {
    if (test.kind === 'amount') return { ...test, unit: test.unit === null ? null : (this.interned.get(test.unit) ?? -1) };
    if (test.kind === 'date') return test;
    const codes = new Set<number>();
    for (const entity of test.entities) {
      const code = this.interned.get(entity);
      if (code !== undefined) codes.add(code + 1);
    }
    return { kind: 'entity_in' as const, entities: codes };
  }

  private nextGeneration(): number {
    if (this.generation === 0xffffffff) {
      this.reachedBy.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }

  private number(id: string): number {
    if (this.next === this.capacity) this.grow();
    const n = this.next++;
    this.ids[n] = id;
    this.numberOf.set(id, n);
    return n;
  }

  private grow(): void {
    this.capacity *= 2;
    const grown = <T extends Uint32Array | Float64Array | Uint8Array>(old: T): T => {
      const bigger = new (old.constructor as new (n: number) => T)(this.capacity);
      bigger.set(old);
      return bigger;
    };
    this.types = grown(this.types);
    this.firstReportUs = grown(this.firstReportUs);
    this.sources = grown(this.sources);
    this.articleSources = grown(this.articleSources);
    this.structuredSources = grown(this.structuredSources);
    this.reachedBy = grown(this.reachedBy);
    this.passed = grown(this.passed);
  }

  private intern(key: string): number {
    const known = this.interned.get(key);
    if (known !== undefined) return known;
    const code = this.interned.size;
    this.interned.set(key, code);
    return code;
  }

  private posting(lists: Map<number, Numbers>, key: string): Numbers {
    const code = this.intern(key);
    const list = lists.get(code) ?? new Numbers();
    lists.set(code, list);
    return list;
  }
}

/** The `limit` newest of the numbers offered, by first report date then id, both descending. */
class Newest {
  private readonly kept: number[] = [];
  constructor(
    private readonly limit: number,
    private readonly ids: readonly string[],
    private readonly firstReportUs: Float64Array,
  ) {}

  /** Whether event `a` comes before event `b` newest first. */
  private before(a: number, b: number): boolean {
    const da = this.firstReportUs[a]!;
    const db = this.firstReportUs[b]!;
    return da > db || (da === db && this.ids[a]! > this.ids[b]!);
  }

  offer(n: number): void {
    const { kept, limit } = this;
    if (limit === 0) return;
    if (kept.length === limit && !this.before(n, kept[limit - 1]!)) return;
    let at = kept.length === limit ? limit - 1 : kept.length;
    while (at > 0 && this.before(n, kept[at - 1]!)) {
      kept[at] = kept[at - 1]!;
      at--;
    }
    kept[at] = n;
  }

  matches(): IndexedMatch[] {
    return this.kept.map((n) => ({ id: this.ids[n]!, firstReportUs: this.firstReportUs[n]! }));
  }
}
