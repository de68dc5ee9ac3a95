// The one way to query the corpus by filter (event search, beat backfill): the filters are
// normalized, compiled against live entities, their role code names looked up, and written as
// SQL; the answer counts and pages the events that satisfy any of them. Callers bring the
// scope and keep what is theirs (billing, cursors and executions; beat entries).
import type { Queryable } from '../../platform/db/database.js';
import { compileAll } from './entity-resolver.js';
import { SqlParams } from '../../platform/db/sql-params.js';
import { filterConditions, type FilterScope } from './filter-sql.js';
import { filterStore as store, type EventOrder, type EventPosition, type ExactPosition, type PageRange } from './filter.store.js';
import { type CompiledFilter, normalizeFilter, type FilterInput } from './filter.js';

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

/** A continuation's candidates from the search index in memory (search/index/memory-index-sync.ts). */
export interface IndexCandidates {
  /** The first events in the order asked after the position asked, as the index holds them now. */
  matches: ExactPosition[];
  /** The events changed since the index's snapshot: SQL, a SELECT of their ids, written into `params`. */
  changedSince(params: SqlParams): string;
}

/**
 * Where pages find their candidates when an index can give them: it holds, of the events in
 * any order after any position, every one that satisfies a filter at a cut-off (reports
 * received up to it) at or before its snapshot, and maybe more; null when it cannot answer.
 */
export interface CandidateSource {
  candidates(
    filters: readonly CompiledFilter[],
    roleIds: ReadonlyMap<string, readonly string[]>,
    windowStart: Date | null,
    order: EventOrder,
    after: ExactPosition | null,
    limit: number,
  ): Promise<IndexCandidates | null>;
}

/** Candidates asked for beyond a page's events, for those its cut-off turns away; doubled each time a batch falls short. */
const CANDIDATE_SLACK = 16;

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

/**
 * The events that satisfy any of `filters` (as saved or sent: defaults fill what is omitted)
 * within `scope`. Given `index`, pages check its candidates in SQL, by id, instead of finding
 * them there (where it cannot answer, they read SQL alone): the same events, found without
 * walking the tables' indexes over the whole window.
 */
export async function filteredEvents(db: Queryable, filters: readonly FilterInput[], scope: CorpusScope, index?: CandidateSource): Promise<FilteredEvents> {
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

  /** The SQL face's page: up to `limit` events in `order` after `range.after`, and through `range.through` when given; `among` narrows every filter's conditions. */
  async function sqlPage(order: EventOrder, range: PageRange, limit: number, among?: (params: SqlParams) => string): Promise<FilteredEvent[]> {
    const params = new SqlParams();
    const narrowed = among ? among(params) : null;
    const conditions = anyOf(params).map((each) => (narrowed ? [...each, narrowed] : each));
    const rows = await store.page(db, conditions, params, order, range, limit);
    return rows.map((row) => filteredEvent(row, row.pos));
  }

  /**
   * A page from the index's candidates, checked in SQL by id, batch by batch: each batch's
   * candidates, with the events changed since the index's snapshot, between the last batch's
   * end and its own (through its last candidate when more may follow). Null when the index
   * cannot answer.
   */
  async function indexedPage(source: CandidateSource, order: EventOrder, after: ExactPosition | null, limit: number): Promise<FilteredEvent[] | null> {
    const found: FilteredEvent[] = [];
    let from = after;
    for (let batch = limit + CANDIDATE_SLACK; ; batch *= 2) {
      const candidates = await source.candidates(compiled, roleIds, scope.windowStart ?? null, order, from, batch);
      if (candidates === null) {
        // The index was set aside meanwhile (its log purged past it): SQL finds the rest.
        if (found.length === 0) return null;
        return [...found, ...(await sqlPage(order, { after: from, through: null }, limit - found.length))];
      }
      const { matches } = candidates;
      const through = matches.length === batch ? matches[batch - 1]! : null;
      const ids = matches.map((match) => match.id);
      // One array of ids, made before the events are read: the planner reads them by primary key
      // (with an OR of the two, it would walk every event of the window instead).
      const among = (params: SqlParams) => `e.id = ANY(ARRAY(SELECT unnest(${params.add(ids, '::uuid[]')}) UNION ${candidates.changedSince(params)}))`;
      found.push(...(await sqlPage(order, { after: from, through }, limit - found.length, among)));
      if (found.length >= limit || through === null) return found;
      from = through;
    }
  }

  async function page(order: EventOrder, after: EventPosition | null, limit: number): Promise<FilteredEvent[]> {
    if (compiled.length === 0 || limit <= 0) return [];
    // A cursor's position is in milliseconds; the database compares it as the microsecond it names.
    const from = after && { id: after.id, firstReportUs: after.firstReportDate.getTime() * 1000 };
    const indexed = index ? await indexedPage(index, order, from, limit) : null;
    return indexed ?? sqlPage(order, { after: from, through: null }, limit);
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
