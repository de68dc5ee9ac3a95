// Embedded PostgreSQL (PGlite). It is a single connection: PGlite queues every query, and
// its transaction() holds the connection until the callback ends, so a transaction that
// awaited another query on the outer handle would wait on itself. The Database contract
// forbids that by handing the callback its own `tx`.
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { copyStatement, copyText } from './copy-text.js';
import { commitHooks, type Database, type Queryable, type Row, readOnlySnapshot } from './database.js';
import { classified, DatabaseUnavailableError } from './failures.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

function asQueryable(target: PGlite | Transaction, isClosed: () => boolean): Queryable {
  const guard = () => {
    if (isClosed()) throw new DatabaseUnavailableError(new Error('the embedded database is closed'));
  };
  return {
    async query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      guard();
      try {
        return (await target.query(sql, params as unknown[])).rows as T[];
      } catch (error) {
        throw classified(error);
      }
    },
    async exec(sql: string) {
      guard();
      try {
        await target.exec(sql);
      } catch (error) {
        throw classified(error);
      }
    },
    async copyRows(table, columns, rows) {
      if (rows.length === 0) return;
      guard();
      try {
        // PGlite reads COPY's input from the blob given with the statement.
        await target.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([copyText(rows)]) });
      } catch (error) {
        throw classified(error);
      }
    },
  };
}

export async function openPglite(dataDir: string | null): Promise<Database> {
  const pg = await PGlite.create(dataDir ?? 'memory://', {
    // Counts and balances are int8; they fit a JS number far beyond any real balance.
    parsers: { [INT8_OID]: (value: string) => Number(value), [NUMERIC_OID]: (value: string) => Number(value) },
  });
  // Its one backend runs every checkpoint (wal-checkpoints.ts), so these settings of its session
  // are the checkpoints'. A checkpoint deletes the log segments it no longer needs instead of
  // renaming them for later use: recycled, they stayed in the folder as about twice the log
  // between two checkpoints (752 MB beside 1 GB of tables after 100,000 demo events).
  await pg.exec('SET wal_recycle = off').catch(async (error) => {
    await pg.close();
    throw classified(error);
  });
  let closed = false;
  const isClosed = () => closed;
  const outer = asQueryable(pg, isClosed);
  // Queries and transactions asked for and not yet ended: the one connection serves the first,
  // the others wait in PGlite's queue.
  let inUse = 0;
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    inUse++;
    try {
      return await work();
    } finally {
      inUse--;
    }
  };
  const counting: Queryable = {
    query: (sql, params) => counted(() => outer.query(sql, params)),
    exec: (sql) => counted(() => outer.exec(sql)),
    copyRows: (table, columns, rows) => counted(() => outer.copyRows(table, columns, rows)),
  };
  async function transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    if (closed) throw new DatabaseUnavailableError(new Error('the embedded database is closed'));
    const hooks = commitHooks();
    const result = await counted(() => pg.transaction((tx) => work(hooks.wrap(asQueryable(tx, isClosed)))));
    hooks.committed();
    return result;
  }
  return {
    kind: 'pglite',
    ...counting,
    reads: { ...counting, snapshot: (work) => readOnlySnapshot({ transaction }, work) }, // one database, no standbys
    poolUse: () => ({ total: 1, idle: inUse === 0 ? 1 : 0, waiting: Math.max(0, inUse - 1) }),
    transaction,
    async close() {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
