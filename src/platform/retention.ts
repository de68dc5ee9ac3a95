// Retention: each table that only matters for a while has a sweep, owned by the module that
// writes the table, that deletes what has stopped mattering (periods in docs/api-reference.md,
// "Retention"). The process that runs background work runs them all once a minute, and
// `drain()` runs them after the work due now, so a test that moves the clock sees the
// deletions the new time calls for.
//
// A sweep deletes in batches of BATCH_ROWS, each its own short statement whose rows are
// locked with SKIP LOCKED: several processes sweeping one PostgreSQL share the work instead
// of waiting on each other, and no batch holds locks long enough to stall the requests that
// write those tables. A run stops after MAX_BATCHES of a statement, so a backlog (the first
// sweep after an upgrade) goes over the following minutes and never holds up a shutdown.
// Cutoffs come from the injected clock.
//
// Deleted rows leave dead space that only VACUUM makes reusable. PostgreSQL's autovacuum
// does that; the embedded database has none, so there the sweeper vacuums the swept tables
// itself, once an hour: each is bounded, so each VACUUM is short. Nor has it a checkpointer:
// each run checkpoints it when its write-ahead log calls for it (wal-checkpoints.ts).
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Database, Queryable } from './db/database.js';
import { checkpointWhenDue } from './db/wal-checkpoints.js';

export const BATCH_ROWS = 1_000;
const MAX_BATCHES = 50;
const VACUUM_EVERY_MS = 3_600_000;

export interface Sweep {
  /** What it deletes, for the log ("finished jobs"). */
  name: string;
  /** The tables it deletes from (VACUUMed on the embedded database). */
  tables: readonly string[];
  /** Deletes what is past its retention now; answers how many rows went. */
  run(): Promise<number>;
}

/**
 * Runs `statement` until a batch deletes fewer than BATCH_ROWS rows (or MAX_BATCHES have
 * run), letting other work run between batches; answers the rows deleted. The statement
 * deletes at most `$1` rows and answers them (`RETURNING 1`); its other parameters follow.
 */
export async function deleteInBatches(db: Queryable, statement: string, params: readonly unknown[] = []): Promise<number> {
  let total = 0;
  for (let batch = 1; ; batch++) {
    const deleted = (await db.query(statement, [BATCH_ROWS, ...params])).length;
    total += deleted;
    if (deleted < BATCH_ROWS || batch === MAX_BATCHES) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface RetentionDeps {
  logger: Logger;
  clock: Clock;
  /** The embedded database, which has no autovacuum and no checkpointer; null on PostgreSQL. */
  embedded: Database | null;
}

export function retentionSweeper({ logger, clock, embedded }: RetentionDeps, sweeps: readonly Sweep[]) {
  let running: Promise<void> | null = null;
  let lastVacuumMs = Number.NEGATIVE_INFINITY;

  // One after another, so they never compete for the database; a sweep that fails is logged
  // and the others still run.
  async function runAll(): Promise<void> {
    for (const sweep of sweeps) {
      try {
        const deleted = await sweep.run();
        if (deleted > 0) logger.info({ sweep: sweep.name, deleted }, 'retention sweep deleted rows');
      } catch (error) {
        logger.warn({ err: error, sweep: sweep.name }, 'retention sweep failed');
      }
    }
    const nowMs = clock.nowMs();
    // A clock set back (the test clock) counts as due.
    if (embedded && (nowMs - lastVacuumMs >= VACUUM_EVERY_MS || nowMs < lastVacuumMs)) {
      lastVacuumMs = nowMs;
      for (const table of sweeps.flatMap((sweep) => sweep.tables)) {
        await embedded.exec(`VACUUM ${table}`).catch((error) => logger.warn({ err: error, table }, 'vacuum after retention sweep failed'));
      }
    }
    if (embedded) await checkpointWhenDue(embedded, logger);
  }

  /** Every sweep once, after the one in progress (if any), so its cutoffs are those of now. */
  async function sweep(): Promise<void> {
    while (running) await running;
    running = runAll().finally(() => {
      running = null;
    });
    await running;
  }

  return {
    sweep,
    /** The timer's turn: skipped while a sweep is still running. */
    tick(): void {
      if (!running) void sweep();
    },
    /** Waits for the sweep in progress, if any (before the database closes). */
    async idle(): Promise<void> {
      while (running) await running;
    },
  };
}

export type RetentionSweeper = ReturnType<typeof retentionSweeper>;
