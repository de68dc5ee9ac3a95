// Reads on PostgreSQL hot standbys (operations.md, "Read replicas"): the one place that decides
// where a read that takes no lock runs. Services ask for `db.reads` and never name a host.
//
// Consistency, as GitLab's database load balancing keeps it (and across processes and keys):
// a read asks the primary how far its WAL is flushed, and a standby serves it only once it has
// replayed that far, so it sees every write committed before the read began, whoever made it
// (a commit returns once its record is flushed). Not the insert position: the rate counters
// commit without waiting for the flush (runtime.ts), their WAL reaches the standby up to 200 ms
// later, and every read would wait for it, though none of them reads the counters. Reads that
// arrive together (in one turn of the event loop, before the question is sent) share it. The
// standby is asked how far it has replayed at the same time: a position it had replayed before
// the primary's was read is past it all the same, so the check costs one round trip, not two.
//
// The standby's replay position is read on the connection the read then runs on: a standby
// restarted in between (replaying again from an earlier point) would have broken it, so a
// replica URL must name the standby itself, not a pooler in front of it. One that has not
// replayed that far is waited for briefly, then the read goes to the primary. One that fails,
// does not answer, lags beyond MAX_LAG_BYTES, keeps a read waiting, is not in recovery
// (promoted), belongs to another cluster or follows another timeline (a failover it has not
// followed) is left out until a check finds it fit again. A read never fails because a standby did.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { type Database, type Queryable, type ReadSource, readOnlySnapshot } from './database.js';
import { DatabaseUnavailableError, databaseFailure, failureState } from './failures.js';
import { openPostgres, type PostgresDatabase } from './postgres.js';

/** A standby whose replay is more than this behind the primary is left out (GitLab's bound). */
export const MAX_LAG_BYTES = 8 * 2 ** 20;
/** How long a read waits for a standby to replay the primary's position before going to the primary. */
const CATCH_UP_MS = 25;
/** How long a standby may take to say how far it has replayed; longer, and it counts as unreachable. */
const ANSWER_MS = 1_000;
/** How often each standby is checked: its lag, and whether one left out can come back. */
const CHECK_MS = 1_000;
/**
 * How often while one is left out: a standby that kept one read waiting under a burst of writes
 * is usually caught up again within milliseconds, and its share of the reads comes back then.
 */
const RECHECK_MS = 100;
/** Connections per standby. */
const POOL_SIZE = 10;
/**
 * Why a standby on another timeline than the primary's is left out: after a failover, one that
 * still follows the old primary may have replayed past the point where the histories part,
 * writes the new primary never had, and be counted as caught up by its position alone.
 */
const OTHER_TIMELINE = 'it follows another timeline than the primary (a failover it has not followed)';
/** SQLSTATE of a write (or a locking read) in a read-only transaction. */
const READ_ONLY = '25006';

/** A WAL position ("16/B374D848") as a number of bytes. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** A position in the WAL, and the timeline (history) it is on. */
interface WalPosition {
  lsn: bigint;
  timeline: number;
}

/** What the metrics and logs say of a standby. */
export interface StandbyState {
  /** host:port/database, without credentials. */
  name: string;
  /** Serving reads now. */
  inUse: boolean;
  /** Bytes of WAL it had not replayed at the last check (null: unreachable). */
  lagBytes: number | null;
  /** Reads it served. */
  reads: number;
}

interface Standby extends StandbyState {
  url: string;
  db: PostgresDatabase | null;
  opening: Promise<PostgresDatabase> | null;
  /** Why it is left out (logged once as it goes out and once as it comes back); null while in use or never out. */
  outBecause: string | null;
}

export interface StandbyReads {
  /** Reads that take no lock: on a standby that has replayed the primary's position, else on the primary. */
  reads: ReadSource;
  standbys(): StandbyState[];
  /** Reads the primary served (none caught up, or all left out). */
  primaryReads(): number;
  /** Starts the checks. */
  start(): void;
  close(): Promise<void>;
}

const nameOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

