// Where rate-limit state lives. An embedded server is alone, so memory is exact there;
// several processes on one PostgreSQL share it in the database (postgres-counter-store.ts).

export interface BudgetTake {
  /** This request fits in the budget. */
  allowed: boolean;
  /** Requests counted in the window, this one included, as well as this process knows. */
  used: number;
}

export interface EdgeCount {
  /** Requests from the IP in the current window, this one included. */
  current: number;
  /** Requests from the IP in the previous window. */
  previous: number;
  /** A ban recorded for the IP, in ms, or null. */
  bannedUntilMs: number | null;
}

export interface CounterStore {
  /** Takes one request from a key's budget for the window starting at `windowStart`. */
  take(bucket: string, subject: string, windowStart: number, limit: number): Promise<BudgetTake>;
  /** Counts one request from an IP. */
  countEdge(ip: string, windowStart: number): Promise<EdgeCount>;
  ban(ip: string, untilMs: number): Promise<void>;
  /** Drops windows and bans that no longer matter. */
  sweep(nowMs: number): Promise<void>;
  close(): Promise<void>;
}

export const WINDOW_MS = 60_000;

export function memoryCounterStore(): CounterStore {
  const counters = new Map<string, number>();
  const bans = new Map<string, number>();
  const bump = (key: string) => {
    const next = (counters.get(key) ?? 0) + 1;
    counters.set(key, next);
    return next;
  };
  return {
    async take(bucket, subject, windowStart, limit) {
      const used = bump(`${bucket}\u0000${subject}\u0000${windowStart}`);
      return { allowed: used <= limit, used };
    },
    async countEdge(ip, windowStart) {
      return {
        current: bump(`edge\u0000${ip}\u0000${windowStart}`),
        previous: counters.get(`edge\u0000${ip}\u0000${windowStart - WINDOW_MS}`) ?? 0,
        bannedUntilMs: bans.get(ip) ?? null,
      };
    },
    async ban(ip, untilMs) {
      bans.set(ip, Math.max(untilMs, bans.get(ip) ?? 0));
    },
    async sweep(nowMs) {
      const oldest = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS - WINDOW_MS;
      for (const key of counters.keys()) {
        if (Number(key.slice(key.lastIndexOf('\u0000') + 1)) < oldest) counters.delete(key);
      }
      for (const [ip, until] of bans) if (until <= nowMs) bans.delete(ip);
    },
    async close() {},
  };
}
