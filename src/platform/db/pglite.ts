// Embedded PostgreSQL (PGlite). It is a single connection: PGlite queues every query, and
// its transaction() holds the connection until the callback ends, so a transaction that
// awaited another query on the outer handle would wait on itself. The Database contract
// forbids that by handing the callback its own `tx`.
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, Row } from './database.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

function asQueryable(target: PGlite | Transaction): Queryable {
  return {
    async query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      return (await target.query(sql, params as unknown[])).rows as T[];
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

export async function openPglite(dataDir: string | null): Promise<Database> {
  const pg = await PGlite.create(dataDir ?? 'memory://', {
    // Counts and balances are int8; they fit a JS number far beyond any real balance.
    parsers: { [INT8_OID]: (value: string) => Number(value), [NUMERIC_OID]: (value: string) => Number(value) },
  });
  const outer = asQueryable(pg);
  return {
    kind: 'pglite',
    query: outer.query,
    exec: outer.exec,
    transaction: (work) => pg.transaction((tx) => work(asQueryable(tx))),
    close: () => pg.close(),
  };
}
