// One interface over the two storage paths: embedded PGlite and PostgreSQL. Services and
// stores write plain PostgreSQL SQL against `Queryable` and never learn which one runs.

import type { CopyValue } from './copy-text.js';

export type Row = Record<string, unknown>;

export interface QueryOptions {
  /**
   * PostgreSQL: run as a named prepared statement, parsed once per connection (and, once its
   * plans settle, planned once). For the hot statements of ingest, whose text is one of a few
   * fixed variants: every distinct text stays prepared on each connection. Behind PgBouncer in
   * transaction mode this needs its max_prepared_statements. The embedded database ignores it.
   */
  prepared?: boolean;
  /**
   * The statement writes and commits by itself, outside a transaction. A connection lost while
   * it ran leaves its outcome unknown, so the failure is `commit-in-doubt` (PostgreSQL; one
   * lost before it was sent is still `unavailable`).
   */
  commits?: boolean;
}

export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Appends rows to a table with COPY, the fastest way in for a bulk load (a fifth less time
   * than INSERT ... SELECT FROM unnest of the same rows, measured on both storage paths): no
   * RETURNING, no ON CONFLICT, and one bad value fails the whole statement.
   */
  copyRows(table: string, columns: readonly string[], rows: readonly (readonly CopyValue[])[]): Promise<void>;
  /**
   * Inside a transaction: runs `callback` once it has committed (never if it rolls back), for
   * wake-ups that must not look before the change is visible. Absent outside transactions.
   */
  afterCommit?(callback: () => void): void;
}

/** The after-commit callbacks of one transaction, for the two storage paths. */
export function commitHooks() {
  const callbacks: (() => void)[] = [];
  return {
    /** The transaction's handle, with `afterCommit`. */
    wrap: (tx: Queryable): Queryable => ({ query: tx.query, exec: tx.exec, copyRows: tx.copyRows, afterCommit: (callback) => callbacks.push(callback) }),
    committed: () => {
      for (const callback of callbacks) callback();
    },
  };
}

/** How busy a database's connections are now (for the metrics). */
export interface PoolUse {
  /** Connections open. */
  total: number;
  /** Open connections doing nothing. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/** Where reads that take no lock run (Database.reads). */
export interface ReadSource extends Queryable {
  /**
   * Runs `work` in one read-only REPEATABLE READ transaction: every statement in it reads one
   * snapshot, which has every write committed before the call (on a standby too). `work` may
   * run twice (on the primary, after a standby failed it): it must do nothing but read.
   */
  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** `work` in one read-only REPEATABLE READ transaction of `db`: every statement in it reads one snapshot. */
export function readOnlySnapshot<T>(db: Pick<Database, 'transaction'>, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return work(tx);
  });
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Reads that take no lock and need not see this request's own transaction: on PostgreSQL
   * with standbys, one that has replayed every write committed before the read began
   * (standby-reads.ts), else this database itself. Writes, claims and reads that a write
   * depends on use the database (or its transaction), never this.
   */
  readonly reads: ReadSource;
  poolUse(): PoolUse;
  /**
   * Runs `work` in one transaction. On PGlite (one connection) every other query waits until
   * it ends, so `work` must use `tx` only: awaiting the outer database inside it deadlocks.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function queryOne<T>(db: Queryable, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<T | undefined> {
  const rows = await db.query<T>(sql, params, options);
  return rows[0];
}
