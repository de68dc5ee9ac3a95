// The one source of time. Service code never reads the wall clock itself: with
// EVMON_TEST_CLOCK=1 the clock is frozen and moves only through the operator API, so tests
// can cross month boundaries, 24-hour windows and retry schedules without sleeping.

/** A day in milliseconds (UTC days: no leap seconds, no daylight saving). */
export const DAY_MS = 86_400_000;

export interface Clock {
  now(): Date;
  nowMs(): number;
  readonly mode: 'system' | 'manual';
}

export interface ManualClock extends Clock {
  readonly mode: 'manual';
  set(instant: Date): void;
  advance(seconds: number): void;
}

export function systemClock(): Clock {
  return {
    mode: 'system',
    now: () => new Date(Date.now()),
    nowMs: () => Date.now(),
  };
}

export function manualClock(start: Date): ManualClock {
  let current = start.getTime();
  return {
    mode: 'manual',
    now: () => new Date(current),
    nowMs: () => current,
    set(instant) {
      current = instant.getTime();
    },
    advance(seconds) {
      current += Math.round(seconds * 1000);
    },
  };
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock.mode === 'manual';
}

/** The first instant of the UTC month of `at` (monthly counters, caps and usage reset there). */
export function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}
