// The role values of the search index in memory (memory-index.ts), in columns: per role id,
// one column for each report kind (articles or structured) and set of members (entity, date,
// amount) its values carry, each member a typed array. A role condition of a search runs its
// value tests over the columns of the role ids it names (findValues).
import { DAY_MS } from '../../../platform/clock.js';
import type { RoleValueTest } from '../../filters/filter.js';
import type { IndexedRoleValue } from './indexed-event.js';
import type { SearchScratch } from './search-scratch.js';
import { lowerBound, resized, type Typed } from './typed-arrays.js';

/** A value's unit when it has none (interned units are codes from 0 up). */
export const NO_UNIT = 0xffffffff;
/** An amount test's unit when it names none: any value's unit passes. */
const ANY_UNIT = -1;

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
export class RoleColumn {
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

/** The role columns' parts, as memory-index-file.ts saves and loads them. */
export type RoleColumnsParts = { roleId: string; columns: { key: number; column: RoleColumnParts }[] }[];

/** Per role id, its columns by report kind and members (the key columnFor makes of them). */
export class RoleColumns {
  private constructor(private readonly byRole: Map<string, Map<number, RoleColumn>>) {}

  static empty(): RoleColumns {
    return new RoleColumns(new Map());
  }

  static fromParts(parts: RoleColumnsParts): RoleColumns {
    return new RoleColumns(
      new Map(parts.map(({ roleId, columns }) => [roleId, new Map(columns.map(({ key, column }) => [key, RoleColumn.fromParts(column)]))])),
    );
  }

  parts(): RoleColumnsParts {
    return [...this.byRole].map(([roleId, columns]) => ({ roleId, columns: [...columns].map(([key, column]) => ({ key, column: column.parts() })) }));
  }

  /** The column a value goes in, made on first use. */
  columnFor(value: IndexedRoleValue): RoleColumn {
    const has = { entity: value.entityId !== null, date: value.dateMs !== null, amount: value.amount !== null };
    const key = (value.structured ? 1 : 0) | (has.entity ? 2 : 0) | (has.date ? 4 : 0) | (has.amount ? 8 : 0);
    const columns = this.byRole.get(value.roleId) ?? new Map<number, RoleColumn>();
    this.byRole.set(value.roleId, columns);
    const column = columns.get(key) ?? new RoleColumn(value.structured, has);
    columns.set(key, column);
    return column;
  }

  /** The columns of `roleIds` that have held events of type code `type` (null: of any type). */
  of(roleIds: readonly string[], type: number | null): RoleColumn[] {
    return roleIds.flatMap((id) => [...(this.byRole.get(id)?.values() ?? [])]).filter((column) => type === null || column.types.has(type));
  }

  /** Gives back every column's room kept for growth (MemoryIndex.compact). */
  trim(): void {
    for (const columns of this.byRole.values()) for (const column of columns.values()) column.trim();
  }
}

/** The index's codes for what value tests name: a unit's (undefined: no value has it), an entity's (-1: none). */
export interface ValueCodes {
  unit(unit: string): number | undefined;
  entity(entityId: string): number;
}

/**
 * Writes the numbers of `runs` (pairs of numbers, each a run [first, end), ascending) of the
 * events whose values of `column` pass every test (one value row holds them all, as the SQL
 * face's `v`) into the scratch's candidates from `found`; answers where they end. Values are
 * in number order, so each run's values are a range of positions, found by binary search: the
 * values of numbers outside the runs (older than the search's window) are never read. The
 * tests run one after another, each over the positions the ones before it kept, each in a
 * loop of its own over one typed array: loops that stay compiled whatever a search's tests
 * are, where one loop testing every kind of test was compiled and thrown away again as
 * searches came (tens of ms each time).
 */
export function findValues(
  column: RoleColumn,
  tests: readonly RoleValueTest[],
  kind: 'ANY' | 'ARTICLE' | 'STRUCTURED',
  runs: readonly number[],
  found: number,
  scratch: SearchScratch,
  codes: ValueCodes,
): number {
  if (kind !== 'ANY' && column.structured !== (kind === 'STRUCTURED')) return found;
  const length = column.events.length;
  const events = column.events.items;
  // Each run's range of positions, and how many they are in all.
  const ranges: number[] = [];
  let total = 0;
  for (let r = 0, at = 0; r < runs.length && at < length; r += 2) {
    const first = lowerBound(events, at, length, runs[r]!);
    at = lowerBound(events, first, length, runs[r + 1]!);
    if (at > first) ranges.push(first, at);
    total += at - first;
  }
  const positions = scratch.positionsFor(total);
  let kept = 0;
  if (tests.length === 0) {
    for (let r = 0; r < ranges.length; r += 2) for (let at = ranges[r]!; at < ranges[r + 1]!; at++) positions[kept++] = at;
  }
  for (let t = 0; t < tests.length; t++) {
    const keep = keeper(column, tests[t]!, codes);
    if (keep === null) return found; // a test no value of the column can pass
    if (t > 0) kept = keep(positions, kept, NONE);
    // The first test reads each range's values and writes the positions it keeps after those kept before.
    else for (let r = 0; r < ranges.length; r += 2) kept += keep(positions.subarray(kept), ranges[r + 1]! - ranges[r]!, ranges[r]!);
    if (kept === 0) return found;
  }
  // An event's values are side by side in a column: each event is written once.
  const candidates = scratch.candidatesFor(found + kept, found);
  for (let i = 0, previous = -1; i < kept; i++) {
    const n = events[positions[i]!]!;
    if (n !== previous) candidates[found++] = n;
    previous = n;
  }
  return found;
}

/**
 * The keep function of `test` over `column` (keepAmounts, keepDays, keepEntities, with the
 * test's bounds), or null when no value of the column can pass it: a member the column lacks,
 * a unit no value has.
 */
function keeper(column: RoleColumn, test: RoleValueTest, codes: ValueCodes): ((positions: Uint32Array, count: number, range: number) => number) | null {
  if (test.kind === 'amount') {
    if (!column.amounts || !column.units) return null;
    // A unit no value has: none passes (a value without one never equals a unit).
    const unit = test.unit === null ? ANY_UNIT : codes.unit(test.unit);
    if (unit === undefined) return null;
    const amounts = column.amounts.items;
    const units = column.units.items;
    return (positions, count, range) => keepAmounts(positions, count, range, amounts, units, test.min, test.max, unit);
  }
  if (test.kind === 'date') {
    if (!column.days) return null;
    const days = column.days.items;
    return (positions, count, range) => keepDays(positions, count, range, days, test.afterMs, test.beforeMs);
  }
  if (!column.entities) return null;
  const entityCodes = new Set<number>();
  for (const entity of test.entities) {
    const code = codes.entity(entity);
    if (code !== -1) entityCodes.add(code);
  }
  const entities = column.entities.items;
  return (positions, count, range) => keepEntities(positions, count, range, entities, entityCodes);
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
