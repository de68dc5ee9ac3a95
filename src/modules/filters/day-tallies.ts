// The live events of the search index in memory (memory-index.ts) by type, UTC day of first
// report and distinct sources, and the numbers first reported on each day: what the day counts
// are in the database (day-counts.ts), held by each process beside its index. A search with no
// condition but a type and min_reports counts its window's whole days from the tallies and
// visits only the numbers of its first, partial day, then finds its newest events day by day
// from the newest, instead of visiting every number in its window.
import { SOURCES_CAP } from './day-counts.js';
import { PostingLists } from './posting-lists.js';

const DAY_US = 86_400_000_000;

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
  private newestDay = Number.NEGATIVE_INFINITY;

  /** Counts number `n`, of type code `type`, first reported at `firstReportUs`, with `sources` distinct sources. */
  add(n: number, type: number, firstReportUs: number, sources: number): void {
    const day = dayOfUs(firstReportUs);
    this.tally(type, day, sources, 1);
    let code = this.dayCodes.get(day);
    if (code === undefined) {
      code = this.dayCodes.size;
      this.dayCodes.set(day, code);
    }
    this.days.push(code, n);
    if (day > this.newestDay) this.newestDay = day;
  }

  /** Stops counting a number added with these facts (it died); it stays in its day's list. */
  remove(type: number, firstReportUs: number, sources: number): void {
    this.tally(type, dayOfUs(firstReportUs), sources, -1);
  }

  /** The live events of type code `type` (or EVERY_TYPE) first reported on `fromDay` or later, with at least `minSources` (1 to SOURCES_CAP) sources. */
  countFrom(type: number, fromDay: number, minSources: number): number {
    let count = 0;
    for (const [day, bySources] of this.tallies.get(type) ?? []) {
      if (day < fromDay) continue;
      for (let s = minSources; s <= SOURCES_CAP; s++) count += bySources[s]!;
    }
    return count;
  }

  /** The days from the newest down to `oldestDay`, newest first, that have numbers. */
  *daysDown(oldestDay: number): Generator<number> {
    for (let day = this.newestDay; day >= oldestDay; day--) if (this.dayCodes.has(day)) yield day;
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

  private tally(type: number, day: number, sources: number, by: number): void {
    const bucket = Math.min(sources, SOURCES_CAP);
    for (const key of [type, EVERY_TYPE]) {
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
      bySources[bucket]! += by;
    }
  }
}
