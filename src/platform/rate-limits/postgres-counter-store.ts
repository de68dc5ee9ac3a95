// Rate-limit state shared by several server processes on one PostgreSQL, at a cost per
// request far below one statement:
//
// - Key budgets are handed out in leases. A process takes a block of requests from the key's
//   shared counter for the window in one statement (never past the limit) and spends it
//   locally; when the block is spent it takes another. The budget never overflows across
//   processes. The price: another process may be refused while this one still holds leased
//   requests, at most LEASE_FRACTION of the limit (none for limits up to 1 / LEASE_FRACTION,
//   where a lease is one request), and RateLimit-Remaining counts other processes' unspent
//   leases as spent.
// - IP edge counts are kept locally and added to the shared counters every FLUSH_MS; the
//   flush returns the totals of every process and the bans they recorded. The first request of
//   an IP in a window waits for a flush, so a ban recorded by another process is seen at once;
//   after that an IP's counts and bans are at most FLUSH_MS old. A ban decided here is
//   written at once.
import type { Queryable } from '../db/database.js';
import { WINDOW_MS, type CounterStore } from './counter-store.js';

const LEASE_FRACTION = 1 / 50;
const MAX_LEASE = 1_000;
const FLUSH_MS = 250;

// In SET, expressions read the row as it was, so last_grant is exactly what this lease added.
const LEASE_SQL = `
INSERT INTO rate_counters AS c (bucket, subject, window_start, hits, last_grant)
VALUES ($1, $2, $3, LEAST($4::int, $5::int), LEAST($4::int, $5::int))
ON CONFLICT (bucket, subject, window_start) DO UPDATE
  SET hits = GREATEST(c.hits, LEAST($5::int, c.hits + $4::int)),
      last_grant = GREATEST(c.hits, LEAST($5::int, c.hits + $4::int)) - c.hits
RETURNING c.hits AS total, c.last_grant AS granted`;

