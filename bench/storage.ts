// What a loaded corpus costs on disk, per live event: every table of the service's schema with
// its heap, TOAST and each index, after VACUUM (dead versions made reusable, the size the
// goal is read at), and on the embedded database the data folder beside its tables (its
// write-ahead log and the rest). Goals (issue "a compact corpus"): <= 3,000 bytes per live
// event at a million on PostgreSQL; the PGlite data folder <= 1.2 x its tables.
//
//   BENCH_DATABASE_URL=postgres://…?options=-c%20search_path%3D<schema> npx tsx bench/storage.ts
//   BENCH_CORPUS_DIR=<EVMON_DATA_DIR of a loaded corpus> npx tsx bench/storage.ts
//   BENCH_VACUUM=0         measure as found (no VACUUM first)
//   BENCH_MIGRATE=1        apply the service's pending migrations first, timed (a corpus converted in place)
//   BENCH_JSON=<file>      also write the figures as JSON
// Each index's scans, and each table's updates and how many were HOT, are the database's counts
// since its statistics were last reset (SELECT pg_stat_reset() before a mix of requests shows
// which indexes the mix reads). The embedded database's folder is measured after a checkpoint,
// as its writers leave it (wal-checkpoints.ts): the log of this program's VACUUM is not counted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/platform/db/migrate.js';
import { openDatabase } from '../src/platform/db/open.js';
import { openPostgres } from '../src/platform/db/postgres.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const CORPUS_DIR = process.env.BENCH_CORPUS_DIR;
if (!DATABASE_URL === !CORPUS_DIR) throw new Error('name a loaded corpus: BENCH_DATABASE_URL (PostgreSQL) or BENCH_CORPUS_DIR (an embedded data folder)');
const VACUUM = process.env.BENCH_VACUUM !== '0';
const MIGRATE = process.env.BENCH_MIGRATE === '1';

// The embedded database where the service keeps it in that data folder.
const embedded = CORPUS_DIR ? loadConfig({ EVMON_DATA_DIR: CORPUS_DIR, EVMON_SEED: 'none' }).database : null;
if (embedded && embedded.kind !== 'pglite') throw new Error(`${CORPUS_DIR} holds no embedded database on disk`);
// On PostgreSQL without the service's statement timeout: a VACUUM of a million events' reports
// takes longer than a request may.
const { db, close } = embedded
  ? await openDatabase(embedded)
  : await openPostgres(DATABASE_URL!, { poolSize: 1, settings: { statement_timeout: '0' } }).then((pg) => ({ db: pg, close: () => pg.close() }));

/** Bytes of a folder and everything in it, as `du` counts them (allocated blocks). */
const folderBytes = (folder: string) => Number(execFileSync('du', ['-s', '--block-size=1', folder]).toString().split('\t')[0]);

if (MIGRATE) {
  const started = performance.now();
  const applied = await migrate(db);
  console.log(`migrations applied: ${applied.length === 0 ? 'none' : applied.join(', ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
if (VACUUM) {
  const started = performance.now();
  // The service's tables only: a PostgreSQL database may hold other schemas.
  const tables = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = current_schema()`,
  );
  for (const { name } of tables) await db.exec(`VACUUM ${name}`);
  console.log(`VACUUM in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

type Index = { name: string; bytes: number; scans: number };
type Relation = { table: string; rows: number; updates: number; hot: number; heap: number; toast: number; indexes: Index[] };
const relations = await db.query<Omit<Relation, 'indexes'> & { indexes: Index[] | null }>(
  `SELECT c.relname AS table, c.reltuples::float8 AS rows,
          pg_stat_get_tuples_updated(c.oid)::float8 AS updates, pg_stat_get_tuples_hot_updated(c.oid)::float8 AS hot,
          pg_table_size(c.oid)::float8 - COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::float8 AS heap,
          COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::float8 AS toast,
          (SELECT json_agg(json_build_object('name', i.relname, 'bytes', pg_relation_size(i.oid)::float8, 'scans', pg_stat_get_numscans(i.oid))
                     ORDER BY pg_relation_size(i.oid) DESC)
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = c.oid) AS indexes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname = current_schema()
    ORDER BY pg_total_relation_size(c.oid) DESC`,
);
const tables: Relation[] = relations.map((row) => ({ ...row, indexes: row.indexes ?? [] }));
const [{ live, reports }] = (await db.query<{ live: number; reports: number }>(
  `SELECT (SELECT count(*) FROM events WHERE merged_into_event_id IS NULL AND deleted_at IS NULL)::float8 AS live,
          (SELECT count(*) FROM reports)::float8 AS reports`,
)) as [{ live: number; reports: number }];
if (db.kind === 'pglite') await db.exec('CHECKPOINT');
const walBytes = embedded?.kind === 'pglite' ? folderBytes(path.join(embedded.dataDir, 'pg_wal')) : null;
const dataFolderBytes = embedded?.kind === 'pglite' ? folderBytes(embedded.dataDir) : null;
await close();

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const perEvent = (bytes: number) => (live === 0 ? 'n/a' : (bytes / live).toFixed(0));
const indexBytesOf = (t: Relation) => t.indexes.reduce((sum, index) => sum + index.bytes, 0);
const totalOf = (t: Relation) => t.heap + t.toast + indexBytesOf(t);
const total = tables.reduce((sum, t) => sum + totalOf(t), 0);

console.log(
  `storage: ${db.kind}; ${live.toLocaleString('en')} live events, ${reports.toLocaleString('en')} reports; ${os.cpus().length} cores; ${new Date().toISOString().slice(0, 10)}`,
);
console.log('table | rows | heap MB | TOAST MB | indexes MB | total MB | bytes per live event');
for (const t of tables) {
  if (totalOf(t) < 2 ** 20) continue; // the small tables, counted in the total
  console.log(
    `${t.table} | ${Math.round(t.rows).toLocaleString('en')} | ${mb(t.heap)} | ${mb(t.toast)} | ${mb(indexBytesOf(t))} | ${mb(totalOf(t))} | ${perEvent(totalOf(t))}`,
  );
  for (const index of t.indexes) {
    if (index.bytes >= 2 ** 20)
      console.log(`  ${index.name} | ${mb(index.bytes)} MB | ${perEvent(index.bytes)} bytes per live event | ${index.scans.toLocaleString('en')} scans`);
  }
}
for (const t of tables) {
  if (t.updates > 0)
    console.log(
      `${t.table}: ${t.updates.toLocaleString('en')} rows updated, ${((100 * t.hot) / t.updates).toFixed(1)}% of them HOT (kept on their page, no index entry)`,
    );
}
console.log(`all tables, indexes and TOAST: ${mb(total)} MB, ${perEvent(total)} bytes per live event (goal <= 3,000 at a million, PostgreSQL)`);
if (dataFolderBytes !== null && walBytes !== null) {
  console.log(
    `data folder: ${mb(dataFolderBytes)} MB (write-ahead log ${mb(walBytes)} MB), ${(dataFolderBytes / total).toFixed(2)} x its tables (goal <= 1.2)`,
  );
}
if (process.env.BENCH_JSON) {
  fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ storage: db.kind, live, reports, total, dataFolderBytes, walBytes, tables }, null, 2));
}
