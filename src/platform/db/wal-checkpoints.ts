// The embedded database (PGlite) runs PostgreSQL as one process with no checkpointer, so its
// write-ahead log is never recycled: it grows with every write (6.4 GB after loading 460,000
// demo events beside 4.1 GB of tables), and a start after a crash replays all of it. So the
// writers of the embedded database ask now and then, and it checkpoints once the log written
// since the last checkpoint reaches CHECKPOINT_AFTER_BYTES: the log then stays under about
// that (a checkpoint deletes the segments before it, pglite.ts), and a checkpoint takes about
// 150 ms (a quarter of a gigabyte of inserts, 2 cores). PostgreSQL's checkpointer does this itself.
import type { Logger } from 'pino';
import type { Database } from './database.js';

const CHECKPOINT_AFTER_BYTES = 256 * 2 ** 20;

/**
 * On the embedded database, a checkpoint if the log written since the last one reaches
 * `afterBytes`; answers whether it checkpointed. Failures are logged: the next call tries again.
 */
export async function checkpointWhenDue(db: Database, logger: Logger, afterBytes = CHECKPOINT_AFTER_BYTES): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  try {
    const [row] = await db.query<{ bytes: number }>(
      'SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()',
    );
    if (row!.bytes < afterBytes) return false;
    const started = performance.now();
    await db.exec('CHECKPOINT');
    logger.info({ walBytes: row!.bytes, ms: Math.round(performance.now() - started) }, 'embedded database checkpointed');
    return true;
  } catch (error) {
    logger.warn({ err: error }, 'checkpointing the embedded database failed; the next writer tries again');
    return false;
  }
}
