// Keeps one process's in-memory search index (memory-index.ts) at a snapshot of the corpus.
//
// The rule that keeps counts exact with several processes on one PostgreSQL: a search counts
// from the index only once the index has caught up to a snapshot taken after the search
// began, with its cut-off read in that snapshot (one statement when nothing changed, else one
// REPEATABLE READ transaction), so every report committed before the search is counted, as
// the SQL face would count it. Until the index is built (or
// while it is rebuilt after the change log was purged past it) searches count in SQL.
//
// Catching up is shared (platform/catch-up.ts): searches arriving while one catch-up runs
// wait for the next, which they all share. A timer catches up every second between searches,
// so each stays short.
//
// With standbys (db.reads), the catch-ups and builds read on one that has replayed the primary's
// position, and the cut-off on the primary just after (memory-index.store.ts, LogRead): every
// snapshot read has all that the one before it had, whichever server each was read on.
//
// Given a file, a process saves its index there when it stops and loads it when it starts
// (memory-index-file.ts), then catches up from the saved position as if it had never stopped.
// The log is purged by the retention sweeper (purgeSearchLog, memory-index.store.ts).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { sharedCatchUp } from '../../../platform/catch-up.js';
import type { Database } from '../../../platform/db/database.js';
import type { SqlParams } from '../../../platform/db/sql-params.js';
import { receivedUpTo } from '../../corpus/event-view.js';
import type { CompiledFilter, EventFilter } from '../../filters/filter.js';
import type { EventOrder, EventPosition } from '../../filters/filter.store.js';
import { compileWithRoleIds, type IndexCandidates } from '../../filters/filtered-events.js';
import { MemoryIndex } from './memory-index.js';
import { loadOnStart, type PlacedIndex, saveOnStop } from './memory-index-file.js';
import { changedSinceSql, type LogPosition, type LogRead, memoryIndexStore as store } from './memory-index.store.js';
import type { IndexedMatch } from './search-tally.js';

/** Events read per statement catching up. */
const CHUNK = 20_000;
/**
 * Events read per chunk building: each chunk's rows are parsed and put on the event loop, so a
 * small chunk keeps the requests of a process that has just started from waiting long behind it.
 */
const BUILD_CHUNK = 5_000;
const CATCH_UP_EVERY_MS = 1_000;
/** A build catches up this often as it goes. */
const BUILD_CATCH_UP_MS = 60_000;
/** The build's pause between chunks while no request is being served: room for connections coming in (a few ms each, on this machine). */
const IDLE_WINDOW_MS = 10;
/** How old a catch-up may be for a continuation's candidates (the timer's every second keeps it younger). */
const CANDIDATES_FRESH_MS = 30_000;
/** Dead numbers held before a rebuild, beyond the live ones. */
const GARBAGE_ALLOWED = 100_000;
/** Reads of a log whose snapshot is behind the index's (LogRead.behind) before the catch-up fails, and the wait between them. */
const BEHIND_TRIES = 20;
const BEHIND_WAIT_MS = 5;

/** The index at a snapshot, the cut-off read in it, and where it stands in the change log. */
export interface IndexAtSnapshot {
  index: MemoryIndex;
  countedUpTo: number;
  position: LogPosition;
}

/** The index in place: where it stands in the log of the database it was read from, and the cut-off read there. */
interface Held extends PlacedIndex {
  countedUpTo: number;
  /** When it last caught up (performance.now()). */
  caughtUpAt: number;
}

/**
 * Reads of the log (`read`), again while its snapshot is behind the index's (LogRead.behind):
 * on the primary after a standby's, that lasts the moment a commit takes to become visible.
 */
async function notBehind<T extends { log: LogRead }>(read: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    const done = await read();
    if (!done.log.behind) return done;
    if (tries === BEHIND_TRIES) throw new Error(`the database's snapshot stayed behind the search index's for ${BEHIND_TRIES} reads`);
    await sleep(BEHIND_WAIT_MS);
  }
}

/** The cut-off read with `log`: in its snapshot, or on a standby, on the primary as soon as it is read (LogRead.countedUpTo). */
const cutOffOf = (db: Database, log: LogRead): Promise<number> => (log.countedUpTo !== null ? Promise.resolve(log.countedUpTo) : receivedUpTo(db));

/**
 * Brings `index` from `from` to a snapshot taken now: the changed events' facts replace what
 * it held of them. Answers null when the log was purged past `from` (rebuild instead). Reads
 * on a standby that has replayed the primary's position (db.reads), else on the primary.
 */
