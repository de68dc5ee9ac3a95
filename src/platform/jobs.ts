// Durable background work in the database. A small queue on FOR UPDATE SKIP LOCKED rather
// than pg-boss: pg-boss schedules with the database's now(), while every due time, retry and
// backoff here must follow the injected clock (the test clock moves time without sleeping);
// and it must run unchanged on PGlite, which is one connection.
//
// Guarantees:
// - a job is stored in the caller's transaction (enqueue takes a Queryable), so it exists
//   exactly when the change that caused it commits, and survives restarts;
// - a claim is taken under SKIP LOCKED, so with several processes each attempt runs once;
// - a claim is a lease on the database's own clock (not the injected one: moving the test
//   clock must not make a running job look abandoned), renewed while the job runs; a claim
//   whose process died is retaken once its lease has passed (on the embedded database, which
//   one process alone can open, at start-up), and fails for good once it has used its
//   attempts, so a job that crashes its process cannot loop;
// - outcomes are written only by the claim's owner (worker id and attempt must match);
// - failures retry with exponential backoff and jitter on the injected clock.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Database, Queryable } from './db/database.js';
import { groupCommit } from './group-commit.js';
import { poller } from './poller.js';
import { deleteInBatches } from './retention.js';

export interface JobContext {
  jobId: number;
  attempt: number;
  maxAttempts: number;
}

export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

export interface JobKindOptions {
  maxAttempts?: number;
  /** Delay before retry number `attempt` (1-based), in ms, before jitter. */
  backoffMs?: (attempt: number) => number;
  /**
   * Told, in the process that ran it, when a job of this kind is done: the seconds from the
   * job being stored to it being marked done, both on the database's clock (so the enqueuing
   * process may be another, and the test clock does not enter into it).
   */
  onDone?: (secondsSinceStored: number) => void;
}

/** Jobs waiting or running now, per kind (for the metrics). */
export interface JobBacklog {
  kind: string;
  /** Pending and due now. */
  due: number;
  running: number;
  /** Seconds since the oldest due job became due, by the service's clock; 0 when none is due. */
  oldestDueSeconds: number;
}

export interface EnqueueOptions {
  runAt?: Date;
  /** A second enqueue with the same key is ignored (at most one such job ever). */
  dedupeKey?: string;
}

/** Thrown by a handler to retry after a delay it chooses (for example a Retry-After). */
export class RetryLaterError extends Error {
  constructor(
    readonly delayMs: number,
    message = 'retry later',
  ) {
    super(message);
  }
}

const LEASE_SECONDS = 60;
const HEARTBEAT_MS = 20_000;
const POLL_INTERVAL_MS = 500;
/**
 * Jobs one process runs at once. Each holds a database connection while it works, and the
 * pool has 10 (postgres.ts), shared with requests: more jobs than that only queue for a
 * connection, and a slow batch of them made requests and the jobs' own bookkeeping time out
 * waiting for one.
 */
const MAX_CONCURRENT = 6;
const RELEASE_INTERVAL_MS = 1_000;
/** How long drain() waits for jobs that other processes are running. */
const DRAIN_WAIT_MS = 30_000;

/** Finished jobs are kept this long: a done one a day, one that failed for good a week (its `last_error` is what an operator reads). */
export const DONE_JOB_RETENTION_MS = 24 * 3_600_000;
export const FAILED_JOB_RETENTION_MS = 7 * 24 * 3_600_000;

const defaultBackoff = (attempt: number) => Math.min(2 ** (attempt - 1) * 5_000, 3_600_000);

