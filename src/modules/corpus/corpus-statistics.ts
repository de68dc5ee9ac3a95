// A bulk load grows the corpus tables far faster than autovacuum's analyze follows them (and
// the embedded database has no autovacuum at all): statements planned on the statistics of a
// much smaller table scan whole tables. So after a bulk batch, once the reports added since the
// last ANALYZE reach what the table held then (and at least MIN_ADDED), this process analyzes
// the corpus tables: at each doubling. No more often: the planner scales a table's row counts
// by its current size (its pages, at the density the last ANALYZE saw), and an ANALYZE costs
// the embedded database's one connection half a second at only 30,000 reports. Each process
// counts its own; several loading at once analyze more often, which costs time, not
// correctness.
//
// The batch that crosses the threshold does not wait for the ANALYZE, and one runs at a time:
// on PostgreSQL it runs on another connection while the next batch loads (on the embedded
// database, the next batch waits behind it in the one connection's queue). Statistics are an
// optimisation: a failed ANALYZE (the database going away, say) is logged and dropped, and the
// reports it would have counted count towards the next one.
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';

const TABLES = 'reports, events, event_participants';
const MIN_ADDED = 5_000;
const GROWTH = 1;

export function corpusStatistics(db: Database, logger: Logger) {
  let analyzedAt: number | null = null; // reports the statistics counted at the last ANALYZE
  let added = 0;
  let analyzing = false;
  const reports = async () =>
    (await db.query<{ n: number }>(`SELECT GREATEST(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'reports'::regclass`))[0]?.n ?? 0;

  async function analyze(count: number): Promise<void> {
    try {
      await db.query(`ANALYZE ${TABLES}`);
      analyzedAt = await reports();
    } catch (error) {
      logger.warn({ err: error }, 'analyze of the corpus tables failed; the next batch tries again');
      added += count; // counted again towards the next one
    } finally {
      analyzing = false;
    }
  }

  return {
    /** Told after a batch committed `count` new reports; starts an ANALYZE when they add up. */
    async added(count: number): Promise<void> {
      added += count;
      analyzedAt ??= await reports();
      if (analyzing || added < Math.max(MIN_ADDED, analyzedAt * GROWTH)) return;
      const counted = added;
      added = 0;
      analyzing = true;
      void analyze(counted); // not awaited: the batch goes on (analyze catches its own failures)
    },
  };
}
