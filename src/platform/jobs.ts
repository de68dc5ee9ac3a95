// Durable background work in the database. A small queue on FOR UPDATE SKIP LOCKED rather
// than pg-boss: pg-boss schedules with the database's now(), while every retry, backoff and
// due time here must follow the injected clock (the test clock moves time without sleeping);
// and it must run unchanged on PGlite, which is one connection.
//
// Guarantees: a job is stored in the caller's transaction (enqueue takes a Queryable), so it
// exists exactly when the change that caused it commits; it survives restarts; a claim is
// taken under SKIP LOCKED, so with several processes each attempt runs once; a claim whose
// process died is retaken once its lease has passed (on the embedded database, which only
// one process can open, at start-up); failures retry with exponential backoff and jitter.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Database, Queryable } from './db/database.js';

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
}

export interface EnqueueOptions {
  runAt?: Date;
  /** A second enqueue with the same key is ignored (at most one such job ever). */
  dedupeKey?: string;
}

/** Thrown by a handler to retry after a delay it chooses (for example a Retry-After). */
export class RetryLaterError extends Error {
  constructor(readonly delayMs: number, message = 'retry later') {
    super(message);
  }
}

const LEASE_MS = 5 * 60_000;
const POLL_INTERVAL_MS = 500;
const BATCH = 16;

const defaultBackoff = (attempt: number) => Math.min(2 ** (attempt - 1) * 5_000, 3_600_000);

interface ClaimedJob {
  id: number;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

export function jobQueue(db: Database, clock: Clock, logger: Logger) {
  const handlers = new Map<string, { handler: JobHandler; options: Required<JobKindOptions> }>();
  const workerId = `${hostname()}:${process.pid}`;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;

  async function claim(limit: number): Promise<ClaimedJob[]> {
    const now = clock.now();
    return db.query<ClaimedJob>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_until = $2, locked_by = $3
        WHERE id IN (
          SELECT id FROM jobs
           WHERE kind = ANY($4) AND (
                 (status = 'pending' AND run_at <= $1)
              OR (status = 'running' AND locked_until < $1))
           ORDER BY run_at, id
           LIMIT $5
           FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [now, new Date(now.getTime() + LEASE_MS), workerId, [...handlers.keys()], limit],
    );
  }

  async function settle(job: ClaimedJob, error: unknown): Promise<void> {
    const now = clock.now();
    if (error === null) {
      await db.query(`UPDATE jobs SET status = 'done', finished_at = $2, locked_until = NULL, last_error = NULL WHERE id = $1`, [job.id, now]);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (job.attempts >= job.max_attempts) {
      logger.error({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: error }, 'job failed for good');
      await db.query(`UPDATE jobs SET status = 'failed', finished_at = $2, locked_until = NULL, last_error = $3 WHERE id = $1`, [
        job.id,
        now,
        message,
      ]);
      return;
    }
    const base = error instanceof RetryLaterError ? error.delayMs : handlers.get(job.kind)!.options.backoffMs(job.attempts);
    const delay = error instanceof RetryLaterError ? base : base * (0.8 + Math.random() * 0.4);
    logger.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, retryInMs: Math.round(delay), err: message }, 'job attempt failed');
    await db.query(`UPDATE jobs SET status = 'pending', run_at = $2, locked_until = NULL, last_error = $3 WHERE id = $1`, [
      job.id,
      new Date(now.getTime() + delay),
      message,
    ]);
  }

  async function run(job: ClaimedJob): Promise<void> {
    const entry = handlers.get(job.kind)!;
    let failure: unknown = null;
    try {
      await entry.handler(job.payload, { jobId: job.id, attempt: job.attempts, maxAttempts: job.max_attempts });
    } catch (error) {
      failure = error ?? new Error('job failed');
    }
    await settle(job, failure);
  }

  function track(promise: Promise<void>): void {
    const tracked = promise.catch((error) => logger.error({ err: error }, 'job bookkeeping failed'));
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
  }

  /** Claims one batch of due jobs and starts them; returns how many it claimed. */
  async function runBatch(): Promise<number> {
    if (handlers.size === 0) return 0;
    const jobs = await claim(BATCH);
    for (const job of jobs) track(run(job));
    return jobs.length;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      runBatch()
        .catch((error) => logger.error({ err: error }, 'job poll failed'))
        .finally(() => schedule(POLL_INTERVAL_MS));
    }, delay);
    timer.unref();
  }

  return {
    register(kind: string, handler: JobHandler, options: JobKindOptions = {}): void {
      handlers.set(kind, { handler, options: { maxAttempts: options.maxAttempts ?? 8, backoffMs: options.backoffMs ?? defaultBackoff } });
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
      if (!stopped) schedule(0);
    },

    /** Embedded database only: this process is alone, so claims left running by a dead process are free. */
    async releaseOrphans(): Promise<number> {
      const rows = await db.query(`UPDATE jobs SET status = 'pending', locked_until = NULL WHERE status = 'running' RETURNING id`);
      return rows.length;
    },

    /** Runs every job due now, and those they enqueue, until none is left. */
    async drain(): Promise<void> {
      for (;;) {
        const claimed = await runBatch();
        if (claimed === 0 && inFlight.size === 0) return;
        await Promise.all([...inFlight]);
      }
    },

    start(): void {
      stopped = false;
      schedule(0);
    },

    /** Stops polling and waits for running jobs to settle. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.all([...inFlight]);
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
