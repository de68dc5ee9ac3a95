// What a search of the search index in memory (memory-index.ts) answers, once it knows its
// conditions: the numbers it visits are taken into its tally, which counts those the search
// counts and keeps its page, the newest of them. The numbers come from its conditions,
// intersected (tallyConditions), or, for a search with no condition, from the day tallies
// (day-tallies.ts), which count its window's whole days without visiting them (tallyByDays).
import { type DayTallies, dayOfUs, EVERY_TYPE } from './day-tallies.js';
import type { EventOrder } from '../../filters/filter.store.js';
import type { IdTable } from './id-table.js';
import type { SearchScratch } from './search-scratch.js';

/** A number's type once the number is dead (its event changed or gone). */
export const NO_TYPE = 0xffffffff;

/** A match, as the SQL face's page answers it. */
export interface IndexedMatch {
  id: string;
  firstReportUs: number;
}

/** A search's condition: writes the numbers it finds into the scratch's candidates and answers how many; `distinct` when no number can be found twice. */
export interface Condition {
  find: () => number;
  distinct: boolean;
}

/**
 * Takes the numbers that every one of `conditions` finds into `tally`, and answers it. Numbers
 * are taken newest first: they are mostly the newest events, so most offers to the page's heap
 * are turned away at its first comparison.
 */
export function tallyConditions(tally: Tally, conditions: readonly Condition[], scratch: SearchScratch): { count: number; newest: IndexedMatch[] } {
  if (conditions.length === 1 && conditions[0]!.distinct) {
    // One condition's distinct numbers, ascending: nothing to intersect.
    const found = conditions[0]!.find();
    const candidates = scratch.candidates;
    for (let j = found - 1; j >= 0; j--) tally.take(candidates[j]!);
    return tally.result();
  }
  // Each condition passes on the events that passed all before it; the last one counts them.
  const generation = scratch.nextGeneration();
  const { reachedBy, passed } = scratch;
  for (let i = 0; i < conditions.length; i++) {
    const found = conditions[i]!.find();
    const candidates = scratch.candidates;
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
export function tallyByDays(
  tally: Tally,
  dayTallies: DayTallies,
  scratch: SearchScratch,
  type: number,
  windowStartUs: number,
  minReports: number,
): { count: number; newest: IndexedMatch[] } {
  /** The numbers first reported on `day` (dead ones too), ascending, in the scratch's candidates. */
  const numbersOn = (day: number): Uint32Array => {
    const candidates = scratch.candidatesFor(dayTallies.lengthOn(day), 0);
    return candidates.subarray(0, dayTallies.copyDay(day, candidates));
  };
  const firstDay = dayOfUs(windowStartUs);
  for (const day of dayTallies.daysDown(type, firstDay + 1, minReports)) {
    if (tally.pageFull) break;
    const numbers = numbersOn(day);
    for (let j = numbers.length - 1; j >= 0; j--) tally.offer(numbers[j]!);
  }
  const numbers = numbersOn(firstDay);
  for (let j = numbers.length - 1; j >= 0; j--) tally.take(numbers[j]!);
  const { count, newest } = tally.result();
  return { count: count + dayTallies.countFrom(type, firstDay + 1, minReports), newest };
}

/** A search's minimums of sources, and each number's sources of the kinds it counts. */
export interface SourceMinimums {
  sourcesOf: Uint32Array;
  minReports: number;
  independentOf: Uint32Array;
  minIndependent: number;
}

/** Counts the numbers taken that a search counts (live, of its type, first reported in its window, with its minimums of sources, beyond its bound if it has one) and keeps the first of them in its order. */
export class Tally {
  private count = 0;
  private readonly sourcesOf: Uint32Array;
  private readonly minReports: number;
  private readonly independentOf: Uint32Array;
  private readonly minIndependent: number;
  constructor(
    private readonly types: Uint32Array,
    private readonly firstReportUs: Float64Array,
    minimums: SourceMinimums,
    private readonly type: number,
    private readonly windowStartUs: number,
    private readonly top: Foremost,
    /** A continuation's bound: whether number `n` comes after the position it continues from (null: a first page). */
    private readonly beyond: ((n: number) => boolean) | null = null,
  ) {
    ({ sourcesOf: this.sourcesOf, minReports: this.minReports, independentOf: this.independentOf, minIndependent: this.minIndependent } = minimums);
  }

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
      t !== NO_TYPE &&
      (this.type === EVERY_TYPE || t === this.type) &&
      this.firstReportUs[n]! >= this.windowStartUs &&
      this.sourcesOf[n]! >= this.minReports &&
      this.independentOf[n]! >= this.minIndependent &&
      (this.beyond === null || this.beyond(n))
    );
  }

  result(): { count: number; newest: IndexedMatch[] } {
    return { count: this.count, newest: this.top.matches() };
  }
}

/**
 * The first `limit` of the numbers offered in report order: newest first (a search's pages), by
 * first report date then id, both descending; or oldest first, both
 * ascending. A heap with the last kept at its root: an offer after it is turned away at once,
 * and one before it costs a walk down the heap (log(limit), not limit). Searches offer numbers
 * newest first (mostly the newest events), so once the heap is full most offers are turned away.
 */
export class Foremost {
  private readonly heap: number[] = [];
  private readonly newestFirst: boolean;
  constructor(
    private readonly limit: number,
    private readonly ids: IdTable,
    private readonly firstReportUs: Float64Array,
    order: EventOrder = 'newest-first',
  ) {
    this.newestFirst = order === 'newest-first';
  }

  /** Whether event `a` comes before event `b` in the order. */
  private before(a: number, b: number): boolean {
    const da = this.firstReportUs[a]!;
    const db = this.firstReportUs[b]!;
    if (this.newestFirst) return da > db || (da === db && this.ids.after(a, b));
    return da < db || (da === db && this.ids.after(b, a));
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
