// SQL of the queries over the corpus by filter (filtered-events.ts): the role ids that make
// role filters plannable, the count, and pages in report order. Conditions come from the SQL
// face (filter-sql.ts), one list per filter, written into the same parameters.
import { queryOne, type Queryable } from '../../platform/db/database.js';
import type { SqlParams } from '../../platform/db/sql-params.js';

/** Report order: event search reads newest first, beat backfill oldest first; ties by id. */
export type EventOrder = 'newest-first' | 'oldest-first';

/** A position in report order: the events strictly after it come next. */
export interface EventPosition {
  firstReportDate: Date;
  id: string;
}

/** A position to the microsecond (the first report date's, since the epoch), as an index holds it. */
export interface ExactPosition {
  id: string;
  firstReportUs: number;
}

/** A page's stretch of report order: after one position (null: from the start), through another (null: to the end). */
export interface PageRange {
  after: ExactPosition | null;
  through: ExactPosition | null;
}

/** A microsecond time as timestamptz text: a Date would cut it to the millisecond. */
function timestampOfUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = String(Math.round(us - ms * 1000)).padStart(3, '0');
  return new Date(ms).toISOString().replace('Z', `${micros}Z`);
}

export const filterStore = {
  /** The ids of the roles (of any event type, removed ones too) with these code names. */
  async roleIds(db: Queryable, codeNames: readonly string[]) {
    const ids = new Map<string, string[]>(codeNames.map((code) => [code, []]));
    if (codeNames.length === 0) return ids;
    const rows = await db.query<{ id: string; code_name: string }>('SELECT id, code_name FROM event_type_roles WHERE code_name = ANY($1::text[])', [codeNames]);
    for (const row of rows) ids.get(row.code_name)!.push(row.id);
    return ids;
  },

  /** How many events satisfy any of the filters' conditions. */
  async count(db: Queryable, anyOf: readonly string[][], params: SqlParams) {
    const where = anyOf.map((conditions) => `(${conditions.join(' AND ')})`).join(' OR ');
    const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM events e WHERE ${where}`, params.values);
    return row?.n ?? 0;
  },

  /**
   * How many events satisfy the conditions, and the first `limit` of them newest first, in one
   * pass over the matches: a search's count and first page, which would each visit every
   * match. The matches are kept as (id, first report date); only the page's rows are read
   * again.
   */
  async countAndNewest(db: Queryable, conditions: readonly string[], params: SqlParams, limit: number) {
    const rows = await db.query<{ total: number; id: string | null; first_report_date: Date; happened_at: string | null }>(
      `WITH matched AS MATERIALIZED (SELECT e.id, e.first_report_date FROM events e WHERE ${conditions.join(' AND ')})
       SELECT t.total, p.id, p.first_report_date, e.happened_at
         FROM (SELECT count(*)::int AS total FROM matched) t
         LEFT JOIN LATERAL (SELECT id, first_report_date FROM matched ORDER BY first_report_date DESC, id DESC LIMIT ${params.add(limit, '::int')}) p ON true
         LEFT JOIN events e ON e.id = p.id
        ORDER BY p.first_report_date DESC, p.id DESC`,
      params.values,
    );
    return { total: rows[0]?.total ?? 0, rows: rows.filter((row) => row.id !== null) as { id: string; first_report_date: Date; happened_at: string | null }[] };
  },

  /**
   * The next events after `after` in `order` that satisfy any of the filters' conditions;
   * `pos` is the first filter each satisfies. Each filter's branch reads only as far as the
   * page goes, so a filter's own index look-ups stay bounded.
   */
  page(db: Queryable, anyOf: readonly string[][], params: SqlParams, order: EventOrder, range: PageRange, limit: number) {
    const [beyond, within, direction] = order === 'newest-first' ? ['<', '>=', ' DESC'] : ['>', '<=', ''];
    const position = (at: ExactPosition) => `(${params.add(timestampOfUs(at.firstReportUs), '::timestamptz')}, ${params.add(at.id, '::uuid')})`;
    const bound: string[] = [];
    if (range.after) bound.push(`(e.first_report_date, e.id) ${beyond} ${position(range.after)}`);
    if (range.through) bound.push(`(e.first_report_date, e.id) ${within} ${position(range.through)}`);
    const n = params.add(limit, '::int');
    const branches = anyOf.map(
      (conditions, pos) =>
        `(SELECT e.id, e.first_report_date, e.happened_at, ${pos} AS pos FROM events e WHERE ${[...conditions, ...bound].join(' AND ')}
           ORDER BY e.first_report_date${direction}, e.id${direction} LIMIT ${n})`,
    );
    type Row = { id: string; first_report_date: Date; happened_at: string | null; pos: number };
    // One filter (a search) is its own branch: nothing to merge.
    if (branches.length === 1) return db.query<Row>(branches[0]!.slice(1, -1), params.values);
    return db.query<Row>(
      `SELECT id, first_report_date, happened_at, min(pos)::int AS pos FROM (${branches.join(' UNION ALL ')}) m
        GROUP BY id, first_report_date, happened_at ORDER BY first_report_date${direction}, id${direction} LIMIT ${n}`,
      params.values,
    );
  },
};
