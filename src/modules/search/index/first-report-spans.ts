// Where a search's window starts among the numbers of the search index (memory-index.ts).
// Numbers are given in the order events are added, close to the order of their first
// reports, so a search's window start is passed at some span of numbers, and every number
// before that span is older than the window: searches start there. Not always close: a corpus
// loaded newest first and then the rest of its year (the demo), or a backfill of an archive
// after live news, puts old events after new ones. So each span's own latest first report is
// kept too, and a condition's numbers in spans wholly older than the window are dropped before
// a search looks at each (keepInWindow): at ten million demo events, 2.2 million numbers of
// three outlets' lists came from past the window start, 0.2 million of them within 30 days.
import { lowerBound, resized } from './typed-arrays.js';

const DAY_US = 86_400_000_000;
/** Runs of numbers closer than this many spans are read as one (runsInWindow). */
const GAP_SPANS = 64;

/** Numbers per span, as a power of two (the index keeps two numbers per span). */
const SPAN_BITS = 4;
/** The spans of `capacity` numbers. */
const spansFor = (capacity: number) => (capacity + (1 << SPAN_BITS) - 1) >> SPAN_BITS;

export class FirstReportSpans {
  /**
   * Per span of 2^SPAN_BITS numbers: the latest first report date of any number up to the
   * span's end (dead numbers too).
   */
  private latestUpTo: Float64Array;
  /** Per span: the latest first report date of its own numbers (dead ones too), as a whole day (days since 1970, rounded down). */
  private latestDayIn: Int32Array;

  /** Room for `capacity` numbers. */
  constructor(capacity: number) {
    this.latestUpTo = new Float64Array(spansFor(capacity));
    this.latestDayIn = new Int32Array(spansFor(capacity));
  }

  /** Notes number `n`'s first report date in its span's latest (numbers are noted in order, each once). */
  note(n: number, firstReportUs: number): void {
    const span = n >> SPAN_BITS;
    const opens = (n & ((1 << SPAN_BITS) - 1)) === 0;
    const before = opens ? (span > 0 ? this.latestUpTo[span - 1]! : 0) : this.latestUpTo[span]!;
    this.latestUpTo[span] = Math.max(before, firstReportUs);
    const day = Math.floor(firstReportUs / DAY_US);
    this.latestDayIn[span] = opens ? day : Math.max(this.latestDayIn[span]!, day);
  }

  /**
   * Keeps, of the first `count` of `numbers`, those whose span holds a number first reported on
   * or after the day of `windowStartUs`, in their order; answers how many. Those dropped are all
   * older than the window. The days are whole so that the spans' latest fit an Int32Array (4
   * bytes a span, against the per-number dates' 8 bytes a number): a kept number may still be
   * older, and the search's own check of each number's date decides.
   */
  keepInWindow(numbers: Uint32Array, count: number, windowStartUs: number): number {
    const day = Math.floor(windowStartUs / DAY_US);
    const latest = this.latestDayIn;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const n = numbers[i]!;
      if (latest[n >> SPAN_BITS]! >= day) numbers[kept++] = n;
    }
    return kept;
  }

  /**
   * The first number of the first span holding a first report at or after `windowStartUs`,
   * among the first `count` numbers: every number before it is older.
   */
  firstInWindow(windowStartUs: number, count: number): number {
    return lowerBound(this.latestUpTo, 0, spansFor(count), windowStartUs) << SPAN_BITS;
  }

  /**
   * Hands `visit` the numbers from `count - 1` down to `from` whose span holds a number first
   * reported on or after the day of `windowStartUs` (keepInWindow's rule), newest first.
   */
  visitInWindow(from: number, count: number, windowStartUs: number, visit: (n: number) => void): void {
    const day = Math.floor(windowStartUs / DAY_US);
    const latest = this.latestDayIn;
    if (count <= from) return;
    for (let span = (count - 1) >> SPAN_BITS; span >= from >> SPAN_BITS; span--) {
      if (latest[span]! < day) continue;
      const last = Math.min(count - 1, ((span + 1) << SPAN_BITS) - 1);
      const first = Math.max(from, span << SPAN_BITS);
      for (let n = last; n >= first; n--) visit(n);
    }
  }

  /**
   * The runs of numbers in [from, count) whose spans keepInWindow keeps, as pairs [first, end),
   * ascending: what a role column's values are read for (role-columns.ts findValues). Runs less
   * than GAP_SPANS spans apart are one, so that there are few, each found by a binary search.
   */
  runsInWindow(from: number, count: number, windowStartUs: number): number[] {
    const day = Math.floor(windowStartUs / DAY_US);
    const latest = this.latestDayIn;
    const runs: number[] = [];
    const lastSpan = (count - 1) >> SPAN_BITS;
    for (let span = from >> SPAN_BITS; span <= lastSpan; span++) {
      if (latest[span]! < day) continue;
      const first = Math.max(from, span << SPAN_BITS);
      const end = Math.min(count, (span + 1) << SPAN_BITS);
      if (runs.length > 0 && first - runs[runs.length - 1]! < GAP_SPANS << SPAN_BITS) runs[runs.length - 1] = end;
      else runs.push(first, end);
    }
    return runs;
  }

  /** Room for `capacity` numbers, those noted kept. */
  resize(capacity: number): void {
    this.latestUpTo = resized(this.latestUpTo, spansFor(capacity));
    this.latestDayIn = resized(this.latestDayIn, spansFor(capacity));
  }
}
