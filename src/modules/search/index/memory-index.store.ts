// SQL of the in-memory search index (memory-index.ts, memory-index-sync.ts): the events'
// facts as the filter's SQL face reads them, the change log (migration 019) and its purge
// (purgeSearchLog, the sweeper's).
import type { Queryable } from '../../../platform/db/database.js';
import type { SqlParams } from '../../../platform/db/sql-params.js';
import { addTo } from '../../../platform/set-maps.js';
import { ENTITIES_NOT_SURVIVORS, liveSurvivors } from '../../corpus/event-entities.js';
import { RECEIVED_UP_TO } from '../../corpus/event-view.js';
import { roleValuesWhere } from '../../corpus/reports.store.js';
import { type GroupedReport, independentSourceCount } from '../../corpus/independent-sources.js';
import type { IndexedEvent } from './indexed-event.js';

/** Where a snapshot stands in the change log. */
export interface LogPosition {
  /** The snapshot's xmin: every transaction below it had ended. */
  xmin: bigint;
  /** The transactions at or above xmin whose rows the snapshot saw. */
  seen: bigint[];
}

/** A snapshot's view of the log since `after`: the changed events, and where it leaves the log. */
export interface LogRead {
  position: LogPosition;
  /**
   * The last receive-sequence value handed out, read in the snapshot; null on a standby, whose
   * sequence runs up to 32 values ahead of the primary's (values logged before they are handed
   * out): the caller reads it on the primary after the snapshot (receivedUpTo).
   */
  countedUpTo: number | null;
  changed: string[];
  /** The log was purged past `after`: rows may be missing, so the index must be rebuilt. */
  purgedPast: boolean;
  /**
   * The snapshot has not seen all that `after`'s had (nothing else is read then): the log rows
   * of a transaction `after` saw (those the sweep keeps) are not visible in it, or, on the
   * primary, its xmin is below `after`'s. Asked of the rows: on a standby,
   * pg_visible_in_snapshot() counts every transaction below the snapshot's xmax as ended. A
   * standby that has replayed the primary's position is never behind a snapshot taken before (a
   * commit is visible only once its record is flushed); the primary can be, for a moment, behind
   * a standby's: a commit whose record is flushed (and replayed) is visible on the primary only
   * once the committing backend has gone on, after a synchronous standby's answer if there is one.
   */
  behind: boolean;
}

const toXids = (values: readonly bigint[]) => values.map(String);

