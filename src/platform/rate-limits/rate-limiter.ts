// Two policies:
// - per-key budgets: fixed 60-second windows aligned to the minute of the injected clock,
//   one bucket for REST and one for MCP, sized by the plan;
// - the IP edge policy: more than `maxPerMinute` requests in any 60 seconds bans the IP for
//   `banSeconds`. "Any 60 seconds" is estimated with a sliding-window counter (the previous
//   window's hits weighted by how much of it still lies inside the last 60 seconds, plus the
//   current window's), which needs two counters per IP instead of a log of timestamps.
// Bans are also cached in the process, so a banned IP is refused without touching storage.
import type { Clock } from '../clock.js';
import { WINDOW_MS, type CounterStore } from './counter-store.js';

export interface BudgetRequest {
  bucket: 'rest' | 'mcp';
  subject: string;
  limit: number;
}

export interface BudgetVerdict {
  limit: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

export interface RateVerdict {
  /** The IP is banned (or this request crossed the threshold): a bare 429. */
  banRetryAfterSeconds: number | null;
  budget: BudgetVerdict | null;
}

export interface EdgePolicy {
  maxPerMinute: number; // 0 turns the policy off
  banSeconds: number;
}

export function rateLimiter(store: CounterStore, clock: Clock, edge: EdgePolicy) {
  const localBans = new Map<string, number>();
  const secondsUntil = (ms: number, now: number) => Math.max(1, Math.ceil((ms - now) / 1000));

  async function checkEdge(ip: string, now: number, windowStart: number): Promise<number | null> {
    const counts = await store.countEdge(ip, windowStart);
    if (counts.bannedUntilMs !== null && counts.bannedUntilMs > now) {
      localBans.set(ip, counts.bannedUntilMs);
      return secondsUntil(counts.bannedUntilMs, now);
    }
    const previousWeight = 1 - (now - windowStart) / WINDOW_MS;
    if (counts.previous * previousWeight + counts.current <= edge.maxPerMinute) return null;
    const until = now + edge.banSeconds * 1000;
    localBans.set(ip, until);
    await store.ban(ip, until);
    return edge.banSeconds;
  }

  return {
    /** The ban still in force for `ip` as this process knows it, in seconds, or null. */
    bannedFor(ip: string): number | null {
      const until = localBans.get(ip);
      if (until === undefined) return null;
      const now = clock.nowMs();
      if (until > now) return secondsUntil(until, now);
      localBans.delete(ip);
      return null;
    },

    /** Counts one request from `ip` and, when given, against a key budget. */
    async hit(ip: string, budget: BudgetRequest | null): Promise<RateVerdict> {
      const now = clock.nowMs();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      if (edge.maxPerMinute > 0) {
        const banned = await checkEdge(ip, now, windowStart);
        if (banned !== null) return { banRetryAfterSeconds: banned, budget: null };
      }
      if (!budget) return { banRetryAfterSeconds: null, budget: null };
      const take = await store.take(budget.bucket, budget.subject, windowStart, budget.limit);
      return {
        banRetryAfterSeconds: null,
        budget: {
          limit: budget.limit,
          remaining: Math.max(0, budget.limit - take.used),
          resetSeconds: secondsUntil(windowStart + WINDOW_MS, now),
          exceeded: !take.allowed,
        },
      };
    },

    sweep: () => store.sweep(clock.nowMs()),
    close: () => store.close(),
  };
}

export type RateLimiter = ReturnType<typeof rateLimiter>;
