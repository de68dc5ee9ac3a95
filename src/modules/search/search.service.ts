// Event search (v1 document, "Event search"; decisions.md, "Event search", "Credits and
// billing"). A cursor-less search is a new execution: its count and first page are read,
// then one statement charges the account and records the execution, the last thing before
// the answer, so a failure before it charges nothing. Continuations re-run the execution's
// filter after the cursor's position, counts cut off at the execution's time: the index in
// memory finds the candidates, SQL checks them at the cut-off.
import type { Clock } from '../../platform/clock.js';
import type { CursorSigner } from '../../platform/cursors.js';
import type { Database } from '../../platform/db/database.js';
import { databaseFailure } from '../../platform/db/failures.js';
import type { IdGenerator } from '../../platform/ids.js';
import { ProblemError, type FieldError } from '../../platform/problems.js';
import { accountAndPlan, chargeSearch, findAccountAndPlan, type LedgerObserver } from '../accounts/billing.js';
import { loadEventViews, receivedUpTo, searchEventOf } from '../corpus/event-view.js';
import { referenceStore } from '../corpus/reference.store.js';
import { countableByDay, countByDay } from './index/day-counts.js';
import { entityListReferences, entityListsInaccessible, unusableEntityLists } from '../filters/entity-list-access.js';
import { filteredEvents, type EventPosition, type FilteredEvents } from '../filters/filtered-events.js';
import type { MemoryIndexSync } from './index/memory-index-sync.js';
import { normalizeFilter, roleFilterValueErrors, type EventFilter } from '../filters/filter.js';
import { FILTER_MEMBERS, LOOKBACK_DAYS, type SearchBody, type SearchResult } from './search.schemas.js';
import { searchStore as store, type ExecutionRow } from './search.store.js';
import { DAY_MS } from '../../platform/clock.js';

const DEFAULT_LIMIT = 20;
const CURSOR_KIND = 'event-search';
/** Cursors issued before the 2026-09-14 ordering change restart at page one, uncharged. */
const ORDERING_CHANGE_MS = Date.parse('2026-09-14T00:00:00Z');
/** Expired executions are kept this long, so a cursor of another account still reads 404. */
const EXPIRED_KEPT_MS = 7 * DAY_MS;
/** The account the warm-up reads and charges: none has this id, so nothing is charged. */
const NO_ONE = '00000000-0000-0000-0000-000000000000';

/** Points where a test may hold a search, to kill the process there (EVMON_TEST_SEARCH_PAUSE). */
export type SearchPausePoint = 'before-charge' | 'after-charge';

export interface SearchDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorSigner;
  /** Hears of search charges once committed (the metrics). */
  onLedger: LedgerObserver;
  /** The search index in memory, which counts every search but REPRESENTED_ONLY once built. */
  index: MemoryIndexSync;
  /** Test-only: called at each pause point; production passes nothing. */
  pause?: (point: SearchPausePoint) => Promise<void>;
}

export interface Searcher {
  accountId: string;
  keyId: string;
}

/**
 * How an entity list the account cannot use is refused. REST: 400 validation-failed, a pointer
 * per reference, with the other field errors (v1 document, "Event search"). MCP: the tool ran
 * and failed, 422 entity-list-inaccessible as a beat clause's list is (v1 document, "Errors";
 * decisions.md, 2026-11-25); any other bad argument is still told first, as a bad argument.
 */
export type UnusableListRefusal = 'field-errors' | 'entity-list-inaccessible';

interface CursorState {
  executionId: string;
  position: EventPosition | null;
  returned: number;
  limit: number;
  issuedAtMs: number;
  expiresAtMs: number;
}

const invalid = (errors: FieldError[], detail = 'The search request is not valid.') => new ProblemError('validation-failed', detail, { errors });

