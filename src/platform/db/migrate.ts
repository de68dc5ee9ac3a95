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
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATIONS_LOCK]);
    await tx.query('SET LOCAL statement_timeout = 0'); // a migration may take as long as it needs
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    for (const migration of listMigrations()) {
      if (done.has(migration.name)) continue;
      // Plain SQL files may hold several statements; run them as one simple query.
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      applied.push(migration.name);
    }
  });
  return applied;
}

export async function pendingMigrations(db: Database): Promise<string[]> {
  const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations').catch(() => [] as { name: string }[]);
  const done = new Set(rows.map((r) => r.name));
  return listMigrations()
    .filter((m) => !done.has(m.name))
    .map((m) => m.name);
}
