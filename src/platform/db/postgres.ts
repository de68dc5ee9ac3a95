// PostgreSQL through a pg pool. Several server processes may share one database: every
// rule that must hold across them lives in a transaction with the rows it depends on locked.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type CopyValue, copyStatement, copyText } from './copy-text.js';
import { commitHooks, type Database, type Queryable, type QueryOptions, type Row, readOnlySnapshot } from './database.js';
import { classified, DatabaseUnavailableError } from './failures.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    // Counts and balances are int8; they fit a JS number far beyond any real balance.
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

const CONNECT_TIMEOUT_MS = 5_000;
/** No statement of a request may hang it; migrations lift this for themselves. */
const STATEMENT_TIMEOUT = '30s';

/** A prepared statement's name: its text's, so one text is prepared once per connection. */
const preparedNames = new Map<string, string>();
function preparedName(sql: string): string {
  let name = preparedNames.get(sql);
  if (name === undefined) {
    name = `s${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    preparedNames.set(sql, name);
  }
  return name;
}

/** COPY FROM STDIN on a connection of its own (a transaction's, or one borrowed from the pool). */
async function copyOn(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly (readonly CopyValue[])[]): Promise<void> {
  await pipeline(Readable.from([Buffer.from(copyText(rows))]), client.query(copyFrom(copyStatement(table, columns, 'STDIN'))));
}

/**
 * A statement that commits by itself, on a connection of its own: failing to get one wrote
 * nothing (`unavailable`), but a connection lost once the statement was sent may have
 * committed it (`commit-in-doubt`).
 */
/** pg's message for a client whose connection failed earlier: the statement was never sent. */
const NOT_QUERYABLE = /is not queryable/;

async function committingQuery(pool: pg.Pool, config: pg.QueryConfig): Promise<pg.QueryResult> {
  const client = await pool.connect().catch((error: unknown) => {
    throw classified(error);
  });
  let broken: Error | undefined;
  try {
    return await client.query(config);
  } catch (error) {
    if (!(error instanceof Error && 'severity' in error)) broken = error instanceof Error ? error : new Error(String(error));
    // pg refuses a client whose connection already failed before sending anything: nothing ran.
    if (broken && NOT_QUERYABLE.test(broken.message)) throw classified(error);
    throw classified(error, 'commit');
  } finally {
    client.release(broken);
  }
}

function asQueryable(target: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T = Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<T[]> {
      const values = params as unknown[];
      const config = options?.prepared ? { name: preparedName(sql), text: sql, values } : { text: sql, values };
      if (options?.commits && target instanceof pg.Pool) return (await committingQuery(target, config)).rows as T[];
      try {
        return (await target.query(config)).rows as T[];
      } catch (error) {
        throw classified(error);
      }
    },
    async exec(sql: string) {
      try {
        await target.query(sql); // no parameters: the simple protocol runs several statements
      } catch (error) {
        throw classified(error);
      }
    },
    async copyRows(table, columns, rows) {
      if (rows.length === 0) return;
      try {
        if (!(target instanceof pg.Pool)) return await copyOn(target, table, columns, rows);
        const client = await target.connect();
        try {
          await copyOn(client, table, columns, rows);
        } finally {
          client.release();
        }
      } catch (error) {
        throw classified(error);
      }
    },
  };
}

export interface PostgresOptions {
  poolSize?: number;
  /** Session settings of every connection, e.g. { synchronous_commit: 'off' }. */
  settings?: Record<string, string>;
}

/** PostgreSQL's database, with statements on one connection outside a transaction. */
export interface PostgresDatabase extends Database {
  /**
   * Runs `work` on one connection of the pool, in no transaction: what it reads on one
   * statement holds for the next (a standby's replay position, say), since a restart of the
   * server would break that connection.
   */
  pinned<T>(work: (connection: Queryable) => Promise<T>): Promise<T>;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresDatabase> {
  // Settings travel in the start-up packet, so every connection has them before its first
  // query; they are added to any `options` the URL already carries (a search_path, say).
  // (pg reads them from the URL, which wins over a separate `options` field.)
  // Timestamps are compared and cast in UTC whatever the server's own TimeZone setting.
  // No JIT: the service's statements are short index lookups, and a cost estimate above
  // jit_above_cost (a batch's candidate lookup, say) paid 10 to 30 ms of compiling each time.
  const settings = Object.entries({ statement_timeout: STATEMENT_TIMEOUT, TimeZone: 'UTC', jit: 'off', ...options.settings }).map(
    ([name, value]) => `-c ${name}=${value}`,
  );
  const connectionUrl = new URL(url);
  const startup = [connectionUrl.searchParams.get('options'), ...settings].filter(Boolean).join(' ');
  connectionUrl.searchParams.set('options', startup);
  const pool = new pg.Pool({
    connectionString: connectionUrl.toString(),
    max: options.poolSize ?? 10,
    types,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A server that stops answering without closing the connection (a machine gone, packets
    // dropped) is found by the kernel's keepalive probes rather than never.
    keepAlive: true,
  });
  // A client whose connection breaks emits 'error', and an unheard 'error' ends the process.
  // The pool hears it while the client is idle, and a checked-out client has a listener of its
  // own in `transaction()` (and in pg-pool's `query`), but a connection can break at moments
  // between those hands (the crash test found one: a backend terminated under load ended a
  // process), so every client hears it from its first moment to its last. The statement in
  // flight fails by itself; a broken client is never handed out again (the pool drops
  // clients that are no longer queryable when they come back).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // The first connection is the one start-up waits on (main.ts tries again while the database
  // is unavailable): its failure is classified like any other, and the pool ends with it.
  await pool.query('SELECT 1').catch(async (error) => {
    await pool.end().catch(() => undefined);
    throw classified(error);
  });
  let closed = false;
  const unavailable = () => new DatabaseUnavailableError(new Error('the database pool is closed'));
  const base = asQueryable(pool);
  /**
   * `work` on a client of the pool, released after it. A checked-out client whose connection
   * breaks (the backend terminated, the server restarted) emits 'error'; the pool listens only
   * while a client is idle, and an unheard 'error' would end the process. The failure reaches
   * `work` through its statements; a broken client (`connection.broken`, which `work` may set
   * too) is discarded on release instead of going back to the pool.
   */
  async function checkedOut<T>(work: (client: pg.PoolClient, connection: { broken?: Error }) => Promise<T>): Promise<T> {
    if (closed) throw unavailable();
    const client = await pool.connect().catch((error) => {
      throw classified(error);
    });
    const connection: { broken?: Error } = {};
    const onError = (error: Error) => {
      connection.broken = error;
    };
    client.on('error', onError);
    try {
      return await work(client, connection);
    } finally {
      client.off('error', onError);
      client.release(connection.broken);
    }
  }
  const outer: Queryable = {
    query: (sql, params, options) => (closed ? Promise.reject(unavailable()) : base.query(sql, params, options)),
    exec: (sql) => (closed ? Promise.reject(unavailable()) : base.exec(sql)),
    copyRows: (table, columns, rows) => (closed ? Promise.reject(unavailable()) : base.copyRows(table, columns, rows)),
  };

  const transaction = <T>(work: (tx: Queryable) => Promise<T>): Promise<T> =>
    checkedOut(async (client) => {
      const hooks = commitHooks();
      let result: T;
      try {
        await client.query('BEGIN');
        result = await work(hooks.wrap(asQueryable(client)));
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw classified(error);
      }
      await client.query('COMMIT').catch((error: unknown) => {
        throw classified(error, 'commit');
      });
      hooks.committed();
      return result;
    });

  return {
    kind: 'postgres',
    query: outer.query,
    exec: outer.exec,
    copyRows: outer.copyRows,
    reads: { ...outer, snapshot: (work) => readOnlySnapshot({ transaction }, work) }, // the primary's own; with standbys, the runtime puts theirs in its place (standby-reads.ts)
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    pinned: (work) =>
      checkedOut(async (client, connection) => {
        try {
          return await work(asQueryable(client));
        } catch (error) {
          // The connection may still be busy with what `work` gave up waiting for: never reused.
          connection.broken ??= error instanceof Error ? error : new Error(String(error));
          throw error;
        }
      }),
    transaction,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
