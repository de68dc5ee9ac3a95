// Account self-service: GET /v1/account and GET /v1/account/credit-transactions, read from
// the ledger billing writes; and the migration that gave old ledger rows their kinds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/platform/db/open.js';
import { listMigrations } from '../../src/platform/db/migrate.js';
import { beatsClient } from '../helpers/beats.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { bearer } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('account self-service', () => {
  let server: TestServer;
  let corpus: TestCorpus;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
  });
  after(() => server.close());

  const get = (key: string, path: string) => server.http.get(`/v1${path}`, bearer(key));

  it("when any valid key reads its account, then balance, entitlements, plan and this month's usage answer, whatever its scopes", async () => {
    const { id, key } = await corpus.account(7, ['SENSORS_READ'], 'standard', { beats: true });
    const answer = await get(key, '/account');
    assert.equal(answer.status, 200, answer.text);
    const { search_execution_retention_seconds: _r, search_max_results: _m, ...planFields } = STANDARD_PLAN_FIELDS;
    assert.deepEqual(answer.json, {
      object: 'account',
      id,
      display_name: null,
      kind: 'INDIVIDUAL',
      credit_balance: 7,
      entitlements: { structured_reporting: false, entity_reporting: false, beats: true },
      plan: { name: 'standard', ...planFields },
      usage_this_month: { searches: 0, beat_entries: 0, credits_spent: 0 },
    });
    assert.ok(answer.headers['ratelimit-remaining'], 'counts toward the REST budget');
    assert.equal((await get('evk_unknown', '/account')).status, 401);
    assert.equal((await server.http.get('/v1/account?expand=x', bearer(key))).status, 400);
  });

  it('when searches and beat entries are charged and the operator grants and debits, then the ledger lists each with its kind, newest first, paged', async () => {
    const { id, key } = await corpus.account(10, ['EVENTS_READ', 'BEATS_READ', 'BEATS_WRITE'], 'standard', { beats: true });
    await corpus.ops('POST', `/accounts/${id}/credits`, { amount: 5, reason: 'top-up' });
    await corpus.ops('POST', `/accounts/${id}/credits`, { amount: -2, reason: 'correction' });
    const search = await server.http.post('/v1/events/search', { lookback_days: 7 }, bearer(key));
    assert.equal(search.status, 200, search.text);
    const type = await corpus.eventType();
    const beat = await beatsClient(server, corpus).create(key, [{ event_type_id: type.id }]);
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    await server.ops.post('/drain');

    const all = await get(key, '/account/credit-transactions');
    assert.equal(all.status, 200, all.text);
    const rows = all.json.data as any[];
    assert.deepEqual(
      rows.map((r) => [r.kind, r.amount, r.balance_after]),
      [
        ['BEAT_ENTRY', -1, 11],
        ['SEARCH', -1, 12],
        ['ADJUSTMENT', -2, 13],
        ['GRANT', 5, 15],
        ['GRANT', 10, 10],
      ],
    );
    assert.equal(rows[0].beat_id, beat.id);
    assert.equal(rows[0].execution_id, null);
    assert.equal(rows[1].execution_id, search.json.execution_id);
    assert.equal(rows[1].beat_id, null);
    assert.equal(rows[2].reason, 'correction');
    for (const row of rows) {
      assert.equal(row.object, 'credit_transaction');
      assert.match(row.id, /^[0-9a-f-]{36}$/);
      assert.equal(row.created_at, NOW);
    }

    const first = await get(key, '/account/credit-transactions?limit=2');
    assert.deepEqual(
      first.json.data.map((r: any) => r.id),
      rows.slice(0, 2).map((r) => r.id),
    );
    assert.equal(first.json.next_cursor, rows[1].id);
    const rest = await get(key, `/account/credit-transactions?limit=10&starting_after=${first.json.next_cursor}`);
    assert.deepEqual(
      rest.json.data.map((r: any) => r.id),
      rows.slice(2).map((r) => r.id),
    );
    assert.equal(rest.json.has_more, false);
    const { key: otherKey } = await corpus.account(0, ['SENSORS_READ']);
    assert.equal((await get(otherKey, `/account/credit-transactions?starting_after=${rows[0].id}`)).status, 400);

    const account = (await get(key, '/account')).json;
    assert.equal(account.credit_balance, 11);
    assert.deepEqual(account.usage_this_month, { searches: 1, beat_entries: 1, credits_spent: 2 });
    // A new UTC month starts from nothing.
    await server.ops.post('/clock', { now: '2026-12-01T00:00:00.000Z' });
    try {
      assert.deepEqual((await get(key, '/account')).json.usage_this_month, { searches: 0, beat_entries: 0, credits_spent: 0 });
    } finally {
      await server.ops.post('/clock', { now: NOW });
    }
  });

  it('when the migration meets ledger rows written before it, then their kinds and ids are read from their reasons', async () => {
    const opened = await openDatabase({ kind: 'pglite-memory' });
    try {
      const migrations = listMigrations();
      const index = migrations.findIndex((m) => m.name.startsWith('007_'));
      for (const migration of migrations.slice(0, index)) await opened.db.exec(migration.sql);
      const account = '01900000-0000-7000-8000-000000000001';
      const [execution, beat, entry] = ['01900000-0000-7000-8000-0000000000e1', '01900000-0000-7000-8000-0000000000b1', '01900000-0000-7000-8000-0000000000f1'];
      await opened.db.query(`INSERT INTO accounts (id, kind, plan, created_at, updated_at) VALUES ($1, 'INDIVIDUAL', 'standard', now(), now())`, [account]);
      const rows: [number, string][] = [
        [20, 'initial balance'],
        [-1, `event search ${execution}`],
        [-1, `beat ${beat} entry ${entry}`],
        [-3, 'operator adjustment'],
        [4, 'goodwill'],
        // Operator reasons that look like charges: a refund, and no UUID at all.
        [5, `event search ${execution}`],
        [-2, `event search ${'-'.repeat(36)}`],
        [-2, `beat ${'-'.repeat(36)} entry x`],
      ];
      let balance = 0;
      for (const [amount, reason] of rows) {
        balance += amount;
        await opened.db.query('INSERT INTO credit_ledger (account_id, amount, balance_after, reason, created_at) VALUES ($1, $2, $3, $4, now())', [
          account,
          amount,
          balance,
          reason,
        ]);
      }
      await opened.db.exec(migrations[index]!.sql);
      const migrated = await opened.db.query<{ kind: string; execution_id: string | null; beat_id: string | null; public_id: string }>(
        'SELECT kind, execution_id, beat_id, public_id FROM credit_ledger ORDER BY id',
      );
      assert.deepEqual(
        migrated.map((r) => [r.kind, r.execution_id, r.beat_id]),
        [
          ['GRANT', null, null],
          ['SEARCH', execution, null],
          ['BEAT_ENTRY', null, beat],
          ['ADJUSTMENT', null, null],
          ['GRANT', null, null],
          ['GRANT', null, null],
          ['ADJUSTMENT', null, null],
          ['ADJUSTMENT', null, null],
        ],
      );
      assert.equal(new Set(migrated.map((r) => r.public_id)).size, rows.length);
    } finally {
      await opened.close();
    }
  });
});
