// Where a search's window starts among the search index's numbers (first-report-spans.ts),
// against every number's own first report date: on layouts of blocks of new and old events
// (a corpus loaded newest first, a backfill, live news again), no number first reported in a
// window is ever passed over, and whole spans older than it are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FirstReportSpans } from '../../../src/modules/search/index/first-report-spans.js';
import { seededBelow } from '../../helpers/seeded-random.js';

const DAY_US = 86_400_000_000;
const NOW_US = Date.parse('2026-11-20T00:00:00Z') * 1000;

describe('first report spans', () => {
  it('when blocks of new and old events are numbered in turn, then a window keeps every number first reported in it and passes over spans wholly older', () => {
    const random = seededBelow(5);
    let dropped = 0;
    /** Numbers after the window start, and those of them in runs. */
    let after = 0;
    let inRunsAll = 0;
    for (let layout = 0; layout < 40; layout++) {
      // Blocks of 1 to 3,000 numbers, each either recent (the last 30 days) or of the year before;
      // a quarter of the layouts before 1970 (negative dates, whose days round down too).
      const nowUs = layout % 4 === 3 ? Date.parse('1969-09-01T00:00:00Z') * 1000 : NOW_US;
      const dates: number[] = [];
      while (dates.length < 20_000) {
        const recent = random(2) === 0;
        const length = 1 + random(random(4) === 0 ? 3_000 : 40);
        for (let i = 0; i < length; i++) dates.push(recent ? nowUs - random(30 * DAY_US) : nowUs - 60 * DAY_US - random(365 * DAY_US));
      }
      const spans = new FirstReportSpans(16);
      dates.forEach((us, n) => {
        if (n % 1_000 === 0) spans.resize(n + 1_000); // grown as the index grows
        spans.note(n, us);
      });
      for (let search = 0; search < 20; search++) {
        // A window on a number's own date, at the start of its day, or anywhere in the year.
        const on = dates[random(dates.length)]!;
        const windowStartUs = [on, on - (((on % DAY_US) + DAY_US) % DAY_US), nowUs - random(400 * DAY_US)][random(3)]!;
        const count = 1 + random(dates.length);
        const from = Math.min(count, spans.firstInWindow(windowStartUs, count));
        const inWindow = (n: number) => dates[n]! >= windowStartUs;
        const wanted = [];
        for (let n = from; n < count; n++) if (inWindow(n)) wanted.push(n);
        const context = `layout ${layout}, search ${search}`;
        for (let n = 0; n < from; n++) assert.ok(!inWindow(n), `${context}: ${n} before the window start`);

        // keepInWindow: every number in the window kept, in order; a span it drops is wholly older.
        const all = Array.from({ length: count - from }, (_, i) => from + i);
        const numbers = Uint32Array.from(all); // compacted in place
        const kept = [...numbers.subarray(0, spans.keepInWindow(numbers, numbers.length, windowStartUs))];
        assert.deepEqual(kept.filter(inWindow), wanted, `${context}: keepInWindow`);
        // And exactly those whose span holds a number first reported on the window's day or later.
        const day = Math.floor(windowStartUs / DAY_US);
        const spanReaches = (n: number) => {
          for (let m = (n >> 4) << 4; m < Math.min(dates.length, ((n >> 4) + 1) << 4); m++) if (Math.floor(dates[m]! / DAY_US) >= day) return true;
          return false;
        };
        assert.deepEqual(kept, all.filter(spanReaches), `${context}: keepInWindow keeps by span`);
        dropped += all.length - kept.length;
        after += all.length;

        // visitInWindow: the same numbers, newest first.
        const visited: number[] = [];
        spans.visitInWindow(from, count, windowStartUs, (n) => visited.push(n));
        assert.deepEqual(visited, [...kept].reverse(), `${context}: visitInWindow`);

        // runsInWindow: ascending, apart, within [from, count), holding every kept number.
        const runs = spans.runsInWindow(from, count, windowStartUs);
        for (let r = 0; r < runs.length; r += 2) inRunsAll += runs[r + 1]! - runs[r]!;
        for (let r = 0; r < runs.length; r += 2) {
          assert.ok(runs[r]! < runs[r + 1]! && (r === 0 ? runs[r]! >= from : runs[r]! > runs[r - 1]!), `${context}: runs ${runs.join(' ')}`);
        }
        if (runs.length > 0) assert.ok(runs[runs.length - 1]! <= count, `${context}: runs past the count`);
        const inRuns = (n: number) => {
          for (let r = 0; r < runs.length; r += 2) if (n >= runs[r]! && n < runs[r + 1]!) return true;
          return false;
        };
        assert.deepEqual(
          kept.filter((n) => !inRuns(n)),
          [],
          `${context}: runsInWindow leaves kept numbers out`,
        );
      }
    }
    assert.ok(dropped > after / 10, `only ${dropped} of ${after} numbers passed over`);
    assert.ok(inRunsAll < after * 0.9, `runs hold ${inRunsAll} of ${after} numbers`);
  });
});
