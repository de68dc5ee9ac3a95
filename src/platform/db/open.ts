import path from 'node:path';
import type { DatabaseTarget } from '../../config.js';
import type { Database } from './database.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export interface OpenedDatabase {
  db: Database;
  close(): Promise<void>;
}

/** Opens the configured database; the embedded one on disk is held with a lock file. */
export async function openDatabase(target: DatabaseTarget): Promise<OpenedDatabase> {
  if (target.kind === 'postgres') {
    const db = await openPostgres(target.url);
    return { db, close: () => db.close() };
  }
  let lock: DataDirLock | null = null;
  // The lock file sits beside the database folder, not inside PostgreSQL's own files.
  if (target.kind === 'pglite') lock = lockDataDir(path.dirname(target.dataDir));
  try {
    const db = await openPglite(target.kind === 'pglite' ? target.dataDir : null);
    return {
      db,
      async close() {
        await db.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