export const memoryIndexStore = {
  /**
   * Reads what changed since `after` (null: only where the log stands, before a build), in one
   * statement: its snapshot, or the caller's REPEATABLE READ transaction's when it is the first.
   * On a standby too: see `LogRead.behind` and `countedUpTo`.
   */
  async readLog(db: Queryable, after: LogPosition | null): Promise<LogRead> {
    const rows = await db.query<{
      xmin: string;
      seq: number | null;
      recovering: boolean;
      behind: boolean;
      purged_below: string;
      xid: string | null;
      event_id: string | null;
    }>(
      `WITH snap AS (SELECT pg_current_snapshot() AS s, pg_is_in_recovery() AS recovering),
            head AS (SELECT pg_snapshot_xmin(s) AS xmin, recovering,
                            CASE WHEN NOT recovering THEN ${RECEIVED_UP_TO} END AS seq,
                            COALESCE(NOT recovering AND pg_snapshot_xmin(s) < $1::text::xid8, false)
                              OR EXISTS (SELECT FROM unnest($2::text[]::xid8[]) x
                                          WHERE x >= pg_snapshot_xmin(s) AND x >= (SELECT purged_below FROM event_search_log_horizon)
                                            AND NOT EXISTS (SELECT FROM event_search_log l WHERE l.xid = x)) AS behind,
                            (SELECT purged_below FROM event_search_log_horizon) AS purged_below
                       FROM snap)
       SELECT h.xmin::text AS xmin, h.seq, h.recovering, h.behind, h.purged_below::text AS purged_below, l.xid::text AS xid, l.event_id
         FROM head h
         LEFT JOIN LATERAL (SELECT DISTINCT xid, event_id FROM event_search_log
                             WHERE NOT h.behind AND xid >= COALESCE($1::text::xid8, h.xmin) AND NOT (xid = ANY($2::text[]::xid8[]))) l ON true`,
      [after === null ? null : String(after.xmin), toXids(after?.seen ?? [])],
    );
    const head = rows[0]!;
    const xmin = BigInt(head.xmin);
    const from = after ?? { xmin, seen: [] };
    const changes = rows.filter((row) => row.xid !== null) as { xid: string; event_id: string }[];
    const seen = new Set(from.seen.filter((xid) => xid >= xmin));
    for (const row of changes) {
      const xid = BigInt(row.xid);
      if (xid >= xmin) seen.add(xid);
    }
    return {
      position: { xmin, seen: [...seen] },
      countedUpTo: head.recovering ? null : (head.seq ?? 0),
      changed: after === null ? [] : [...new Set(changes.map((row) => row.event_id))],
      purgedPast: BigInt(head.purged_below) > from.xmin,
      behind: head.behind,
    };
  },

  /**
   * What a saved index is checked against: the database's index epoch (migration 020) and the
   * xmin of a snapshot now (a saved position past it was read from another database's clock).
   */
  async identity(db: Queryable): Promise<{ epoch: string; xmin: bigint }> {
    const [row] = await db.query<{ epoch: string; xmin: string }>(
      'SELECT index_epoch::text AS epoch, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin FROM event_search_log_horizon',
    );
    return { epoch: row!.epoch, xmin: BigInt(row!.xmin) };
  },

  /** The facts of these events; events gone (merged, deleted) are absent. */
  async eventsByIds(tx: Queryable, ids: readonly string[]): Promise<IndexedEvent[]> {
    if (ids.length === 0) return [];
    // In the catch-up's transaction: one connection, so one statement after another.
    return readFacts(
      tx,
      'e.id = ANY($1::uuid[])',
      [ids],
      (alias) => `${alias}.event_id = ANY($1::uuid[])`,
      () => [ids],
      'one-by-one',
    );
  },

  /** Up to `limit` live events after `afterId` by id, with their facts (a build, one chunk at a time). */
  async eventsAfter(tx: Queryable, afterId: string | null, limit: number): Promise<IndexedEvent[]> {
    // The index rows of the chunk's id range, read by range (the rows of events merged or
    // deleted within it are left out after): much faster than a look-up per id.
    const rows = (alias: string) => `${alias}.event_id BETWEEN $1::uuid AND $2::uuid`;
    const range = (ids: readonly string[]) => [ids[0], ids[ids.length - 1]];
    return afterId === null
      ? readFacts(tx, 'TRUE ORDER BY e.id LIMIT $1', [limit], rows, range, 'at-once')
      : readFacts(tx, 'e.id > $2::uuid ORDER BY e.id LIMIT $1', [limit, afterId], rows, range, 'at-once');
  },

  /**
   * Moves the horizon when the xmin noted last time was noted before `at.notedBefore`: it
   * becomes `purged_below`, and today's xmin is noted at `at.now`. Without `at`, the database's
   * own time, an hour: the margin is for processes catching up in real time, and for a process
   * stopped a while (a deploy, a restart) to load its saved index and catch up rather than
   * build it, so a test clock moved ahead must not shorten it. Answers `purged_below`, for the deletion.
   */
  async moveHorizon(db: Queryable, at: { now: Date; notedBefore: Date } | null): Promise<string> {
    const [row] = await db.query<{ purged_below: string }>(
      `WITH due AS (SELECT noted_at <= COALESCE($2::timestamptz, now() - interval '1 hour') AS moves FROM event_search_log_horizon)
       UPDATE event_search_log_horizon
          SET purged_below = CASE WHEN due.moves THEN noted_xmin ELSE purged_below END,
              noted_xmin = CASE WHEN due.moves THEN pg_snapshot_xmin(pg_current_snapshot()) ELSE noted_xmin END,
              noted_at = CASE WHEN due.moves THEN COALESCE($1::timestamptz, now()) ELSE noted_at END
         FROM due
       RETURNING purged_below::text AS purged_below`,
      [at?.now ?? null, at?.notedBefore ?? null],
    );
    return row!.purged_below;
  },

  /** Deletes up to `limit` log rows below `below`: answers one row per row deleted. */
  deleteBelow(db: Queryable, limit: number, below: string) {
    return db.query(`DELETE FROM event_search_log WHERE ctid = ANY(ARRAY(SELECT ctid FROM event_search_log WHERE xid < $2::text::xid8 LIMIT $1)) RETURNING 1`, [
      limit,
      below,
    ]);
  },
};

