// Counting the widest searches from event_day_counts (migration 018): live events by type,
// UTC day of first report and distinct sources, kept by triggers in the transaction of every
// change to `events`. A search with no filter, or only a type and min_reports, counts the
// whole days of its window from those rows and visits only the events of the window's first,
// partial day, instead of every event in the window.
//
// The count and the cut-off are read in one statement: its snapshot holds exactly the changes
// committed before it began, each of whose reports took its receive-sequence value earlier,
// so all of them are at or below the sequence's last value read during the statement. The
// count is then the SQL face's count at that cut-off (filters/filter-sql.ts: source_seqs[N] <= cut-off
// for a committed event is N <= its distinct sources), less only reports still uncommitted,
// which that face leaves out too.
import type { Database, Queryable } from '../../../platform/db/database.js';
import { RECEIVED_UP_TO } from '../../corpus/event-view.js';
import type { EventFilter } from '../../filters/filter.js';
import type { EventPosition } from '../../filters/filter.store.js';
import { DAY_MS } from '../../../platform/clock.js';

/** Distinct sources are counted up to this many; min_reports above it visits the events. */
export const SOURCES_CAP = 8;
/** The null type (all types) as a value a hash join can compare. */
const ALL_TYPES = `'00000000-0000-0000-0000-000000000000'::uuid`;

/** Whether `filter` is one the day counts answer: no entity, list, outlet or role condition, every source kind, min_reports within the cap, no independent minimum. */
export function countableByDay(filter: EventFilter): boolean {
  return (
    filter.involved_entity_ids.length === 0 &&
    filter.involved_entity_list_ids.length === 0 &&
    filter.required_source_news_outlet_ids.length === 0 &&
    filter.role_filters.length === 0 &&
    filter.report_source_kind === 'ANY' &&
    filter.min_reports <= SOURCES_CAP &&
    filter.min_independent_sources <= 1
  );
}

/**
 * The live events of `filter` (countableByDay) first reported at or after `windowStart`, the
 * cut-off they were counted at (the last receive-sequence value handed out), and the newest
 * `limit` of them, ties by id, in the same statement: the page is read in the count's snapshot,
 * where the events with at least min_reports sources are exactly those the SQL face finds at
 * the cut-off (above). One statement, not two, for the widest searches: on the embedded
 * database each costs about 0.7 ms before it reads anything.
 */
export async function countByDay(
  db: Queryable,
  filter: EventFilter,
  windowStart: Date,
  limit: number,
): Promise<{ countedUpTo: number; count: number; newest: EventPosition[] }> {
  const nextDay = new Date(Math.floor(windowStart.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const type = filter.event_type_id;
  const counted = `e.merged_into_event_id IS NULL AND e.deleted_at IS NULL${type === null ? '' : ' AND e.event_type_id = $6::uuid'}
                   AND e.first_report_date >= $1 AND cardinality(e.source_seqs) >= $4`;
  const rows = await db.query<{ seq: number | null; whole_days: number; first_day: number; id: string | null; first_report_date: Date | null }>(
    `SELECT c.seq, c.whole_days, c.first_day, p.id, p.first_report_date
       FROM (SELECT ${RECEIVED_UP_TO} AS seq,
                    (SELECT COALESCE(sum(d.n), 0)::bigint FROM event_day_counts d
                      WHERE d.event_type_id ${type === null ? 'IS NULL' : '= $6::uuid'} AND d.day >= $3::date AND d.sources >= $4) AS whole_days,
                    (SELECT count(*) FROM events e WHERE ${counted} AND e.first_report_date < $2) AS first_day) c
       LEFT JOIN LATERAL (SELECT e.id, e.first_report_date FROM events e WHERE ${counted}
                           ORDER BY e.first_report_date DESC, e.id DESC LIMIT $5::int) p ON true
      ORDER BY p.first_report_date DESC, p.id DESC`,
    [windowStart, nextDay, nextDay.toISOString().slice(0, 10), filter.min_reports, limit, ...(type === null ? [] : [type])],
  );
  const [row] = rows;
  return {
    countedUpTo: row?.seq ?? 0,
    count: Number(row!.whole_days) + Number(row!.first_day),
    newest: rows.flatMap((r) => (r.id === null ? [] : [{ id: r.id, firstReportDate: r.first_report_date! }])),
  };
}

/** The advisory lock one fold at a time holds (any 64-bit number no other lock uses). */
const FOLD_LOCK = 0x6576_6d6f_6e18;

/**
 * Folds the deltas of up to 10,000 keys, with the key's folded row, into one folded row (a
 * sweep, once a minute); answers the deltas folded. The keys are read from the index of deltas
 * alone (migration 021): with nothing to fold, a fold reads nothing else. Deltas written
 * meanwhile are not seen by the DELETE and stay for the next fold. One fold runs at a time: two
 * at once (worker processes sharing PostgreSQL) would lock the same rows in different orders
 * and one would die of a deadlock; a process that finds the lock taken skips.
 */
export async function foldDayCounts(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    const [lock] = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS got', [FOLD_LOCK]);
    if (!lock?.got) return 0;
    const [row] = await tx.query<{ deltas: number }>(
      `WITH keys AS (SELECT DISTINCT event_type_id, day, sources FROM event_day_counts WHERE delta LIMIT 10000),
            gone AS (DELETE FROM event_day_counts c USING keys k
                      WHERE COALESCE(c.event_type_id, ${ALL_TYPES}) = COALESCE(k.event_type_id, ${ALL_TYPES}) AND c.day = k.day AND c.sources = k.sources
                     RETURNING c.event_type_id, c.day, c.sources, c.n, c.delta),
            folded AS (INSERT INTO event_day_counts (event_type_id, day, sources, n, delta)
                       SELECT event_type_id, day, sources, sum(n), false FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0)
       SELECT (SELECT count(*) FROM gone WHERE delta)::int AS deltas`, // `folded` runs unread, as every data-modifying WITH does
    );
    return row?.deltas ?? 0;
  });
}
