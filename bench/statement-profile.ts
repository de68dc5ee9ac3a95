// Time spent in each SQL statement of a running runtime, for finding where a benchmark's time
// goes: the database's query and transaction are wrapped in place (services hold the same
// object), every statement timed from call to answer and summed by its text. Statements that
// overlap (a pool of connections, jobs beside an ingest) are each counted in full.
import { performance } from 'node:perf_hooks';
import type { Database, Queryable } from '../src/platform/db/database.js';

const TRANSACTION = '(a whole transaction)';

interface Cost {
  calls: number;
  ms: number;
}

export function profileStatements(db: Database) {
  const costs = new Map<string, Cost>();
  let on = false;
  const add = (key: string, started: number) => {
    const cost = costs.get(key) ?? { calls: 0, ms: 0 };
    cost.calls++;
    cost.ms += performance.now() - started;
    costs.set(key, cost);
  };
  /** `work` timed under `key` while counting is on. */
  const time = async <T>(key: () => string, work: () => Promise<T>): Promise<T> => {
    if (!on) return work();
    const started = performance.now();
    try {
      return await work();
    } finally {
      add(key().slice(0, 110), started);
    }
  };
  const timed = (target: Queryable): Queryable['query'] =>
    function query(sql, params, options) {
      return time(
        () => sql.replace(/\s+/g, ' ').trim(),
        () => target.query(sql, params, options),
      );
    };
  const timedCopy =
    (target: Queryable): Queryable['copyRows'] =>
    (table, columns, rows) =>
      time(
        () => `COPY ${table} (${columns.join(', ')})`,
        () => target.copyRows(table, columns, rows),
      );
  const outer = { query: db.query, exec: db.exec, copyRows: db.copyRows, transaction: db.transaction };
  db.query = timed(outer);
  db.copyRows = timedCopy(outer);
  db.transaction = async (work) => {
    const started = performance.now();
    try {
      return await outer.transaction((tx) => work({ ...tx, query: timed(tx), copyRows: timedCopy(tx) }));
    } finally {
      // BEGIN to COMMIT, the statements above included: what a transaction costs beyond them is its commit and its JS.
      if (on) add(TRANSACTION, started);
    }
  };
  return {
    start: () => {
      on = true;
    },
    stop: () => {
      on = false;
    },
    /** Forgets what was counted so far (a new phase). */
    reset: () => costs.clear(),
    /** Seconds in statements and in whole transactions, so far. */
    totals() {
      let statements = 0;
      for (const [sql, { ms }] of costs) if (sql !== TRANSACTION) statements += ms;
      return { statements: statements / 1000, transactions: (costs.get(TRANSACTION)?.ms ?? 0) / 1000 };
    },
    /** The `count` costliest statements, as markdown table rows. */
    top(count: number): string[] {
      return [...costs]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, count)
        .map(([sql, { calls, ms }]) => `| ${(ms / 1000).toFixed(2)} s | ${calls} | ${(ms / calls).toFixed(1)} ms | \`${sql.replace(/\|/g, '\\|')}\` |`);
    },
  };
}
