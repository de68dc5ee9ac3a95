// SQL for event search: executions, and the page and count queries over the filter's SQL face.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import type { SqlParams } from '../filters/filter-sql.js';
import type { EventFilter } from '../filters/filter.js';

export interface ExecutionRow {
  id: string;
  account_id: string;
  api_key_id: string;
  filter: EventFilter;
  window_start: Date;
  executed_at: Date;
  report_seq: number;
  expires_at: Date;
  total_count: number;
  max_results: number;
  credits: number;
}

/** A position in search order: events strictly after it come next. */
export interface SearchPosition {
  firstReportDate: Date;
  id: string;
}

export const searchStore = {
  insertExecution(db: Queryable, row: ExecutionRow) {
    return db.query(
      `INSERT INTO search_executions (id, account_id, api_key_id, filter, window_start, executed_at, report_seq, expires_at, total_count, max_results, credits)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.id,
        row.account_id,
        row.api_key_id,
        JSON.stringify(row.filter),
        row.window_start,
        row.executed_at,
        row.report_seq,
        row.expires_at,
        row.total_count,
        row.max_results,
        row.credits,
      ],
    );
  },

  getExecution(db: Queryable, id: string) {
    return queryOne<ExecutionRow>(
      db,
      'SELECT id, account_id, api_key_id, filter, window_start, executed_at, report_seq, expires_at, total_count, max_results, credits FROM search_executions WHERE id = $1',
      [id],
    );
  },

  /** Deletes executions expired before `before` (their cursors are answered 410 from the cursor alone). */
  async deleteExpired(db: Queryable, before: Date) {
    await db.query('DELETE FROM search_executions WHERE expires_at < $1', [before]);
  },

  /** Ids of the next matching events after `after`, newest first reported first, ties by id descending. */
  async page(db: Queryable, conditions: string[], params: SqlParams, after: SearchPosition | null, limit: number) {
    const where = [...conditions];
    if (after) where.push(`(e.first_report_date, e.id) < (${params.add(after.firstReportDate, '::timestamptz')}, ${params.add(after.id, '::uuid')})`);
    return db.query<{ id: string; first_report_date: Date }>(
      `SELECT e.id, e.first_report_date FROM events e WHERE ${where.join(' AND ')}
        ORDER BY e.first_report_date DESC, e.id DESC LIMIT ${params.add(limit, '::int')}`,
      params.values,
    );
  },

  async count(db: Queryable, conditions: string[], params: SqlParams) {
    const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM events e WHERE ${conditions.join(' AND ')}`, params.values);
    return row?.n ?? 0;
  },

  /** The ids of the roles (of any event type, removed ones too) with these code names. */
  async roleIds(db: Queryable, codeNames: readonly string[]) {
    const ids = new Map<string, string[]>(codeNames.map((code) => [code, []]));
    if (codeNames.length === 0) return ids;
    const rows = await db.query<{ id: string; code_name: string }>('SELECT id, code_name FROM event_type_roles WHERE code_name = ANY($1::text[])', [codeNames]);
    for (const row of rows) ids.get(row.code_name)!.push(row.id);
    return ids;
  },
};
