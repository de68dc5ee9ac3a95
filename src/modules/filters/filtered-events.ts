// The one way to query the corpus by filter (event search, beat backfill): the filters are
// normalized, compiled against live entities, their role code names looked up, and written as
// SQL; the answer counts and pages the events that satisfy any of them. Callers bring the
// scope and keep what is theirs (billing, cursors and executions; beat entries).
import type { Queryable } from '../../platform/db/database.js';
import { compileAll } from './entity-resolver.js';
import { SqlParams } from '../../platform/db/sql-params.js';
import { filterConditions, type FilterScope } from './filter-sql.js';
import { filterStore as store, type EventOrder, type EventPosition } from './filter.store.js';
import { normalizeFilter, type FilterInput } from './filter.js';

export type { EventOrder, EventPosition } from './filter.store.js';

/** Which reports count (received up to `countedUpTo`) and which events (first reported from `windowStart`). */
export type CorpusScope = Omit<FilterScope, 'roleIds'>;

export interface FilteredEvent extends EventPosition {
  happenedAt: string | null;
  /** The first of the filters, in the order given, that the event satisfies. */
  filterIndex: number;
}

export interface FilteredEvents {
  /** How many events satisfy any of the filters. */
  count(): Promise<number>;
  /** Up to `limit` of them after `after` (null: from the start) in `order`. */
  page(order: EventOrder, after: EventPosition | null, limit: number): Promise<FilteredEvent[]>;
  /** How many, and the first `limit` newest first, in one pass over them (a search's first page). */
  countAndNewest(limit: number): Promise<{ count: number; page: FilteredEvent[] }>;
  /** All of them in `order`, `size` at a time; stopping early (break) reads no further. */
  batches(order: EventOrder, size: number): AsyncGenerator<FilteredEvent[]>;
}

/**
 * The filters (as saved or sent) compiled against live entities, with the role ids of each
 * role code name they name: as literal values, role ids let the planner estimate a role
 * filter's selectivity, and the index in memory finds its role columns by them.
 */
export async function compileWithRoleIds(db: Queryable, filters: readonly FilterInput[]) {
  const compiled = await compileAll(
    db,
    filters.map((filter) => normalizeFilter(filter)),
  );
  const roleIds = await store.roleIds(db, [...new Set(compiled.flatMap((filter) => filter.roleFilters.map((rf) => rf.role)))]);
  return { compiled, roleIds };
}

/** The events that satisfy any of `filters` (as saved or sent: defaults fill what is omitted) within `scope`. */
export async function filteredEvents(db: Queryable, filters: readonly FilterInput[], scope: CorpusScope): Promise<FilteredEvents> {
  const { compiled, roleIds } = await compileWithRoleIds(db, filters);
  /** Each filter's conditions, written into the parameters of the query that carries them. */
  const anyOf = (params: SqlParams) => compiled.map((filter) => filterConditions(filter, params, { ...scope, roleIds }));

  type Row = { id: string; first_report_date: Date; happened_at: string | null };
  const filteredEvent = (row: Row, filterIndex: number): FilteredEvent => ({
    id: row.id,
    firstReportDate: row.first_report_date,
    happenedAt: row.happened_at,
    filterIndex,
  });

  async function page(order: EventOrder, after: EventPosition | null, limit: number): Promise<FilteredEvent[]> {
    if (compiled.length === 0) return [];
    const params = new SqlParams();
    const rows = await store.page(db, anyOf(params), params, order, after, limit);
    return rows.map((row) => filteredEvent(row, row.pos));
  }

  async function count(): Promise<number> {
    if (compiled.length === 0) return 0;
    const params = new SqlParams();
    return store.count(db, anyOf(params), params);
  }

  return {
    count,
    page,

    async countAndNewest(limit) {
      // One filter is one list of conditions; several (none) are counted and paged apart.
      if (compiled.length !== 1) return { count: await count(), page: await page('newest-first', null, limit) };
      const params = new SqlParams();
      const { total, rows } = await store.countAndNewest(db, anyOf(params)[0]!, params, limit);
      return { count: total, page: rows.map((row) => filteredEvent(row, 0)) };
    },

    async *batches(order, size) {
      let after: EventPosition | null = null;
      for (;;) {
        const batch = await page(order, after, size);
        if (batch.length === 0) return;
        yield batch;
        if (batch.length < size) return;
        after = batch[batch.length - 1]!;
      }
    },
  };
}
