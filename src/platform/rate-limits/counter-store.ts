// Where rate-limit counters live. An embedded server is alone, so memory is exact there;
// several processes on one PostgreSQL share counters in the database, at one statement per
// request (rate-limits/postgres-counter-store.ts).

export interface CounterIncrement {
  bucket: string; // 'edge' | 'rest' | 'mcp'
  subject: string; // an IP, or an API key id
  windowStart: number; // ms, start of the fixed 60-second window
}

export interface IncrementResult {
  /** Hits in the current window after this one, in the order of the increments. */
  hits: number[];
  /** Hits of the edge subject in the previous window (0 when no edge increment was asked). */
  previousEdgeHits: number;
  /** A ban recorded for the edge subject, in ms, or null. */
  bannedUntilMs: number | null;
}

export interface CounterStore {
  increment(items: CounterIncrement[], previousWindowStart: number): Promise<IncrementResult>;
  ban(ip: string, untilMs: number): Promise<void>;
  /** Drops windows and bans that no longer matter. */
  sweep(nowMs: number): Promise<void>;
}

export function memoryCounterStore(): CounterStore {
  const counters = new Map<string, number>();
  const bans = new Map<string, number>();
  const keyOf = (bucket: string, subject: string, windowStart: number) => `${bucket}\u0000${subject}\u0000${windowStart}`;
  return {
    async increment(items, previousWindowStart) {
      let previousEdgeHits = 0;
      let bannedUntilMs: number | null = null;
      const hits = items.map((item) => {
        const key = keyOf(item.bucket, item.subject, item.windowStart);
        const next = (counters.get(key) ?? 0) + 1;
        counters.set(key, next);
        if (item.bucket === 'edge') {
          previousEdgeHits = counters.get(keyOf('edge', item.subject, previousWindowStart)) ?? 0;
          bannedUntilMs = bans.get(item.subject) ?? null;
        }
        return next;
      });
      return { hits, previousEdgeHits, bannedUntilMs };
    },
    async ban(ip, untilMs) {
      bans.set(ip, Math.max(untilMs, bans.get(ip) ?? 0));
    },
    async sweep(nowMs) {
      const oldest = Math.floor(nowMs / 60_000) * 60_000 - 60_000;
      for (const key of counters.keys()) {
        if (Number(key.slice(key.lastIndexOf('\u0000') + 1)) < oldest) counters.delete(key);
      }
      for (const [ip, until] of bans) if (until <= nowMs) bans.delete(ip);
    },
  };
}