/** `work`'s answer, or `unavailable` once `ms` have passed without one (the work's own outcome is then dropped). */
function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(new Error(`${what}: no answer within ${ms} ms`))), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function standbyReads(primary: Database, urls: readonly string[], logger: Logger): StandbyReads {
  const standbys: Standby[] = urls.map((url) => ({
    url,
    name: nameOf(url),
    db: null,
    opening: null,
    inUse: false,
    lagBytes: null,
    reads: 0,
    outBecause: null,
  }));
  let primaryReads = 0;
  let next = 0;
  let closed = false;
  /** The next check's timer, and when it is due (performance.now()); null while none is set. */
  let due: { timer: NodeJS.Timeout; at: number } | null = null;
  /** A check is running: it sets the next when it ends. */
  let checking = false;
  let primarySystem: string | null = null;

  // The primary's position, asked once for every read that arrived before the question was sent.
  // Its timeline is the first 8 hex digits of the WAL file's name.
  let asking: Promise<WalPosition> | null = null;
  const primaryPosition = (): Promise<WalPosition> => {
    asking ??= Promise.resolve().then(async () => {
      asking = null;
      const [row] = await primary.query<{ lsn: string; file: string }>(
        'SELECT lsn::text AS lsn, pg_walfile_name(lsn) AS file FROM pg_current_wal_flush_lsn() AS lsn',
      );
      return { lsn: parseLsn(row!.lsn), timeline: Number.parseInt(row!.file.slice(0, 8), 16) };
    });
    return asking;
  };

  const opened = async (standby: Standby): Promise<PostgresDatabase> => {
    if (closed) throw new DatabaseUnavailableError(new Error('the standby reads are closed'));
    if (standby.db) return standby.db;
    standby.opening ??= openPostgres(standby.url, { poolSize: POOL_SIZE }).finally(() => {
      standby.opening = null;
    });
    const db = await standby.opening;
    if (closed) {
      await db.close();
      throw new DatabaseUnavailableError(new Error('the standby reads are closed'));
    }
    standby.db = db;
    return db;
  };

  /**
   * How far the server behind `connection` has replayed (0: it is not in recovery, so it
   * replays nothing more), and on which timeline: the one it receives (pg_stat_wal_receiver
   * shows it to roles with pg_read_all_stats), else its last restartpoint's (a standby that
   * streams from nowhere is on the history it last knew). With `cluster`, which cluster it is
   * too: the checks ask, not each read, since pg_control_system() reads the control file.
   */
  const replayedOn = async (connection: Queryable, { cluster = false } = {}) => {
    const [row] = await withinTime(
      connection.query<{ lsn: string | null; recovering: boolean; timeline: number; system: string | null }>(
        `SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovering,
                COALESCE((SELECT received_tli FROM pg_stat_wal_receiver), (SELECT timeline_id FROM pg_control_checkpoint())) AS timeline,
                ${cluster ? '(SELECT system_identifier::text FROM pg_control_system())' : 'NULL'} AS system`,
      ),
      ANSWER_MS,
      'how far the standby has replayed',
    );
    return { replayed: row!.recovering && row!.lsn !== null ? parseLsn(row!.lsn) : 0n, timeline: row!.timeline, system: row!.system };
  };

  const leaveOut = (standby: Standby, because: string, error?: unknown): void => {
    if (standby.outBecause === null) logger.warn({ standby: standby.name, err: error }, `standby left out of reads: ${because}`);
    standby.inUse = false;
    standby.outBecause = because;
    schedule(RECHECK_MS); // not the second a standby in use waits between checks
  };

  /** Whether the standby behind `connection` has replayed the primary's position, waiting up to CATCH_UP_MS for it. */
  const caughtUp = async (standby: Standby, connection: Queryable, primaryAt: Promise<WalPosition>): Promise<boolean> => {
    const [position, first] = await Promise.all([primaryAt, replayedOn(connection)]);
    if (first.timeline !== position.timeline && first.replayed !== 0n) {
      leaveOut(standby, OTHER_TIMELINE);
      return false;
    }
    // The wait is the standby's: it starts once both have answered, however long the primary took.
    const started = performance.now();
    for (let replayed = first.replayed; ; replayed = (await replayedOn(connection)).replayed) {
      if (replayed >= position.lsn) return true;
      if (replayed === 0n || performance.now() - started > CATCH_UP_MS) {
        leaveOut(standby, replayed === 0n ? 'it is not in recovery (promoted?)' : `it kept a read waiting ${CATCH_UP_MS} ms to replay the primary's position`);
        return false;
      }
      await sleep(1);
    }
  };

  /** The standbys in use, each read starting at the next one, so they share the reads. */
  const rotation = (): Standby[] => {
    const using = standbys.filter((standby) => standby.inUse);
    if (using.length === 0) return using;
    next = (next + 1) % using.length;
    return [...using.slice(next), ...using.slice(0, next)];
  };

  /**
   * `onStandby` on a connection of a standby that has replayed the primary's position, else
   * `onPrimary`. `what` names the read in the log when it proves to be a write.
   */
  async function routed<T>(onStandby: (connection: Queryable) => Promise<T>, onPrimary: () => Promise<T>, what: string): Promise<T> {
    const using = rotation();
    if (using.length > 0) {
      const position = primaryPosition();
      position.catch(() => undefined); // a primary that does not answer fails the read on it below
      for (const standby of using) {
        try {
          const done = await (await opened(standby)).pinned(async (connection) =>
            (await caughtUp(standby, connection, position)) ? { answer: await onStandby(connection) } : null,
          );
          if (done === null) continue;
          standby.reads++;
          return done.answer;
        } catch (error) {
          // A value the statement itself got wrong fails on the primary the same way; and a
          // primary that did not tell its position is the primary's failure, not the standby's.
          const failure = databaseFailure(error);
          if (
            failure === 'invalid-value' ||
            failure === 'unique-violation' ||
            (await position.then(
              () => false,
              () => true,
            ))
          )
            throw error;
          if (failureState(error) === READ_ONLY)
            logger.error({ err: error, sql: what }, 'a write or a locking read was sent as a read: it runs on the primary, but its caller is wrong');
          leaveOut(standby, 'a read on it failed', error);
        }
      }
    }
    primaryReads++;
    return onPrimary();
  }

  /**
   * `work` in one read-only REPEATABLE READ transaction on the standby's connection: its
   * snapshot is taken at its first statement, after the replay position was checked. A failure
   * leaves the connection to pinned(), which closes it (no ROLLBACK needed).
   */
  async function inStandbySnapshot<T>(connection: Queryable, work: (tx: Queryable) => Promise<T>): Promise<T> {
    await connection.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const answer = await work(connection);
    await connection.query('COMMIT');
    return answer;
  }

  /**
   * One standby's lag and fitness against the primary's `position`, asked just before. One left
   * out comes back once fit and past `position` within CATCH_UP_MS, as a read waits for it:
   * under a steady stream of writes a standby that replays each within milliseconds is seldom
   * past the position of the very moment it is asked, and one that takes longer would keep the
   * reads waiting, and be left out again.
   */
  async function checkOne(standby: Standby, { lsn: position, timeline }: WalPosition, system: string): Promise<void> {
    try {
      // On a connection of its own, which a check that gets no answer lets go (pinned).
      const ready = await withinTime(opened(standby), ANSWER_MS * 5, 'connecting to the standby');
      const asked = performance.now();
      const replayNow = (cluster: boolean) =>
        withinTime(
          ready.pinned((connection) => replayedOn(connection, { cluster })),
          ANSWER_MS * 2,
          'checking the standby',
        );
      let { replayed, timeline: its, system: itsSystem } = await replayNow(true);
      const lag = position > replayed ? Number(position - replayed) : 0;
      standby.lagBytes = replayed === 0n ? null : lag;
      if (itsSystem !== system) leaveOut(standby, 'it belongs to another cluster than the primary (system identifier)');
      else if (replayed === 0n) leaveOut(standby, 'it is not in recovery (promoted?)');
      else if (its !== timeline) leaveOut(standby, OTHER_TIMELINE);
      else if (lag > MAX_LAG_BYTES) leaveOut(standby, `it lags ${lag} bytes behind the primary`);
      else if (!standby.inUse) {
        if (replayed < position) {
          await sleep(Math.max(0, CATCH_UP_MS - (performance.now() - asked)));
          ({ replayed } = await replayNow(false));
        }
        if (replayed >= position) {
          if (standby.outBecause !== null) logger.info({ standby: standby.name }, 'standby back in use for reads');
          standby.inUse = true;
          standby.outBecause = null;
        }
      }
    } catch (error) {
      standby.lagBytes = null;
      leaveOut(standby, 'it cannot be reached', error);
    }
  }

  async function check(): Promise<void> {
    primarySystem ??= (await primary.query<{ system: string }>('SELECT system_identifier::text AS system FROM pg_control_system()'))[0]!.system;
    const position = await primaryPosition();
    // Each on its own clock: a standby that does not answer holds no other's check.
    await Promise.all(standbys.map((standby) => checkOne(standby, position, primarySystem!)));
  }

  const runCheck = () => {
    due = null;
    checking = true;
    void check()
      .catch((error) => logger.warn({ err: error }, 'the standbys could not be checked (the primary did not answer)'))
      .finally(() => {
        checking = false;
        schedule(standbys.some((standby) => !standby.inUse) ? RECHECK_MS : CHECK_MS);
      });
  };
  /** A check in `ms`, unless one is due sooner or one is running (it sets the next as it ends, 100 ms later while one is out). */
  function schedule(ms: number): void {
    if (closed || checking) return;
    if (due) {
      if (due.at <= performance.now() + ms) return;
      clearTimeout(due.timer);
    }
    const timer = setTimeout(runCheck, ms);
    timer.unref();
    due = { timer, at: performance.now() + ms };
  }

  return {
    reads: {
      query: (sql, params, options) =>
        routed(
          (connection) => connection.query(sql, params, options),
          () => primary.query(sql, params, options),
          sql,
        ),
      snapshot: (work) =>
        routed(
          (connection) => inStandbySnapshot(connection, work),
          () => readOnlySnapshot(primary, work),
          'a snapshot',
        ),
      exec: (sql) => primary.exec(sql),
      copyRows: (table, columns, rows) => primary.copyRows(table, columns, rows),
    },
    standbys: () => standbys.map(({ name, inUse, lagBytes, reads }) => ({ name, inUse, lagBytes, reads })),
    primaryReads: () => primaryReads,
    start: runCheck,
    async close() {
      closed = true;
      if (due) clearTimeout(due.timer);
      await Promise.all(standbys.map(async (standby) => (await standby.opening?.catch(() => null))?.close() ?? standby.db?.close()));
    },
  };
}
