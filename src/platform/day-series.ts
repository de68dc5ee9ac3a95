// Counts per UTC day over the last N days ending today (the injected clock's today, never the
// wall clock's): the days a store groups by, and every day filled in, quiet ones with zeros.

import { DAY_MS } from './clock.js';

export interface DayRange {
  /** The days, oldest first, as YYYY-MM-DD. */
  days: string[];
  /** The first instant of the first day. */
  from: Date;
  /** The first instant after the last day. */
  until: Date;
}

export function lastUtcDays(now: Date, count: number): DayRange {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = todayStart - (count - 1) * DAY_MS;
  const days = Array.from({ length: count }, (_, i) => new Date(from + i * DAY_MS).toISOString().slice(0, 10));
  return { days, from: new Date(from), until: new Date(todayStart + DAY_MS) };
}

/** One value per day of the range, from rows a store grouped by `day` (YYYY-MM-DD); days without a row count 0. */
export function perDay<Row extends { day: string }>(range: DayRange, rows: readonly Row[], value: (row: Row) => number): number[] {
  const byDay = new Map(rows.map((row) => [row.day, value(row)]));
  return range.days.map((day) => byDay.get(day) ?? 0);
}
