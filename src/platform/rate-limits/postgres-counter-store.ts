// Counters shared by several server processes on one PostgreSQL. Each request costs one
// statement: an upsert of its counters that also returns the edge subject's previous window
// and any ban, so budgets and bans hold across processes without a second round trip.
import type { Queryable } from '../db/database.js';
import type { CounterStore } from './counter-store.js';

const INCREMENT_SQL = `
WITH bumped AS (
  INSERT INTO rate_counters AS c (bucket, subject, window_start, hits)
  SELECT b, s, w, 1 FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS t(b, s, w, n)
  ORDER BY n
  ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = c.hits + 1
  RETURNING c.bucket, c.subject, c.hits
)
SELECT bumped.bucket, bumped.hits,
  (SELECT p.hits FROM rate_counters p
    WHERE bumped.bucket = 'edge' AND p.bucket = 'edge' AND p.subject = bumped.subject AND p.window_start = $4) AS previous_hits,
  (SELECT (extract(epoch FROM e.banned_until) * 1000)::bigint FROM edge_bans e
    WHERE bumped.bucket = 'edge' AND e.ip = bumped.subject) AS banned_until_ms
FROM bumped`;

export function postgresCounterStore(db: Queryable): CounterStore {
  return {
    async increment(items, previousWindowStart) {
      const rows = await db.query<{ bucket: string; hits: number; previous_hits: number | null; banned_until_ms: number | null }>(
        INCREMENT_SQL,
        [items.map((i) => i.bucket), items.map((i) => i.subject), items.map((i) => i.windowStart), previousWindowStart],
      );
      const byBucket = new Map(rows.map((row) => [row.bucket, row]));
      const edge = byBucket.get('edge');
      return {
        hits: items.map((item) => byBucket.get(item.bucket)?.hits ?? 1),
        previousEdgeHits: edge?.previous_hits ?? 0,
        bannedUntilMs: edge?.banned_until_ms ?? null,
      };
    },
    async ban(ip, untilMs) {
      await db.query(
        `INSERT INTO edge_bans (ip, banned_until) VALUES ($1, to_timestamp($2 / 1000.0))
         ON CONFLICT (ip) DO UPDATE SET banned_until = GREATEST(edge_bans.banned_until, EXCLUDED.banned_until)`,
        [ip, untilMs],
      );
    },
    async sweep(nowMs) {
      await db.query('DELETE FROM rate_counters WHERE window_start < $1', [Math.floor(nowMs / 60_000) * 60_000 - 60_000]);
      await db.query('DELETE FROM edge_bans WHERE banned_until <= to_timestamp($1 / 1000.0)', [nowMs]);
    },
  };
}
