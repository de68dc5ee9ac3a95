// Applies the numbered plain-SQL files of migrations/ in order, each in its own transaction,
// recording them in schema_migrations. An advisory lock keeps two processes starting on one
// PostgreSQL from applying the same file twice.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths.js';
import type { Database } from './database.js';

const MIGRATIONS_LOCK = 7_411_001;

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

export function listMigrations(): { name: string; sql: string }[] {
  const dir = MIGRATIONS_DIR;
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{3,}_[a-z0-9_-]+\.sql$/.test(file))
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

export async function migrate(db: Database): Promise<string[]> {
  const applied: string[] = [];
  // One transaction per file, so the locks a file takes (an ALTER TABLE, an index built over
  // a table) are held while it runs, not until the last file is done; a start stopped midway
  // keeps the files it finished. Only the files pending at start-up are looked at (a migrated
  // database costs one query), each read again under the lock.
  const pending = new Set(await pendingMigrations(db));
  for (const migration of listMigrations().filter((m) => pending.has(m.name))) {
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATIONS_LOCK]);
      await tx.query('SET LOCAL statement_timeout = 0'); // a migration may take as long as it needs
      await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      // Read under the lock: another process may have applied it meanwhile.
      if ((await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [migration.name])).length > 0) return false;
      // Plain SQL files may hold several statements; run them as one simple query.
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      return true;
    });
    if (ran) applied.push(migration.name);
  }
  return applied;
}

export async function pendingMigrations(db: Database): Promise<string[]> {
  const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations').catch(() => [] as { name: string }[]);
  const done = new Set(rows.map((r) => r.name));
  return listMigrations()
    .filter((m) => !done.has(m.name))
    .map((m) => m.name);
}
