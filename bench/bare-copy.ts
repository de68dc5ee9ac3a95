// The floor a loader is measured against: rows already in some tables COPYed into empty clones
// of those tables, with the same columns, defaults, identity, checks, indexes and foreign keys
// (a key to one of the cloned tables points at its clone). The rows go out to files first (not
// timed) and come back with COPY ... FROM (timed); clones and files are removed after.
//
// The files are the database server's: on PostgreSQL it must be a superuser's connection to a
// server on this machine (the files go to a folder of this process's, writable by the
// server); on PGlite they live in its own in-memory file system.
//
// `connections` > 1 (PostgreSQL): each table's rows are split in that many files, COPYed
// through as many connections at once: what the machine does when the database alone uses
// every core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Database } from '../src/platform/db/database.js';

export interface CopiedTable {
  table: string;
  rows: number;
  seconds: number;
}

/**
 * `selections`: for each table, parents before children, the SELECT of its rows to copy (no
 * parameters: COPY takes none). Answers each table's rows and COPY time, in that order.
 */
export async function bareCopy(db: Database, selections: ReadonlyMap<string, string>, connections = 1): Promise<CopiedTable[]> {
  if (connections > 1 && db.kind !== 'postgres') throw new Error('a bare COPY through several connections needs PostgreSQL');
  const tables = [...selections.keys()];
  const folder = db.kind === 'postgres' ? fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-copy-')) : '/tmp';
  if (db.kind === 'postgres') fs.chmodSync(folder, 0o777); // the server's user writes there
  const file = (table: string, part = 0) => `${folder}/evmon-bench-copy-${table}.${part}.copy`;
  const parts = Array.from({ length: connections }, (_, part) => part);
  const clone = (table: string) => `bench_copy_${table}`;
  const dropClones = async () => {
    for (const table of [...tables].reverse()) await db.exec(`DROP TABLE IF EXISTS ${clone(table)}`);
  };
  const count = async (sql: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) t`))[0]!.n;
  try {
    await dropClones();
    const copied: CopiedTable[] = [];
    for (const [table, selection] of selections) {
      for (const part of parts) {
        const share = connections === 1 ? selection : `SELECT * FROM (${selection}) s WHERE abs(hashtext(s::text)) % ${connections} = ${part}`;
        await db.exec(`COPY (${share}) TO '${file(table, part)}'`);
      }
      copied.push({ table, rows: await count(selection), seconds: 0 });
      await db.exec(`CREATE TABLE ${clone(table)} (LIKE ${table} INCLUDING ALL)`);
      // LIKE copies no foreign key: each one again, pointing at the clone of a copied table.
      const keys = await db.query<{ name: string; definition: string }>(
        `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
        [table],
      );
      for (const key of keys) {
        const definition = key.definition.replace(/REFERENCES (\w+)\(/, (whole, target: string) =>
          selections.has(target) ? `REFERENCES ${clone(target)}(` : whole,
        );
        await db.exec(`ALTER TABLE ${clone(table)} ADD CONSTRAINT ${key.name}_copy ${definition}`);
      }
    }
    for (const entry of copied) {
      const started = performance.now();
      await Promise.all(parts.map((part) => db.exec(`COPY ${clone(entry.table)} FROM '${file(entry.table, part)}'`)));
      entry.seconds = (performance.now() - started) / 1000;
      if ((await count(`SELECT 1 FROM ${clone(entry.table)}`)) !== entry.rows) throw new Error(`the copy of ${entry.table} lost rows`);
    }
    return copied;
  } finally {
    await dropClones();
    if (db.kind === 'postgres') fs.rmSync(folder, { recursive: true, force: true });
    else for (const table of tables) await db.exec(`COPY (SELECT 1 WHERE false) TO '${file(table)}'`).catch(() => undefined); // emptied, to free the memory
  }
}
