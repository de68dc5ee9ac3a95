// Queryable.copyRows (COPY's text format, src/platform/db/copy-text.ts) against the real
// database of each storage path: every value comes back as it went in, and a bad value fails
// the statement as the failure classifier names it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CopyValue } from '../../src/platform/db/copy-text.js';
import type { Database, Queryable } from '../../src/platform/db/database.js';
import { databaseFailure } from '../../src/platform/db/failures.js';
import { openPglite } from '../../src/platform/db/pglite.js';
import { openPostgres } from '../../src/platform/db/postgres.js';
import { PG_URL } from '../helpers/server.js';

const COLUMNS = ['id', 'label', 'seen_at', 'day', 'amount', 'flag', 'count'];

describe('copying rows into a table', () => {
  let db: Database;
  before(async () => {
    db = PG_URL ? await openPostgres(PG_URL) : await openPglite(null);
  });
  after(() => db.close());

  /** `work` on a temporary table of every kind of column the corpus copies, in one transaction. */
  const withTable = <T>(work: (tx: Queryable) => Promise<T>) =>
    db.transaction(async (tx) => {
      await tx.query(
        `CREATE TEMP TABLE copied (id uuid PRIMARY KEY, label text, seen_at timestamptz, day date, amount float8, flag boolean, count bigint) ON COMMIT DROP`,
      );
      return work(tx);
    });

  it('when text holds tabs, line breaks, backslashes or spells \\N, and other columns hold nulls, dates and numbers, then each comes back as it went in', async () => {
    const rows: CopyValue[][] = [
      [
        '00000000-0000-4000-8000-000000000001',
        'tab\there, line\nbreak, return\r, back\\slash',
        new Date('2026-11-26T08:00:00.123Z'),
        '2026-11-26',
        1234.5,
        true,
        2 ** 53 - 1,
      ],
      ['00000000-0000-4000-8000-000000000002', '\\N', null, null, -0.000001, false, 0],
      ['00000000-0000-4000-8000-000000000003', '\\.', null, '1999-01-01', 1e300, null, null],
      ['00000000-0000-4000-8000-000000000004', '', null, null, null, null, -1],
      ['00000000-0000-4000-8000-000000000005', null, null, null, 3, true, 7],
      ['00000000-0000-4000-8000-000000000006', '漢字 ✓ \u{1F600}', null, null, null, null, null],
      ['00000000-0000-4000-8000-000000000007', 'year 0 (1 BC)', new Date('0000-06-01T12:00:00.000Z'), null, null, null, null],
      ['00000000-0000-4000-8000-000000000008', 'a year in 9999', new Date('9999-12-31T23:59:59.999Z'), null, null, null, null],
    ];
    const back = await withTable(async (tx) => {
      await tx.copyRows('copied', COLUMNS, rows);
      return tx.query<Record<string, unknown>>(
        `SELECT id, label, round(extract(epoch FROM seen_at) * 1000)::float8 AS seen_at, to_char(day, 'YYYY-MM-DD') AS day, amount, flag, count FROM copied ORDER BY id`,
      );
    });
    // Timestamps compared as milliseconds since 1970: the drivers' own parsers read no BC timestamp.
    assert.deepEqual(
      back.map((row) => COLUMNS.map((column) => row[column])),
      rows.map((row) => row.map((value) => (value instanceof Date ? value.getTime() : value))),
    );
  });

  it('when arrays hold quotes, braces, commas, backslashes, tabs, the word NULL, empty text and nulls, then each comes back as it went in', async () => {
    const rows: CopyValue[][] = [
      [
        '00000000-0000-4000-8000-000000000001',
        ['plain', 'a "quoted" word', '{braced}', 'com,ma', 'back\\slash', 'tab\there', 'line\nbreak', 'NULL', '', null, ' spaced '],
        [1.5, null, -0.25, 1e300],
        ['2026-11-30', null],
        ['00000000-0000-4000-8000-00000000000a', null],
      ],
      ['00000000-0000-4000-8000-000000000002', [], [], null, null],
      ['00000000-0000-4000-8000-000000000003', [null], null, [], ['00000000-0000-4000-8000-00000000000b']],
    ];
    const back = await db.transaction(async (tx) => {
      await tx.query('CREATE TEMP TABLE listed (id uuid PRIMARY KEY, labels text[], amounts float8[], days date[], ids uuid[]) ON COMMIT DROP');
      await tx.copyRows('listed', ['id', 'labels', 'amounts', 'days', 'ids'], rows);
      return tx.query<Record<string, unknown>>(
        `SELECT id, labels, amounts, ARRAY(SELECT to_char(d, 'YYYY-MM-DD') FROM unnest(days) WITH ORDINALITY AS x(d, n) ORDER BY n) AS days,
                days IS NULL AS no_days, ids FROM listed ORDER BY id`,
      );
    });
    assert.deepEqual(
      back.map((row) => [row.id, row.labels, row.amounts, row.no_days ? null : row.days, row.ids]),
      rows,
    );
  });

  it('when no rows are given, then nothing is written and nothing fails', async () => {
    const count = await withTable(async (tx) => {
      await tx.copyRows('copied', COLUMNS, []);
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM copied'))[0]!.n;
    });
    assert.equal(count, 0);
  });

  it('when rows are copied outside a transaction, then they are written on a connection of their own and committed', async () => {
    const table = `copied_alone_${process.pid}`;
    await db.query(`CREATE TABLE ${table} (id uuid PRIMARY KEY, label text)`);
    try {
      await db.copyRows(table, ['id', 'label'], [['00000000-0000-4000-8000-00000000000b', 'alone']]);
      assert.deepEqual(await db.query(`SELECT id, label FROM ${table}`), [{ id: '00000000-0000-4000-8000-00000000000b', label: 'alone' }]);
    } finally {
      await db.query(`DROP TABLE ${table}`);
    }
  });

  it('when a value is not of its column, or a key repeats, then the statement fails as the classifier names it and writes nothing', async () => {
    const fail = async (rows: CopyValue[][]) => {
      try {
        await withTable((tx) => tx.copyRows('copied', COLUMNS, rows));
      } catch (error) {
        return databaseFailure(error);
      }
      assert.fail('expected a failure');
    };
    const id = '00000000-0000-4000-8000-000000000009';
    assert.equal(await fail([[id, 'nul \u0000 byte', null, null, null, null, null]]), 'invalid-value');
    assert.equal(await fail([[id, 'x', null, 'not a date', null, null, null]]), 'invalid-value');
    assert.equal(
      await fail([
        [id, 'a', null, null, null, null, null],
        [id, 'b', null, null, null, null, null],
      ]),
      'unique-violation',
    );
    // The connection is usable after a failed COPY.
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
  });

  it('when a COPY fails inside a savepoint, then the transaction goes on after rolling back to it (as a bulk batch falls back line by line)', async () => {
    const id = '00000000-0000-4000-8000-00000000000a';
    const kept = await withTable(async (tx) => {
      await tx.query('SAVEPOINT batch');
      await assert.rejects(tx.copyRows('copied', COLUMNS, [[id, 'x', null, 'not a date', null, null, null]]));
      await tx.query('ROLLBACK TO SAVEPOINT batch');
      await tx.copyRows('copied', COLUMNS, [[id, 'kept', null, null, null, null, null]]);
      return tx.query<{ label: string }>('SELECT label FROM copied');
    });
    assert.deepEqual(kept, [{ label: 'kept' }]);
  });
});
