// SQL for event search: its executions (the queries over the corpus are the filter module's).
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/retention.js';
import type { SqlParams } from '../../platform/db/sql-params.js';
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
  /** The execution's INSERT, written into `params`, for the statement that charges it (chargeSearch): it writes only FROM `spent`. */
  insertExecutionIfSpent(params: SqlParams, row: ExecutionRow): string {
    const values = [
      params.add(row.id, '::uuid'),
      params.add(row.account_id, '::uuid'),
      params.add(row.api_key_id, '::uuid'),
      params.add(JSON.stringify(row.filter), '::jsonb'),
      params.add(row.window_start, '::timestamptz'),
      params.add(row.executed_at, '::timestamptz'),
      params.add(row.report_seq, '::bigint'),
      params.add(row.expires_at, '::timestamptz'),
      params.add(row.total_count, '::int'),
      params.add(row.max_results, '::int'),
      params.add(row.credits, '::int'),
    ];
    return `INSERT INTO search_executions (id, account_id, api_key_id, filter, window_start, executed_at, report_seq, expires_at, total_count, max_results, credits)
            SELECT ${values.join(', ')} FROM spent`;
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
