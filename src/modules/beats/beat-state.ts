// The beat state table (v1 document, "States and transitions", Beat) as pure functions over a
// beat row. A new UTC month is applied when a beat is next read or written rather than by a
// job at 00:00 UTC on the 1st: `asOf` answers the beat as it stands at an instant, so every
// reader agrees and the test clock can cross months without anything having to run.
import { monthStart } from '../../platform/clock.js';
import { isRealDate } from '../corpus/role-values.js';
import type { BeatStatus } from './beats.schemas.js';
import type { BeatState } from './beats.store.js';

function nextMonthStart(month: Date): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
}

/**
 * The beat at `now`: in a later UTC month than its counters, the counters start again and a
 * spend-cap pause has ended at the first instant of the month after the one it began in.
 */
export function asOf<T extends BeatState>(row: T, now: Date): T {
  const month = monthStart(now);
  if (row.counters_month.getTime() >= month.getTime()) return row;
  const rolled = { ...row, counters_month: month, spent_this_month: 0, entries_this_month: 0 };
  return row.paused ? closeGap({ ...rolled, paused: false }, nextMonthStart(row.counters_month)) : rolled;
}

export function statusOf(row: BeatState): BeatStatus {
  if (!row.enabled) return 'DISABLED';
  return row.paused ? 'PAUSED_SPEND_CAP' : 'ACTIVE';
}

/** Recording stops: the spend cap or the balance cannot cover the next entry. A gap opens. */
export function pause<T extends BeatState>(row: T, at: Date): T {
  return { ...row, paused: true, gaps: [...row.gaps, { from: at.toISOString(), until: null }] };
}

/** Ends the open gap at `at` (resume, disable, a new month). */
export function closeGap<T extends BeatState>(row: T, at: Date): T {
  const gaps = row.gaps.map((gap) => (gap.until === null ? { ...gap, until: at.toISOString() } : gap));
  return { ...row, paused: false, gaps };
}

/** Whether the beat records entries now. */
export const recording = (row: BeatState): boolean => row.enabled && !row.paused;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** `occurred_at`: the event's `happened_at` when it reads as a date (00:00 UTC) or timestamp, else its first report date. */
export function occurredAt(happenedAt: string | null, firstReportDate: Date): Date {
  const text = happenedAt?.trim() ?? '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && isRealDate(text)) return new Date(`${text}T00:00:00Z`);
  if (TIMESTAMP.test(text) && isRealDate(text.slice(0, 10))) {
    const instant = new Date(text);
    if (!Number.isNaN(instant.getTime())) return instant;
  }
  return firstReportDate;
}
