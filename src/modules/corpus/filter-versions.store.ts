// Versions of what compiled filters depend on (migration 004). A process that keeps compiled
// filters in memory reads these before matching and recompiles when one moved. In the corpus,
// the lowest of the features that move them (entity merges; sensors and beats move theirs),
// so every writer and the filters' caches that read them import it downwards.
import type { Queryable } from '../../platform/db/database.js';

export type FilterVersionName = 'sensors' | 'beats' | 'entities';

/** Moves a version, in the caller's transaction (committed with the change it announces). */
export async function bumpFilterVersion(tx: Queryable, name: FilterVersionName): Promise<void> {
  await tx.query('UPDATE filter_versions SET version = version + 1 WHERE name = $1', [name]);
}

/** These versions in one string: equal strings mean nothing a compiled filter reads has changed. */
export async function readFilterVersions(db: Queryable, names: readonly FilterVersionName[]): Promise<string> {
  const rows = await db.query<{ name: string; version: string }>(
    'SELECT name, version::text AS version FROM filter_versions WHERE name = ANY($1::text[]) ORDER BY name',
    [names],
  );
  return rows.map((row) => `${row.name}:${row.version}`).join(',');
}