/**
 * The events (SQL, a SELECT of one uuid column, written into `params`) that a transaction the
 * snapshot at `position` did not see changed: what an index caught up to there does not know yet.
 */
export function changedSinceSql(position: LogPosition, params: SqlParams): string {
  return `SELECT l.event_id FROM event_search_log l
           WHERE l.xid >= ${params.add(String(position.xmin), '::text::xid8')} AND NOT (l.xid = ANY(${params.add(toXids(position.seen), '::text[]::xid8[]')}))`;
}

/** Rows deleted per statement, and statements per sweep: a bulk load writes several rows per event. */
const PURGE_BATCH = 10_000;
const PURGE_BATCHES = 100;

/**
 * The change log's sweep (once a minute), in two steps an hour apart by the database's
 * clock (or at `at`, for tests): the horizon moves to the xmin noted last time, then the rows
 * below it are deleted, in short statements. Answers the rows deleted.
 */
export async function purgeSearchLog(db: Queryable, at: { now: Date; notedBefore: Date } | null = null): Promise<number> {
  const below = await memoryIndexStore.moveHorizon(db, at);
  let deleted = 0;
  for (let batch = 0; batch < PURGE_BATCHES; batch++) {
    const rows = (await memoryIndexStore.deleteBelow(db, PURGE_BATCH, below)).length;
    deleted += rows;
    if (rows < PURGE_BATCH) break;
  }
  return deleted;
}

/**
 * The live events `where` selects (over `e`, with its own ORDER BY and LIMIT), with their facts
 * from the index rows `rows(alias)` selects with `rowParams(ids)`: at least theirs (others are
 * left out).
 */
