// The one failure classifier (src/platform/db/failures.ts) against real failures of a real
// database: what each storage path raises is what the HTTP handler, MCP, the console and
// billing branch on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Database } from '../../src/platform/db/database.js';
import { databaseFailure } from '../../src/platform/db/failures.js';
import { openPglite } from '../../src/platform/db/pglite.js';
import { openPostgres } from '../../src/platform/db/postgres.js';
import { ProblemError } from '../../src/platform/problems.js';
import { PG_URL } from '../helpers/server.js';

/** The failure `work` ends in, as classified. */
async function failureOf(work: () => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    return { failure: databaseFailure(error), error };
  }
  assert.fail('expected a failure');
}

describe('database failures, classified where they arise', () => {
  let db: Database;
  before(async () => {
    db = PG_URL ? await openPostgres(PG_URL) : await openPglite(null);
  });
  after(() => db.close());

  it('when a unique value is written twice, then unique-violation', async () => {
    const { failure } = await failureOf(() =>
      db.transaction(async (tx) => {
        await tx.query('CREATE TEMP TABLE once_only (n int PRIMARY KEY) ON COMMIT DROP');
        await tx.query('INSERT INTO once_only VALUES (1), (1)');
      }),
    );
    assert.equal(failure, 'unique-violation');
  });

  it('when the database refuses a value as data, then invalid-value', async () => {
    assert.equal((await failureOf(() => db.query(`SELECT 'x'::int`))).failure, 'invalid-value');
    assert.equal((await failureOf(() => db.transaction((tx) => tx.query('SELECT 1 / (random() * 0)::int')))).failure, 'invalid-value');
  });

  it('when work inside a transaction throws an error of its own, then it passes through unclassified', async () => {
    const { failure, error } = await failureOf(() =>
      db.transaction(async () => {
        throw new ProblemError('state-conflict', 'ours');
      }),
    );
    assert.equal(failure, null);
    assert.ok(error instanceof ProblemError);
  });

  it('when a closed database is asked, then unavailable', async () => {
    const closed = PG_URL ? await openPostgres(PG_URL) : await openPglite(null);
    await closed.close();
    assert.equal((await failureOf(() => closed.query('SELECT 1'))).failure, 'unavailable');
    assert.equal((await failureOf(() => closed.transaction((tx) => tx.query('SELECT 1')))).failure, 'unavailable');
  });
});

describe('lost connections on PostgreSQL', { skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false }, () => {
  let db: Database;
  let admin: pg.Client;
  before(async () => {
    db = await openPostgres(PG_URL!, { poolSize: 2 });
    admin = new pg.Client({ connectionString: PG_URL! });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
    await db.close();
  });

  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);
  const backendPid = async (tx: Pick<Database, 'query'>) => (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;

  it('when a statement times out, then unavailable (nothing was written)', async () => {
    const { failure } = await failureOf(() =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL statement_timeout = '50ms'`);
        await tx.query('SELECT pg_sleep(2)');
      }),
    );
    assert.equal(failure, 'unavailable');
  });

  it('when the backend is terminated between two statements of a transaction, then unavailable, the process lives on and the pool serves again', async () => {
    const { failure } = await failureOf(() =>
      db.transaction(async (tx) => {
        await terminate(await backendPid(tx));
        await tx.query('SELECT 1');
      }),
    );
    assert.equal(failure, 'unavailable');
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
    assert.deepEqual(await db.transaction((tx) => tx.query('SELECT 2 AS two')), [{ two: 2 }]);
  });

  it('when the connection is lost with the commit in flight, then commit-in-doubt', async () => {
    const { failure } = await failureOf(() =>
      db.transaction(async (tx) => {
        await terminate(await backendPid(tx));
        // Give the backend's end time to reach the client, as a loss during COMMIT would.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }),
    );
    assert.equal(failure, 'commit-in-doubt');
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
  });

  it('when a statement that commits by itself loses its connection while it runs, then commit-in-doubt; a read loses nothing: unavailable', async () => {
    const suicide = 'SELECT pg_terminate_backend(pg_backend_pid())';
    assert.equal((await failureOf(() => db.query(suicide, [], { commits: true }))).failure, 'commit-in-doubt');
    assert.equal((await failureOf(() => db.query(suicide))).failure, 'unavailable');
    assert.deepEqual(await db.query('SELECT 1 AS one', [], { commits: true }), [{ one: 1 }]);
  });

  it('when an idle pooled connection is terminated, then the next query is served by a new one', async () => {
    const idle = await backendPid(db);
    await terminate(idle);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.notEqual(await backendPid(db), idle);
  });
});
