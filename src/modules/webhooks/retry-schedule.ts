// When a failed attempt is tried again (decisions.md, "Webhook deliveries"): after 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h and 10 h, each ±20%, then FAILED: eight attempts in all. A receiver's
// Retry-After can lengthen a wait (up to the longest step, 10 h), never shorten it: the
// schedule is what keeps a failing receiver from using up its attempts in seconds.
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_DELAY_MS = 10 * HOUR;

/** Delay before the attempt after attempt number `attempts` (1-based), or null when it was the last. */
export function retryDelayMs(attempts: number, retryAfter: string | null, nowMs: number, random: () => number = Math.random): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  const scheduled = Math.round(RETRY_DELAYS_MS[attempts - 1]! * (0.8 + random() * 0.4));
  const asked = retryAfter === null ? null : retryAfterMs(retryAfter, nowMs);
  return asked === null ? scheduled : Math.max(scheduled, Math.min(asked, MAX_DELAY_MS));
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110, 10.2.3); null when unreadable. */
function retryAfterMs(value: string, nowMs: number): number | null {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : date - nowMs;
}