const EDGE_FLUSH_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[]) AS t(subject, window_start, n)
), bumped AS (
  INSERT INTO rate_counters AS c (bucket, subject, window_start, hits)
  SELECT 'edge', subject, window_start, n FROM input ORDER BY subject, window_start
  ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = c.hits + EXCLUDED.hits
  RETURNING c.subject, c.window_start, c.hits
)
SELECT b.subject, b.window_start, b.hits, previous.hits AS previous_hits,
       (extract(epoch FROM ban.banned_until) * 1000)::bigint AS banned_until_ms
  FROM bumped b
  LEFT JOIN rate_counters previous
    ON previous.bucket = 'edge' AND previous.subject = b.subject AND previous.window_start = b.window_start - ${WINDOW_MS}
  LEFT JOIN edge_bans ban ON ban.ip = b.subject`;

interface Lease {
  windowStart: number;
  limit: number;
  size: number; // requests taken per lease
  renewAt: number; // renew ahead of need once `available` falls below this
  available: number; // leased requests not yet spent
  sharedTotal: number; // the shared counter after the latest lease
  exhausted: boolean; // the shared counter reached the limit in this window
  pending: Promise<void> | null;
}

interface EdgeEntry {
  ip: string;
  windowStart: number;
  unsent: number; // counted here, not yet added to the shared counter
  sharedCurrent: number; // the shared counter after the latest flush
  sharedPrevious: number;
  bannedUntilMs: number | null;
  synced: Promise<void> | null; // the first flush of this entry
}

export function postgresCounterStore(db: Queryable): CounterStore {
  const leases = new Map<string, Lease>();
  const edges = new Map<string, EdgeEntry>();
  let flushTimer: NodeJS.Timeout | null = null;
  let flushRunning = false;
  let waiters: (() => void)[] = [];

  const leaseSize = (limit: number) => Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_FRACTION)));

  async function takeLease(bucket: string, subject: string, lease: Lease, limit: number): Promise<void> {
    const rows = await db.query<{ total: number; granted: number }>(LEASE_SQL, [bucket, subject, lease.windowStart, lease.size, limit]);
    const { total, granted } = rows[0]!;
    lease.available += granted;
    lease.sharedTotal = total;
    if (granted === 0) lease.exhausted = true;
  }

  function renew(bucket: string, subject: string, lease: Lease, limit: number): Promise<void> {
    lease.pending ??= takeLease(bucket, subject, lease, limit).finally(() => (lease.pending = null));
    return lease.pending;
  }

  function scheduleFlush(delay: number): void {
    if (flushRunning) return; // the running flush reschedules when it ends
    if (flushTimer && delay > 0) return;
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = setTimeout(() => void flush(), delay);
    flushTimer.unref();
  }

  async function flush(): Promise<void> {
    flushTimer = null;
    flushRunning = true;
    const done = waiters;
    waiters = [];
    const batch = [...edges.values()].filter((e) => e.unsent > 0 || e.synced !== null);
    const sent = batch.map((e) => e.unsent);
    try {
      if (batch.length > 0) {
        const rows = await db.query<{ subject: string; window_start: number; hits: number; previous_hits: number | null; banned_until_ms: number | null }>(
          EDGE_FLUSH_SQL,
          [batch.map((e) => e.ip), batch.map((e) => e.windowStart), sent],
        );
        const byKey = new Map(rows.map((r) => [`${r.subject}\u0000${r.window_start}`, r]));
        batch.forEach((entry, i) => {
          const row = byKey.get(`${entry.ip}\u0000${entry.windowStart}`);
          entry.unsent -= sent[i]!;
          entry.synced = null;
          if (!row) return;
          entry.sharedCurrent = row.hits;
          entry.sharedPrevious = row.previous_hits ?? 0;
          entry.bannedUntilMs = row.banned_until_ms;
        });
      }
    } catch {
      // The edge policy fails open: counts stay local and go with the next flush.
      for (const entry of batch) entry.synced = null;
    } finally {
      flushRunning = false;
      for (const resolve of done) resolve();
      if (waiters.length > 0) scheduleFlush(0);
      else if ([...edges.values()].some((e) => e.unsent > 0)) scheduleFlush(FLUSH_MS);
    }
  }

  function nextFlush(): Promise<void> {
    return new Promise((resolve) => {
      waiters.push(resolve);
      scheduleFlush(0);
    });
  }

  return {
    async take(bucket, subject, windowStart, limit) {
      const key = `${bucket}\u0000${subject}`;
      let lease = leases.get(key);
      // A request that read the clock just before a newer window's lease was made counts in
      // the newer window rather than replacing it. A changed limit (plan change) starts over.
      if (!lease || lease.windowStart < windowStart || (lease.windowStart === windowStart && lease.limit !== limit)) {
        const size = leaseSize(limit);
        lease = { windowStart, limit, size, renewAt: size > 1 ? size / 4 : 0, available: 0, sharedTotal: 0, exhausted: false, pending: null };
        leases.set(key, lease);
      }
      for (;;) {
        if (lease.available > 0) {
          lease.available--;
          // A busy key renews its lease ahead of need, so requests do not queue behind the
          // statement; a failed renewal is retried when the lease is actually empty.
          if (lease.available < lease.renewAt && lease.pending === null && !lease.exhausted) renew(bucket, subject, lease, limit).catch(() => undefined);
          return { allowed: true, used: lease.sharedTotal - lease.available };
        }
        if (lease.exhausted) return { allowed: false, used: limit + 1 };
        await renew(bucket, subject, lease, limit);
      }
    },

    async countEdge(ip, windowStart) {
      const key = `${ip}\u0000${windowStart}`;
      let entry = edges.get(key);
      if (!entry) {
        entry = { ip, windowStart, unsent: 0, sharedCurrent: 0, sharedPrevious: 0, bannedUntilMs: null, synced: null };
        edges.set(key, entry);
        entry.synced = nextFlush();
      }
      entry.unsent++;
      if (entry.synced) await entry.synced;
      else scheduleFlush(FLUSH_MS);
      return { current: entry.sharedCurrent + entry.unsent, previous: entry.sharedPrevious, bannedUntilMs: entry.bannedUntilMs };
    },

    async ban(ip, untilMs) {
      await db.query(
        `INSERT INTO edge_bans (ip, banned_until) VALUES ($1, to_timestamp($2 / 1000.0))
         ON CONFLICT (ip) DO UPDATE SET banned_until = GREATEST(edge_bans.banned_until, EXCLUDED.banned_until)`,
        [ip, untilMs],
      );
    },

    async sweep(nowMs) {
      const oldest = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS - WINDOW_MS;
      for (const [key, lease] of leases) if (lease.windowStart < oldest) leases.delete(key);
      for (const [key, entry] of edges) if (entry.windowStart < oldest && entry.unsent === 0) edges.delete(key);
      await db.query('DELETE FROM rate_counters WHERE window_start < $1', [oldest]);
      await db.query('DELETE FROM edge_bans WHERE banned_until <= to_timestamp($1 / 1000.0)', [nowMs]);
    },

    async close() {
      if (flushTimer) clearTimeout(flushTimer);
      if ([...edges.values()].some((e) => e.unsent > 0)) await flush();
    },
  };
}