async function advance(db: Database, index: MemoryIndex, from: LogPosition): Promise<{ position: LogPosition; countedUpTo: number } | null> {
  // Mostly nothing has changed: one statement, whose snapshot holds the position and the cut-off.
  const { log: glance } = await notBehind(async () => ({ log: await store.readLog(db.reads, from) }));
  if (glance.purgedPast) return null;
  if (glance.changed.length === 0) return { position: glance.position, countedUpTo: await cutOffOf(db, glance) };
  // Changes, and their events' facts, in one snapshot.
  const read = await notBehind(() =>
    db.reads.snapshot(async (tx) => {
      const log = await store.readLog(tx, from);
      // Asked now, while the facts are read: a large catch-up takes a while.
      const countedUpTo = cutOffOf(db, log);
      countedUpTo.catch(() => undefined); // awaited below, unless the facts' read fails first
      const facts = [];
      for (let i = 0; i < log.changed.length; i += CHUNK) facts.push(...(await store.eventsByIds(tx, log.changed.slice(i, i + CHUNK))));
      return { log, facts, countedUpTo: await countedUpTo };
    }),
  );
  if (read.log.purgedPast) return null;
  const byId = new Map(read.facts.map((event) => [event.id, event]));
  for (const id of read.log.changed) index.put(id, byId.get(id) ?? null);
  return { position: read.log.position, countedUpTo: read.countedUpTo };
}

/**
 * What a continuation asks of the index for `filter`: the same, but for independent sources.
 * They can fall as reports arrive (a later report that predates a group's origin takes its
 * place, and its outlet may be another origin's), while distinct sources only grow and are
 * never fewer: the candidates need as many distinct sources, and SQL checks the rest.
 */
function candidateFilter(filter: CompiledFilter): CompiledFilter {
  if (filter.minIndependent <= 1) return filter;
  return { ...filter, minReports: Math.max(filter.minReports, filter.minIndependent), minIndependent: 0 };
}

/** The first `limit` of `matches` in `order` (first report date, then id), each once. */
function firstInOrder(matches: readonly IndexedMatch[], order: EventOrder, limit: number): IndexedMatch[] {
  const sign = order === 'newest-first' ? -1 : 1;
  const byId = new Map(matches.map((match) => [match.id, match]));
  return [...byId.values()].sort((a, b) => sign * (a.firstReportUs - b.firstReportUs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))).slice(0, limit);
}

/** What a sync holds, and what it is doing. */
interface SyncState {
  /** The index in place; null until a build or a load puts one, and again while a rebuild runs after the log was purged past it. */
  held: Held | null;
  /** The file to load the index from, instead of building it, until the first build starts. */
  toLoad: string | null;
  /** The load or build in progress. */
  building: Promise<void> | null;
  /** The catch-up timer, and the start's load, once started. */
  started: { timer: NodeJS.Timeout; loaded: Promise<void> } | null;
  closed: boolean;
}

export interface MemoryIndexSyncOptions {
  /** Where the index is saved at a stop and loaded from at a start; null: built every start. */
  file?: string | null;
  /** Test-only: every build from the tables waits for it before it reads; production passes nothing. */
  beforeBuild?: () => Promise<void>;
  /** Whether requests are being served now: the build gives them half the thread while they are; none: always. */
  requestsWaiting?: () => boolean;
}

