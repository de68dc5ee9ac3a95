// SQL for event search: its executions (the queries over the corpus are the filter module's).
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/retention.js';
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
  deleteExpired(db: Queryable, before: Date): Promise<number> {
    return deleteInBatches(
      db,
      'DELETE FROM search_executions WHERE id IN (SELECT id FROM search_executions WHERE expires_at < $2 LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING 1',
      [before],
    );
  },
};