async function readFacts(
  tx: Queryable,
  where: string,
  params: readonly unknown[],
  rows: (alias: string) => string,
  rowParams: (ids: readonly string[]) => readonly unknown[],
  order: 'at-once' | 'one-by-one',
): Promise<IndexedEvent[]> {
  const events = await tx.query<{ id: string; event_type_id: string; us: number; sources: number; involved: string[] }>(
    `SELECT e.id, e.event_type_id, (extract(epoch FROM e.first_report_date) * 1000000)::float8 AS us, cardinality(e.source_seqs) AS sources,
            e.involved_entity_ids AS involved
       FROM events e WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AND ${where}`,
    params,
  );
  if (events.length === 0) return [];
  const ids = rowParams(events.map((e) => e.id));
  // The entities from the events' rows, through their survivors: the few entities that are not
  // their own (merged or deleted) read whole, the rest as they are (a look-up each, in SQL,
  // cost a build of a million events half a minute). The participants from their rows, by the
  // same condition on the event id.
  const readNotSurvivors = () => tx.query<{ id: string; survivor: string | null }>(ENTITIES_NOT_SURVIVORS);
  const readParticipants = () =>
    tx.query<{ event_id: string; entity_id: string }>(`SELECT event_id, entity_id FROM event_participants p WHERE ${rows('p')}`, ids);
  // Sources and role values from the reports themselves, not through the views of the same
  // names (migration 037), which look up each report's event to keep the live ones: the rows
  // of events not live are dropped below.
  const readSources = () =>
    tx.query<{ event_id: string; source_id: string; source_kind: string }>(
      `SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id, r.source_kind FROM reports r WHERE ${rows('r')} GROUP BY 1, 2, 3`,
      ids,
    );
  const readValues = () =>
    tx.query<{
      event_id: string;
      role_id: string;
      source_kind: string;
      entity_id: string | null;
      date_ms: number | null;
      amount_value: number | null;
      amount_unit: string | null;
    }>(
      `SELECT event_id, role_id, source_kind, entity_id, (extract(epoch FROM date_value) * 1000)::float8 AS date_ms, amount_value, amount_unit
         FROM (${roleValuesWhere(rows('r'))}) AS v`,
      ids,
    );
  // The reports of the events where two share a copy group (only their independent sources
  // differ from their distinct ones).
  const readCopies = () =>
    tx.query<{ event_id: string; grp: string; source: string; source_kind: string; us: number; seq: number }>(
      `SELECT r.event_id, COALESCE(r.copy_group, r.received_seq)::text AS grp, COALESCE(r.outlet_id, r.account_id, r.id) AS source, r.source_kind,
              (extract(epoch FROM r.report_date) * 1000000)::float8 AS us, r.received_seq AS seq
         FROM reports r WHERE ${rows('r')} AND r.event_id IN (SELECT c.event_id FROM reports c WHERE ${rows('c')} AND c.copy_group IS NOT NULL)`,
      ids,
    );
  // At once from a pool: on PostgreSQL, five connections. A transaction's one connection
  // takes one statement at a time (pg deprecates a query sent while another runs).
  const [notSurvivors, participants, sources, values, copies] =
    order === 'at-once'
      ? await Promise.all([readNotSurvivors(), readParticipants(), readSources(), readValues(), readCopies()])
      : [await readNotSurvivors(), await readParticipants(), await readSources(), await readValues(), await readCopies()];
  const byId = new Map<string, IndexedEvent>(
    events.map((e) => [
      e.id,
      {
        id: e.id,
        typeId: e.event_type_id,
        firstReportUs: e.us,
        sources: e.sources,
        articleSources: 0,
        structuredSources: 0,
        independent: 0,
        articleIndependent: 0,
        entities: [],
        outlets: [],
        values: [],
      },
    ]),
  );
  const participantsOf = new Map<string, Set<string>>();
  for (const row of participants) addTo(participantsOf, row.event_id, row.entity_id);
  const survivorOf = new Map(notSurvivors.map((row) => [row.id, row.survivor]));
  for (const event of events) {
    const entities = byId.get(event.id)!.entities;
    const taking = participantsOf.get(event.id);
    for (const entityId of liveSurvivors(event.involved, survivorOf)) entities.push({ entityId, participant: taking?.has(entityId) ?? false });
  }
  for (const row of sources) {
    const event = byId.get(row.event_id);
    if (!event) continue;
    if (row.source_kind === 'ARTICLE') {
      event.articleSources++;
      event.outlets.push(row.source_id);
    } else if (row.source_kind === 'STRUCTURED') event.structuredSources++;
  }
  const grouped = new Map<string, (GroupedReport & { article: boolean })[]>();
  for (const row of copies) {
    const list = grouped.get(row.event_id) ?? grouped.set(row.event_id, []).get(row.event_id)!;
    list.push({ group: row.grp, sourceId: row.source, date: row.us, seq: Number(row.seq), article: row.source_kind === 'ARTICLE' });
  }
  for (const event of byId.values()) {
    const reports = grouped.get(event.id);
    event.independent = reports ? independentSourceCount(reports) : event.sources;
    event.articleIndependent = reports ? independentSourceCount(reports.filter((r) => r.article)) : event.articleSources;
  }
  for (const row of values) {
    byId.get(row.event_id)?.values.push({
      roleId: row.role_id,
      structured: row.source_kind === 'STRUCTURED',
      entityId: row.entity_id,
      dateMs: row.date_ms,
      amount: row.amount_value,
      unit: row.amount_unit,
    });
  }
  return [...byId.values()];
}