export function searchService({ db, clock, newId, cursors, onLedger, index, pause }: SearchDeps) {
  // Every read of a search takes no lock: a standby's, when there are any. The charge alone writes.
  const reads = db.reads;
  async function checkFilter(searcher: Searcher, body: SearchBody, listRefusal: UnusableListRefusal): Promise<void> {
    const errors: FieldError[] = [];
    if (body.event_type_id) {
      const roles = await referenceStore.roleCodeNames(reads, body.event_type_id);
      if (!roles) errors.push({ pointer: '/event_type_id', detail: 'names no event type' });
      body.role_filters?.forEach((rf, i) => {
        if (roles && !roles.has(rf.role_code_name)) errors.push({ pointer: `/role_filters/${i}/role_code_name`, detail: 'is not a role of the event type' });
      });
    }
    errors.push(...roleFilterValueErrors(body.role_filters, ''));
    const refused = await unusableEntityLists(reads, searcher.accountId, entityListReferences(body, ''));
    if (listRefusal === 'entity-list-inaccessible') {
      if (errors.length > 0) throw invalid(errors);
      if (refused.length > 0) throw entityListsInaccessible(refused);
      return;
    }
    for (const ref of refused) errors.push({ pointer: ref.pointer, detail: 'names no entity list this account can use' });
    if (errors.length > 0) throw invalid(errors);
  }

  async function execute(searcher: Searcher, body: SearchBody, listRefusal: UnusableListRefusal): Promise<SearchResult> {
    if (body.lookback_days === undefined) throw invalid([{ pointer: '/lookback_days', detail: 'is required without a cursor' }]);
    const filter: EventFilter = normalizeFilter({
      event_type_id: body.event_type_id ?? null,
      involved_entity_ids: body.involved_entity_ids,
      involved_entity_list_ids: body.involved_entity_list_ids,
      required_source_news_outlet_ids: body.required_source_news_outlet_ids,
      min_reports: body.min_reports,
      min_independent_sources: body.min_independent_sources,
      role_filters: body.role_filters,
    });
    const executedAt = clock.now();
    const windowStart = new Date(executedAt.getTime() - body.lookback_days * DAY_MS);
    const limit = body.limit ?? DEFAULT_LIMIT;
    // The filter checks and the account are independent reads: on PostgreSQL they run at once,
    // each on a connection of its own (PGlite takes them in turn). A refused search stops there,
    // before anything is counted, and its refusals are told in the order they always were.
    const [checked, accountRead] = await Promise.allSettled([checkFilter(searcher, body, listRefusal), accountAndPlan(reads, searcher.accountId)]);
    if (checked.status === 'rejected') throw checked.reason;
    if (accountRead.status === 'rejected') throw accountRead.reason;
    const { account, plan } = accountRead.value;
    const cost = plan.search_credit_cost;
    const insufficient = () =>
      new ProblemError('insufficient-credits', `A search costs ${cost} credit${cost === 1 ? '' : 's'}; the balance cannot cover it. Nothing was charged.`);
    if (account.credit_balance < cost) throw insufficient();
    const { reportSeq, totalCount, page } = await countAndFirstPage(filter, windowStart, Math.min(limit, plan.search_max_results));
    const execution = executionOf(searcher, { filter, windowStart, executedAt, reportSeq, totalCount }, plan);

    await pause?.('before-charge');
    if (!(await charge(execution))) throw insufficient();
    await pause?.('after-charge');
    return result(execution, { returned: 0, limit }, page);
  }

  /** A new execution's record, as charged: what it counted and the plan's terms. */
  function executionOf(
    searcher: Searcher,
    counted: { filter: EventFilter; windowStart: Date; executedAt: Date; reportSeq: number; totalCount: number },
    plan: { search_credit_cost: number; search_max_results: number; search_execution_retention_seconds: number },
  ): ExecutionRow {
    const { executedAt } = counted;
    return {
      id: newId(),
      account_id: searcher.accountId,
      api_key_id: searcher.keyId,
      filter: counted.filter,
      window_start: counted.windowStart,
      executed_at: executedAt,
      report_seq: counted.reportSeq,
      expires_at: new Date(executedAt.getTime() + plan.search_execution_retention_seconds * 1000),
      total_count: counted.totalCount,
      max_results: plan.search_max_results,
      credits: plan.search_credit_cost,
    };
  }

  /**
   * The events of `filter` as counted at `countedUpTo` (reports received up to it), first
   * reported from `windowStart`; pages take their candidates from the index in memory.
   */
  function eventsOf(filter: EventFilter, countedUpTo: number, windowStart: Date) {
    return filteredEvents(reads, [filter], { countedUpTo, windowStart }, index);
  }

  /**
   * The count of a new execution, with its cut-off, and its `limit` newest events when they
   * came with it. The index in memory answers, with its cut-off and newest events; until it is
   * built, the widest searches are counted from the day counts, and the others visit the
   * events once for the count and the newest, cut off at the reports received up to now.
   */
  async function count(filter: EventFilter, windowStart: Date, limit: number) {
    const indexed = await index.search(filter, windowStart, limit);
    if (indexed) return { reportSeq: indexed.countedUpTo, totalCount: indexed.count, newest: indexed.page };
    // The cut-off is read on the primary: a standby's sequence value runs up to 32 ahead of the
    // values handed out (a sequence logs them in advance), and pages would then take reports
    // received after the search. The day counts read it in the same statement as the count.
    const byDay = countableByDay(filter) ? await countByDay(db, filter, windowStart, limit) : null;
    if (byDay) return { reportSeq: byDay.countedUpTo, totalCount: byDay.count, newest: byDay.newest };
    const reportSeq = await receivedUpTo(db);
    const counted = await (await eventsOf(filter, reportSeq, windowStart)).countAndNewest(limit);
    return { reportSeq, totalCount: counted.count, newest: counted.page };
  }

  /** A new execution's count, with its cut-off, and its first page of `size` events. */
  async function countAndFirstPage(filter: EventFilter, windowStart: Date, size: number) {
    const { reportSeq, totalCount, newest } = await count(filter, windowStart, size + 1);
    const page =
      newest && size > 0 ? await pageOf(newest, size, reportSeq) : await readPage(await eventsOf(filter, reportSeq, windowStart), reportSeq, null, size);
    return { reportSeq, totalCount, page };
  }

  /** Reads the page after `after` (null: the first), newest first, with its events as counted at `countedUpTo`. */
  async function readPage(events: FilteredEvents, countedUpTo: number, after: EventPosition | null, size: number) {
    return pageOf(size > 0 ? await events.page('newest-first', after, size + 1) : [], size, countedUpTo);
  }

  /** The page of `rows` (read one beyond `size`, to tell whether more follow), with its events as counted at `countedUpTo`. */
  async function pageOf(rows: readonly EventPosition[], size: number, countedUpTo: number) {
    const shown = rows.slice(0, size);
    const views = await loadEventViews(
      reads,
      shown.map((row) => row.id),
      { seq: countedUpTo },
    );
    return { rows: shown, hasMore: rows.length > size, data: views.map(searchEventOf) };
  }

  function result(execution: ExecutionRow, state: { returned: number; limit: number }, page: Awaited<ReturnType<typeof readPage>>): SearchResult {
    const returned = state.returned + page.data.length;
    const hasMore = page.hasMore && returned < execution.max_results;
    const last = page.rows[page.rows.length - 1];
    const nextCursor =
      hasMore && last
        ? cursors.sign(CURSOR_KIND, {
            e: execution.id,
            d: last.firstReportDate.getTime(),
            i: last.id,
            n: returned,
            l: state.limit,
            t: clock.now().getTime(),
            x: execution.expires_at.getTime(),
          })
        : null;
    return {
      object: 'search_result',
      data: page.data,
      has_more: hasMore,
      next_cursor: nextCursor,
      execution_id: execution.id,
      total_count: execution.total_count,
    };
  }

  /**
   * The charge and the execution record, in one statement (one round trip); the last step
   * before answering. Answers whether the balance covered it (if not, nothing was written).
   */
  async function charge(execution: ExecutionRow): Promise<boolean> {
    try {
      return await chargeSearch(db, execution.account_id, execution.credits, execution.id, execution.executed_at, onLedger, (params) =>
        store.insertExecutionIfSpent(params, execution),
      );
    } catch (error) {
      // The connection was lost while the commit was in flight: it is unknown whether the charge
      // happened, so the answer is 502, which keeps the idempotency claim (a same-key retry gets
      // 409, never a second charge). Lost before the commit, nothing was charged: 503.
      if (databaseFailure(error) === 'commit-in-doubt') {
        throw new ProblemError(
          'upstream-error',
          'The search could not be completed and it is unknown whether it was charged. Retry at most once, with the same Idempotency-Key: a 409 then means start over with a new key.',
        );
      }
      throw error;
    }
  }

  function readCursor(token: string): CursorState {
    const payload = cursors.verify(CURSOR_KIND, token);
    const bad = () => invalid([{ pointer: '/cursor', detail: 'is not a cursor this service issued for event search' }], 'The cursor is not valid.');
    if (payload === null) throw bad();
    const { e, d, i, n, l, t, x } = payload;
    if (
      typeof e !== 'string' ||
      typeof d !== 'number' ||
      typeof i !== 'string' ||
      typeof n !== 'number' ||
      typeof l !== 'number' ||
      typeof t !== 'number' ||
      typeof x !== 'number'
    )
      throw bad();
    return { executionId: e, position: { firstReportDate: new Date(d), id: i }, returned: n, limit: l, issuedAtMs: t, expiresAtMs: x };
  }

  async function continueSearch(searcher: Searcher, body: SearchBody): Promise<SearchResult> {
    const sent = FILTER_MEMBERS.filter((member) => body[member] !== undefined);
    if (sent.length > 0)
      throw invalid(
        sent.map((member) => ({ pointer: `/${member}`, detail: 'cannot be sent with a cursor' })),
        'A continuation takes only `cursor` and `limit`.',
      );
    let state = readCursor(body.cursor!);
    const execution = await store.getExecution(reads, state.executionId);
    const notFound = () => new ProblemError('not-found', 'No search execution of this account matches the cursor.');
    if (execution && execution.account_id !== searcher.accountId) throw notFound();
    // An execution deleted a week after expiry is still known expired from its cursor.
    if (clock.now().getTime() >= (execution?.expires_at.getTime() ?? state.expiresAtMs)) {
      throw new ProblemError('search-execution-expired', 'This search execution has passed its retention; run the search again (it is charged).');
    }
    if (!execution) throw notFound();
    // (Only once the change is in force: under a test clock set before it, cursors page on.)
    if (state.issuedAtMs < ORDERING_CHANGE_MS && clock.now().getTime() >= ORDERING_CHANGE_MS) state = { ...state, position: null, returned: 0 };
    const limit = body.limit ?? state.limit;
    const size = Math.max(0, Math.min(limit, execution.max_results - state.returned));
    // The corpus as the execution saw it: reports received up to its cut-off, events within its window.
    const events = await eventsOf(execution.filter, execution.report_seq, execution.window_start);
    const page = await readPage(events, execution.report_seq, state.position, size);
    return result(execution, { returned: state.returned, limit }, page);
  }

  return {
    /** One endpoint, two calls told apart by `cursor`. */
    search(searcher: Searcher, body: SearchBody, listRefusal: UnusableListRefusal = 'field-errors'): Promise<SearchResult> {
      return body.cursor === undefined ? execute(searcher, body, listRefusal) : continueSearch(searcher, body);
    },

    /**
     * What the widest search a new user sends first runs, for no one: the account's read, the
     * count and first page (no filter, the longest lookback), and the charge, all for an
     * account that does not exist, so nothing is charged or written. A server runs it once
     * before it listens: the first searches after a restart then find the database's caches
     * (the embedded database's are empty at start, its statements' tables unread) and this code warm.
     */
    async warmUp(): Promise<void> {
      const executedAt = clock.now();
      const windowStart = new Date(executedAt.getTime() - Math.max(...LOOKBACK_DAYS) * DAY_MS);
      const filter = normalizeFilter({ event_type_id: null });
      await findAccountAndPlan(db, NO_ONE);
      const { reportSeq, totalCount } = await countAndFirstPage(filter, windowStart, DEFAULT_LIMIT);
      const nothing = { search_credit_cost: 1, search_max_results: 0, search_execution_retention_seconds: 0 };
      const execution = executionOf({ accountId: NO_ONE, keyId: NO_ONE }, { filter, windowStart, executedAt, reportSeq, totalCount }, nothing);
      if (await charge(execution)) throw new Error('the warm-up charged an account'); // there is no such account
    },

    /** Deletes executions a week past their retention. */
    sweep(): Promise<number> {
      return store.deleteExpired(db, new Date(clock.now().getTime() - EXPIRED_KEPT_MS));
    },
  };
}

export type SearchService = ReturnType<typeof searchService>;