interface ClaimedJob {
  id: number;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

export function jobQueue(db: Database, clock: Clock, logger: Logger) {
  const handlers = new Map<string, { handler: JobHandler; options: Required<Omit<JobKindOptions, 'onDone'>> & Pick<JobKindOptions, 'onDone'> }>();
  const workerId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const running = new Map<number, Promise<void>>();

  const kinds = () => [...handlers.keys()];

  /**
   * Claims whose lease passed (their worker died): with no attempt left they fail for good
   * instead of running again; otherwise they are due again at once. Rows another process is
   * releasing are skipped, so two processes never deadlock on them.
   */
  async function releaseExpired(): Promise<void> {
    await db.query(
      `UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
              finished_at = CASE WHEN attempts >= max_attempts THEN $1::timestamptz END, locked_until = NULL,
              last_error = CASE WHEN attempts >= max_attempts THEN 'abandoned by its worker' ELSE last_error END
        WHERE id IN (SELECT id FROM jobs WHERE status = 'running' AND locked_until < now() AND kind = ANY($2) FOR UPDATE SKIP LOCKED)`,
      [clock.now(), kinds()],
    );
  }

  let lastRelease = -Infinity;
  async function claim(limit: number): Promise<ClaimedJob[]> {
    // Leases last a minute: looking for expired ones once a second is plenty, however often
    // claims come under load.
    if (performance.now() - lastRelease >= RELEASE_INTERVAL_MS) {
      lastRelease = performance.now();
      await releaseExpired();
    }
    // Pending jobs only, so the claim walks the due index (jobs_due) in its order.
    return db.query<ClaimedJob>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1,
              locked_until = now() + make_interval(secs => $2), locked_by = $3
        WHERE id IN (
          SELECT id FROM jobs
           WHERE status = 'pending' AND run_at <= $1 AND kind = ANY($4) AND NOT (id = ANY($6::bigint[]))
           ORDER BY run_at, id
           LIMIT $5
           FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [clock.now(), LEASE_SECONDS, workerId, kinds(), limit, [...running.keys()]],
    );
  }

  // Successes of jobs finishing together are written in one statement (group commit).
  const markDone = groupCommit(async (_key, jobs: readonly ClaimedJob[]) => {
    const done = await db.query<{ kind: string; seconds: number | null }>(
      `UPDATE jobs SET status = 'done', finished_at = $2, locked_until = NULL, last_error = NULL
        WHERE locked_by = $1 AND status = 'running' AND (id, attempts) IN (SELECT * FROM unnest($3::bigint[], $4::int[]))
        RETURNING kind, extract(epoch FROM clock_timestamp() - stored_at)::float8 AS seconds`,
      [workerId, clock.now(), jobs.map((job) => job.id), jobs.map((job) => job.attempts)],
    );
    for (const { kind, seconds } of done) if (seconds !== null) handlers.get(kind)?.options.onDone?.(seconds);
  });

  /** Writes an outcome, if this worker still owns the claim. */
  async function settle(job: ClaimedJob, error: unknown): Promise<void> {
    if (error === null) return markDone('done', job);
    const now = clock.now();
    const owned = "id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'running'";
    const owner = [job.id, workerId, job.attempts];
    const message = error instanceof Error ? error.message : String(error);
    if (job.attempts >= job.max_attempts) {
      logger.error({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: error }, 'job failed for good');
      await db.query(`UPDATE jobs SET status = 'failed', finished_at = $4, locked_until = NULL, last_error = $5 WHERE ${owned}`, [...owner, now, message]);
      return;
    }
    const retryLater = error instanceof RetryLaterError;
    const base = retryLater ? error.delayMs : handlers.get(job.kind)!.options.backoffMs(job.attempts);
    const delay = retryLater ? base : base * (0.8 + Math.random() * 0.4);
    logger.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, retryInMs: Math.round(delay), err: message }, 'job attempt failed');
    await db.query(`UPDATE jobs SET status = 'pending', run_at = $4, locked_until = NULL, last_error = $5 WHERE ${owned}`, [
      ...owner,
      new Date(now.getTime() + delay),
      message,
    ]);
  }

  async function run(job: ClaimedJob): Promise<void> {
    const entry = handlers.get(job.kind)!;
    const heartbeat = setInterval(() => {
      db.query(`UPDATE jobs SET locked_until = now() + make_interval(secs => $3) WHERE id = $1 AND locked_by = $2 AND status = 'running'`, [
        job.id,
        workerId,
        LEASE_SECONDS,
      ]).catch((error) => logger.warn({ err: error, jobId: job.id }, 'job lease renewal failed'));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let failure: unknown = null;
    try {
      await entry.handler(job.payload, { jobId: job.id, attempt: job.attempts, maxAttempts: job.max_attempts });
    } catch (error) {
      failure = error ?? new Error('job failed');
    } finally {
      clearInterval(heartbeat);
    }
    await settle(job, failure);
  }

  /** Claims due jobs up to the concurrency bound and starts them; returns how many it claimed. */
  async function claimBatch(): Promise<number> {
    const room = MAX_CONCURRENT - running.size;
    if (handlers.size === 0 || room <= 0) return 0;
    const jobs = await claim(room);
    for (const job of jobs) {
      const promise = run(job)
        .catch((error) => logger.error({ err: error, jobId: job.id }, 'job bookkeeping failed'))
        .finally(() => {
          running.delete(job.id);
          loop.schedule(0); // room for the next one
        });
      running.set(job.id, promise);
    }
    return jobs.length;
  }

  const loop = poller({ claim: claimBatch, pollMs: POLL_INTERVAL_MS, onError: (error) => logger.error({ err: error }, 'job poll failed') });

  /** Jobs due now that are waiting or running anywhere (any process). */
  async function outstanding(): Promise<number> {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE kind = ANY($2) AND ((status = 'pending' AND run_at <= $1) OR status = 'running')`,
      [clock.now(), kinds()],
    );
    return rows[0]?.n ?? 0;
  }

  /** Looks for work once new jobs are visible: after the caller's commit, not while it may still be open. */
  function wakeAfterCommit(tx: Queryable): void {
    const wake = () => loop.schedule(0);
    if (tx.afterCommit) tx.afterCommit(wake);
    else wake();
  }

  /** Stores one job of each kind for each payload, in one statement, payload by payload. */
  async function enqueueEachOf(tx: Queryable, kinds: readonly string[], payloads: readonly unknown[]): Promise<void> {
    if (payloads.length === 0) return;
    const maxAttempts = kinds.map((kind) => {
      const entry = handlers.get(kind);
      if (!entry) throw new Error(`no handler registered for job kind ${kind}`);
      return entry.options.maxAttempts;
    });
    const now = clock.now();
    await tx.query(
      `INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
       SELECT kind, p.payload::jsonb, $3, max_attempts, $3
         FROM unnest($2::text[]) WITH ORDINALITY AS p(payload, n), unnest($1::text[], $4::int[]) AS t(kind, max_attempts)
        ORDER BY p.n`,
      [kinds, payloads.map((payload) => JSON.stringify(payload)), now, maxAttempts],
      { prepared: true },
    );
    wakeAfterCommit(tx);
  }

  return {
    register(kind: string, handler: JobHandler, options: JobKindOptions = {}): void {
      handlers.set(kind, {
        handler,
        options: { maxAttempts: options.maxAttempts ?? 8, backoffMs: options.backoffMs ?? defaultBackoff, onDone: options.onDone },
      });
    },

    /** Stores a job in the caller's transaction (or directly on the database). */
    async enqueue(tx: Queryable, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<void> {
      const entry = handlers.get(kind);
      if (!entry) throw new Error(`no handler registered for job kind ${kind}`);
      const now = clock.now();
      await tx.query(
        `INSERT INTO jobs (kind, payload, run_at, max_attempts, dedupe_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (dedupe_key) DO NOTHING`,
        [kind, JSON.stringify(payload), options.runAt ?? now, entry.options.maxAttempts, options.dedupeKey ?? null, now],
      );
      wakeAfterCommit(tx);
    },

    /** Stores one job of each kind, all with this payload, in one statement (see enqueue). */
    enqueueEach(tx: Queryable, kinds: readonly string[], payload: unknown): Promise<void> {
      return enqueueEachOf(tx, kinds, [payload]);
    },

    enqueueEachOf,

    /** Embedded database only: this process is alone, so claims left running by a dead process are free. */
    async releaseOrphans(): Promise<number> {
      const rows = await db.query(`UPDATE jobs SET status = 'pending', locked_until = NULL WHERE status = 'running' RETURNING id`);
      return rows.length;
    },

    /**
     * Runs every job due now, and those they enqueue, until none is left; jobs that other
     * processes hold are waited for, up to DRAIN_WAIT_MS. With `runHere: false` (a process
     * that serves requests only) it runs none itself and waits for other processes to.
     */
    async drain(options: { waitForOthersMs?: number; runHere?: boolean } = {}): Promise<void> {
      const deadline = performance.now() + (options.waitForOthersMs ?? DRAIN_WAIT_MS);
      for (;;) {
        const claimed = options.runHere === false ? 0 : await loop.claimNow();
        if (running.size > 0) {
          await Promise.race([...running.values()]);
          continue;
        }
        if (claimed > 0) continue;
        if ((await outstanding()) === 0 || performance.now() > deadline) return;
        await new Promise((resolve) => setTimeout(resolve, 25)); // another process is running one
      }
    },

    start(): void {
      loop.start();
    },

    /** Stops polling and waits for the claim in progress and the running jobs to settle. */
    async stop(): Promise<void> {
      await loop.stop();
      await Promise.all([...running.values()]);
    },

    /**
     * Deletes jobs finished longer ago than their retention; answers how many. A job still
     * pending or running is never deleted, nor one with a dedupe key (at most one such job
     * ever: its row is what says so).
     */
    async sweep(): Promise<number> {
      const now = clock.nowMs();
      const finishedBefore = (status: 'done' | 'failed') =>
        `DELETE FROM jobs WHERE id IN (
           SELECT id FROM jobs WHERE status = '${status}' AND dedupe_key IS NULL AND finished_at < $2 LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING 1`;
      const done = await deleteInBatches(db, finishedBefore('done'), [new Date(now - DONE_JOB_RETENTION_MS)]);
      const failed = await deleteInBatches(db, finishedBefore('failed'), [new Date(now - FAILED_JOB_RETENTION_MS)]);
      return done + failed;
    },

    /**
     * Per registered kind, the jobs due and running now (any process). Walks the partial
     * indexes of pending and running jobs only, so it costs what the backlog holds.
     */
    async backlog(): Promise<JobBacklog[]> {
      const now = clock.now();
      const rows = await db.query<{ kind: string; due: number; running: number; oldest: Date | null }>(
        `SELECT kind, count(*) FILTER (WHERE status = 'pending')::int AS due, count(*) FILTER (WHERE status = 'running')::int AS running,
                min(run_at) FILTER (WHERE status = 'pending') AS oldest
           FROM jobs WHERE (status = 'pending' AND run_at <= $1) OR status = 'running' GROUP BY kind`,
        [now],
      );
      const byKind = new Map(rows.map((row) => [row.kind, row]));
      return kinds().map((kind) => {
        const row = byKind.get(kind);
        const oldestDueSeconds = row?.oldest ? Math.max(0, (now.getTime() - row.oldest.getTime()) / 1000) : 0;
        return { kind, due: row?.due ?? 0, running: row?.running ?? 0, oldestDueSeconds };
      });
    },

    /** Counts by status, for tests and the operator. */
    async counts(kind?: string): Promise<Record<string, number>> {
      const rows = await db.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM jobs WHERE $1::text IS NULL OR kind = $1 GROUP BY status`,
        [kind ?? null],
      );
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
  };
}

export type JobQueue = ReturnType<typeof jobQueue>;
