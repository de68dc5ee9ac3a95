// Where a search's window starts among the numbers of the search index (memory-index.ts).
// Numbers are given in the order events are added, close to the order of their first
// reports, so a search's window start is passed at some span of numbers, and every number
// before that span is older than the window: searches start there.
import { lowerBound, resized } from './typed-arrays.js';

/** Numbers per span, as a power of two (the index keeps one float per span). */
const SPAN_BITS = 4;
/** The spans of `capacity` numbers. */
const spansFor = (capacity: number) => (capacity + (1 << SPAN_BITS) - 1) >> SPAN_BITS;

export class FirstReportSpans {
  /**
   * Per span of 2^SPAN_BITS numbers: the latest first report date of any number up to the
   * span's end (dead numbers too).
   */
  private latestUpTo: Float64Array;

  /** Room for `capacity` numbers. */
  constructor(capacity: number) {
    this.latestUpTo = new Float64Array(spansFor(capacity));
  }

  /** Notes number `n`'s first report date in its span's latest (numbers are noted in order). */
  note(n: number, firstReportUs: number): void {
    const span = n >> SPAN_BITS;
    const before = (n & ((1 << SPAN_BITS) - 1)) === 0 ? (span > 0 ? this.latestUpTo[span - 1]! : 0) : this.latestUpTo[span]!;
    this.latestUpTo[span] = Math.max(before, firstReportUs);
  }

  /**
   * The first number of the first span holding a first report at or after `windowStartUs`,
   * among the first `count` numbers: every number before it is older.
   */
  firstInWindow(windowStartUs: number, count: number): number {
    return lowerBound(this.latestUpTo, 0, spansFor(count), windowStartUs) << SPAN_BITS;
  }

  /** Room for `capacity` numbers, those noted kept. */
  resize(capacity: number): void {
    this.latestUpTo = resized(this.latestUpTo, spansFor(capacity));
  }
}