export function memoryIndexSync(db: Database, logger: Logger, { file = null, beforeBuild, requestsWaiting = () => true }: MemoryIndexSyncOptions = {}) {
  const state: SyncState = { held: null, toLoad: file, building: null, started: null, closed: false };
  // Catch-ups, the swap after a build or a load, and reads of the index, one at a time.
  const runs = sharedCatchUp(catchUpOnce);

  async function advanceOrFail(index: MemoryIndex, from: LogPosition) {
    const caught = await advance(db, index, from);
    if (caught === null) throw new Error('the search log was purged while the index was built');
    return caught;
  }

  /** Puts `index` in place, caught up from `position` (the last of it between catch-ups), read from the database of `epoch`. */
  async function install(index: MemoryIndex, position: LogPosition, epoch: string): Promise<void> {
    await runs.between(async () => {
      state.held = { index, epoch, ...(await advanceOrFail(index, position)), caughtUpAt: performance.now() };
    });
  }

  /** Builds a new index from the tables, chunk by chunk, then catches it up and puts it in place. */
  async function build(): Promise<void> {
    await beforeBuild?.();
    const started = performance.now();
    const fresh = new MemoryIndex();
    const epoch = (await store.identity(db)).epoch;
    // Where the log stands before the first chunk: whatever changes after it is caught up. Read
    // on the primary: a chunk read there may not yet see a commit a standby has replayed
    // (LogRead.behind), and a position read on that standby would count it as seen.
    let position = (await store.readLog(db, null)).position;
    let caughtUpAt = performance.now();
    // The next chunk is read while this one is put in place and the build waits.
    const read = (after: string | null) => {
      const reading = store.eventsAfter(db.reads, after, BUILD_CHUNK);
      reading.catch(() => undefined); // a build closed meanwhile leaves its last read behind
      return reading;
    };
    let since = performance.eventLoopUtilization();
    for (let next = read(null); !state.closed; ) {
      const chunk = await next;
      if (chunk.length === BUILD_CHUNK) next = read(chunk[chunk.length - 1]!.id);
      for (const event of chunk) fresh.put(event.id, event);
      if (chunk.length < BUILD_CHUNK) break;
      // While requests are being served, half the thread at most since the last chunk: the
      // requests of a process that has just started come first. The thread is busy parsing
      // rows, putting them and serving requests (and, on the embedded database, reading), and
      // free while PostgreSQL reads: the build waits until it has been free as long as busy.
      // With no request to serve, a wait that long would only make the build longer (half of
      // it, measured); a short one still lets a new connection's TLS handshake and first
      // request in (they take a few turns of the loop, and are counted only once parsed).
      const { active, idle } = performance.eventLoopUtilization(since);
      const wait = requestsWaiting() ? active - idle : IDLE_WINDOW_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(wait, IDLE_WINDOW_MS)));
      since = performance.eventLoopUtilization();
      // A long build catches up as it goes, so the log's sweep (an hour) never passes it.
      if (performance.now() - caughtUpAt > BUILD_CATCH_UP_MS) {
        position = (await advanceOrFail(fresh, position)).position;
        caughtUpAt = performance.now();
      }
    }
    if (state.closed) return;
    fresh.compact();
    // Most of the catching up outside the turns; the rest, and the swap, in one.
    position = (await advanceOrFail(fresh, position)).position;
    await install(fresh, position, epoch);
    logger.info({ events: fresh.size, ms: Math.round(performance.now() - started) }, 'search index built');
  }

  /** The index saved at the last stop, caught up and put in place; false when there is none such (logged), and a build must run. */
  function loadSaved(path: string): Promise<boolean> {
    return loadOnStart(db, path, logger, {
      stopping: () => state.closed,
      install: async ({ index, epoch, position }) => {
        const caught = await advance(db, index, position);
        if (caught === null) return false;
        await install(index, caught.position, epoch);
        return true;
      },
    });
  }

  /** Starts the load of the saved index (the first time) or a build, unless one runs; answers the load (false: none, a build runs on). */
  function ensureBuilding(): Promise<boolean> {
    if (state.building || state.closed) return Promise.resolve(false);
    const loaded = state.toLoad !== null ? loadSaved(state.toLoad) : Promise.resolve(false);
    state.toLoad = null;
    state.building = loaded
      .then((done) => (done ? undefined : build()))
      .catch((error) => logger.warn({ err: error }, 'building the search index failed; searches count in SQL until a build succeeds'))
      .finally(() => {
        state.building = null;
      });
    return loaded;
  }

  async function catchUpOnce(): Promise<void> {
    const held = state.held;
    if (!held) return;
    const caught = await advance(db, held.index, held.position);
    if (caught === null) {
      logger.warn('the search log was purged past this process: rebuilding the search index');
      state.held = null;
      void ensureBuilding();
      return;
    }
    state.held = { ...held, ...caught, caughtUpAt: performance.now() };
    if (held.index.garbage() > held.index.size + GARBAGE_ALLOWED) void ensureBuilding();
  }

  /**
   * Catches up to a snapshot taken after this call; answers the failure, if it failed. The
   * caller then counts in SQL, which answers for itself if the database is the trouble, and
   * says so (countsInSql) unless it fails anyway for a reason of its own.
   */
  async function caughtUp(): Promise<{ error: unknown } | null> {
    try {
      await runs.catchUp();
      return null;
    } catch (error) {
      return { error };
    }
  }
  const countsInSql = (failure: { error: unknown }): null => {
    logger.warn({ err: failure.error }, 'catching up the search index failed; this search counts in SQL');
    return null;
  };

  /** `read` on the index as the last catch-up left it (any catch-up since took a later snapshot still). */
  function readCaughtUp<T>(read: (at: IndexAtSnapshot) => T): Promise<T | null> {
    return runs.between(async () =>
      state.held ? read({ index: state.held.index, countedUpTo: state.held.countedUpTo, position: state.held.position }) : null,
    );
  }

  return {
    /**
     * Runs `read` (synchronous) on the index at a snapshot taken after this call, with the
     * cut-off read in it; nothing changes the index while it runs. Null when there is no index
     * yet (a build is started): the caller counts in SQL.
     */
    async read<T>(read: (at: IndexAtSnapshot) => T): Promise<T | null> {
      if (!state.held) {
        void ensureBuilding();
        return null;
      }
      const failure = await caughtUp();
      return failure ? countsInSql(failure) : readCaughtUp(read);
    },

    /**
     * A search's count and its first `limit` events newest first, from the index at a snapshot
     * taken after this call, with the cut-off read in it. Null when the index cannot answer:
     * not built yet, or a filter it does not hold the facts for (REPRESENTED_ONLY).
     */
    async search(filter: EventFilter, windowStart: Date, limit: number): Promise<{ countedUpTo: number; count: number; page: EventPosition[] } | null> {
      if (!state.held) {
        void ensureBuilding();
        return null;
      }
      // Not even a catch-up for what the index cannot answer (MemoryIndex.answers).
      if (filter.report_source_kind === 'REPRESENTED_ONLY') return null;
      // The filter's entities and role ids are looked up while the index catches up (on
      // PostgreSQL at once, on two connections). If the look-up fails, so does the search, and
      // a failed catch-up beside it goes unsaid: nothing counts in SQL.
      const [
        {
          compiled: [compiled],
          roleIds,
        },
        failure,
      ] = await Promise.all([compileWithRoleIds(db.reads, [filter]), caughtUp()]);
      if (failure) return countsInSql(failure);
      if (!MemoryIndex.answers(compiled!)) return null;
      return readCaughtUp(({ index, countedUpTo }) => {
        const { count, newest } = index.search(compiled!, roleIds, windowStart.getTime() * 1000, limit);
        // As the database driver reads a timestamp: microseconds cut to milliseconds.
        return { countedUpTo, count, page: newest.map((match) => ({ id: match.id, firstReportDate: new Date(Math.floor(match.firstReportUs / 1000)) })) };
      });
    },

    /**
     * The first `limit` events in `order` after `after` that satisfy any of `filters` in the
     * index as it stands: candidates that the caller checks in SQL at its own cut-off
     * (filtered-events.ts), with the events changed since the index's snapshot. Null when the
     * index cannot answer (not built yet, or a REPRESENTED_ONLY filter).
     */
    async candidates(
      filters: readonly CompiledFilter[],
      roleIds: ReadonlyMap<string, readonly string[]>,
      windowStart: Date | null,
      order: EventOrder,
      after: IndexedMatch | null,
      limit: number,
    ): Promise<IndexCandidates | null> {
      if (!state.held) {
        void ensureBuilding();
        return null;
      }
      if (!filters.every(MemoryIndex.answers)) return null;
      // No catch-up of its own while the index is fresh: the statement that checks the
      // candidates reads what changed since the index's snapshot. The log is swept only below
      // an xmin noted an hour before, which an index caught up since then is past.
      if (performance.now() - state.held.caughtUpAt > CANDIDATES_FRESH_MS) {
        const failure = await caughtUp();
        if (failure) return countsInSql(failure);
      }
      return readCaughtUp(({ index, position }) => {
        const windowStartUs = windowStart === null ? Number.NEGATIVE_INFINITY : windowStart.getTime() * 1000;
        const found = filters.flatMap((filter) => index.page(candidateFilter(filter), roleIds, windowStartUs, order, after, limit));
        return { matches: firstInOrder(found, order, limit), changedSince: (params: SqlParams) => changedSinceSql(position, params) };
      });
    },

    /**
     * Loads the saved index or builds one in the background, and keeps it caught up. Resolves
     * once a saved index is in place or found unusable (a build then runs on): a server waits
     * for that before it listens, so its first searches neither count in SQL nor share the
     * thread with the load. Calling it again does nothing more.
     */
    start(): Promise<void> {
      if (state.started) return state.started.loaded;
      const timer = setInterval(
        () => void runs.catchUp().catch((error) => logger.warn({ err: error }, 'catching up the search index failed')),
        CATCH_UP_EVERY_MS,
      );
      timer.unref();
      state.started = { timer, loaded: ensureBuilding().then(() => undefined) };
      return state.started.loaded;
    },

    /** Waits for a build in progress (tests, benches). */
    async built(): Promise<void> {
      await state.building;
    },

    /** Stops catching up and, given a file, saves the index there. */
    async close(): Promise<void> {
      state.closed = true;
      if (state.started) clearInterval(state.started.timer);
      await state.building;
      await runs.settled();
      if (file !== null && state.held) await saveOnStop(file, state.held, logger);
    },
  };
}

export type MemoryIndexSync = ReturnType<typeof memoryIndexSync>;
