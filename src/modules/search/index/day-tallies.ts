// The live events of the search index in memory (memory-index.ts) by type, UTC day of first
// report and distinct sources, and the numbers first reported on each day: what the day counts
// are in the database (day-counts.ts), held by each process beside its index. A search with no
// condition but a type and min_reports counts its window's whole days from the tallies and
// visits only the numbers of its first, partial day, then finds its newest events day by day
// from the newest, instead of visiting every number in its window.
import { SOURCES_CAP } from './day-counts.js';
import { PostingLists } from './posting-lists.js';
import { lowerBound, resized } from './typed-arrays.js';
import { DAY_MS } from '../../../platform/clock.js';

const DAY_US = DAY_MS * 1000;

/** The UTC day (days since 1970-01-01) of a time in microseconds, exact at a day's edges. */
export function dayOfUs(us: number): number {
  let day = Math.floor(us / DAY_US);
  if (day * DAY_US > us) day--;
  else if ((day + 1) * DAY_US <= us) day++;
  return day;
}

/** The tallies' key for "every type". */
export const EVERY_TYPE = -1;

export class DayTallies {
  /** Per type code (and EVERY_TYPE), per day: live events by min(sources, SOURCES_CAP) (0: none, which no search counts). */
  private readonly tallies = new Map<number, Map<number, Int32Array>>();
  /** The posting list of each day's numbers (dead ones included: readers skip them). */
  private readonly dayCodes = new Map<number, number>();
  private days = new PostingLists();
  /**
   * The days that have a list, ascending (the first `dayCount`): a search steps through the
   * days of its window that have events, whatever dates lie beyond it (a date years ahead
   * added by mistake costs one step, not one per day up to it).
   */
  private dayList = new Float64Array(64);
  private dayCount = 0;

  /** Counts number `n`, of type code `type`, first reported at `firstReportUs`, with `sources` distinct sources. */
  add(n: number, type: number, firstReportUs: number, sources: number): void {
    const day = dayOfUs(firstReportUs);
    this.tally(type, day, sources, 1);
    this.tally(EVERY_TYPE, day, sources, 1);
    let code = this.dayCodes.get(day);
    if (code === undefined) {
      code = this.dayCodes.size;
      this.dayCodes.set(day, code);
      this.insertDay(day);
    }
    this.days.push(code, n);
  }

  /** Stops counting a number added with these facts (it died); it stays in its day's list. */
  remove(type: number, firstReportUs: number, sources: number): void {
    const day = dayOfUs(firstReportUs);
    this.tally(type, day, sources, -1);
    this.tally(EVERY_TYPE, day, sources, -1);
  }

  /** The live events of type code `type` (or EVERY_TYPE) first reported on `fromDay` or later, with at least `minSources` (1 to SOURCES_CAP) sources. */
  countFrom(type: number, fromDay: number, minSources: number): number {
    const byDay = this.tallies.get(type);
    if (!byDay) return 0;
    let count = 0;
    for (let i = lowerBound(this.dayList, 0, this.dayCount, fromDay); i < this.dayCount; i++) count += countOn(byDay, this.dayList[i]!, minSources);
    return count;
  }

  /** The days from the newest down to `oldestDay`, newest first, on which such live events were first reported (countFrom's). */
  *daysDown(type: number, oldestDay: number, minSources: number): Generator<number> {
    const byDay = this.tallies.get(type);
    if (!byDay) return;
    const oldest = lowerBound(this.dayList, 0, this.dayCount, oldestDay);
    for (let i = this.dayCount - 1; i >= oldest; i--) {
      const day = this.dayList[i]!;
      if (countOn(byDay, day, minSources) > 0) yield day;
    }
  }

  /**
   * The days from `firstDay` to `lastDay` (both included) on which such live events were first
   * reported (countFrom's), oldest first or newest first: the days a continuation walks.
   */
  *daysBetween(type: number, firstDay: number, lastDay: number, minSources: number, newestFirst: boolean): Generator<number> {
    const byDay = this.tallies.get(type);
    if (!byDay) return;
    const first = lowerBound(this.dayList, 0, this.dayCount, firstDay);
    const end = lowerBound(this.dayList, 0, this.dayCount, lastDay + 1);
    for (let k = 0; k < end - first; k++) {
      const day = this.dayList[newestFirst ? end - 1 - k : first + k]!;
      if (countOn(byDay, day, minSources) > 0) yield day;
    }
  }

  /** How many numbers (dead ones included) the day's list holds. */
  lengthOn(day: number): number {
    const code = this.dayCodes.get(day);
    return code === undefined ? 0 : this.days.length(code);
  }

  /** Copies the day's numbers, ascending, into `into` from 0 (room for lengthOn(day)); answers how many. */
  copyDay(day: number, into: Uint32Array): number {
    const code = this.dayCodes.get(day);
    return code === undefined ? 0 : this.days.copyInto(code, 0, into, 0);
  }

  /** Gives back the lists' room kept for growth (MemoryIndex.compact). */
  compact(): void {
    this.days = this.days.packed();
  }

  private insertDay(day: number): void {
    if (this.dayCount === this.dayList.length) this.dayList = resized(this.dayList, this.dayCount * 2);
    const at = lowerBound(this.dayList, 0, this.dayCount, day);
    this.dayList.copyWithin(at + 1, at, this.dayCount);
    this.dayList[at] = day;
    this.dayCount++;
  }

  /** Moves the tally of (`key`, `day`, `sources`) by `by`. */
  private tally(key: number, day: number, sources: number, by: number): void {
    let byDay = this.tallies.get(key);
    if (!byDay) {
      byDay = new Map();
      this.tallies.set(key, byDay);
    }
    let bySources = byDay.get(day);
    if (!bySources) {
      bySources = new Int32Array(SOURCES_CAP + 1);
      byDay.set(day, bySources);
    }
    bySources[Math.min(sources, SOURCES_CAP)]! += by;
  }
}

/** The live events of one day of `byDay` (a type's tallies) with at least `minSources` (1 to SOURCES_CAP) sources. */
function countOn(byDay: ReadonlyMap<number, Int32Array>, day: number, minSources: number): number {
  const bySources = byDay.get(day);
  if (!bySources) return 0;
  let count = 0;
  for (let s = minSources; s <= SOURCES_CAP; s++) count += bySources[s]!;
  return count;
}
