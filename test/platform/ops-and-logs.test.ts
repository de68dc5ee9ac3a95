import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

describe('operator API', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('when an account is created with defaults, then it answers 201 with the documented shape', async () => {
    const response = await server.http.request('POST', '/ops/v1/accounts', { headers: bearer(OPS_TOKEN), body: {} });
    assert.equal(response.status, 201);
    const { id, created_at: createdAt, ...rest } = response.json;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(rest, {
      object: 'account',
      display_name: null,
      kind: 'INDIVIDUAL',
      plan: 'standard',
      credit_balance: 0,
      entitlements: { structured_reporting: false, entity_reporting: false, beats: false },
    });
  });

  it('when an account is patched, then only the sent fields change and entitlements merge', async () => {
    const account = await server.ops.createAccount({ display_name: 'Before', entitlements: { beats: true } });
    const response = await server.http.request('PATCH', `/ops/v1/accounts/${account.id}`, {
      headers: bearer(OPS_TOKEN),
      body: { display_name: 'After', kind: 'ORGANIZATION', entitlements: { entity_reporting: true } },
    });
    assert.equal(response.status, 200);
    assert.equal(response.json.display_name, 'After');
    assert.equal(response.json.kind, 'ORGANIZATION');
    assert.deepEqual(response.json.entitlements, { structured_reporting: false, entity_reporting: true, beats: true });
    const unknownPlan = await server.http.request('PATCH', `/ops/v1/accounts/${account.id}`, { headers: bearer(OPS_TOKEN), body: { plan: 'no-such-plan' } });
    assert.equal(unknownPlan.status, 400);
    assert.equal(unknownPlan.json.errors[0].pointer, '/plan');
    const balance = await server.http.request('PATCH', `/ops/v1/accounts/${account.id}`, { headers: bearer(OPS_TOKEN), body: { credit_balance: 5 } });
    assert.equal(balance.status, 400, 'the balance moves only through credits');
  });

  it('when credits are granted and debited, then the balance equals the ledger sum', async () => {
    const account = await server.ops.createAccount({ credit_balance: 10 });
    await server.ops.post(`/accounts/${account.id}/credits`, { amount: 15, reason: 'top-up' });
    const after = await server.ops.post(`/accounts/${account.id}/credits`, { amount: -20 });
    assert.equal(after.credit_balance, 5);
    assert.equal(await server.runtime.accounts.ledgerSum(account.id), 5);
    const zero = await server.http.request('POST', `/ops/v1/accounts/${account.id}/credits`, { headers: bearer(OPS_TOKEN), body: { amount: 0 } });
    assert.equal(zero.status, 400);
  });

  it('when concurrent debits race, then the balance never goes below zero', async () => {
    const account = await server.ops.createAccount({ credit_balance: 10 });
    const results = await Promise.all(
      Array.from({ length: 15 }, () =>
        server.http.request('POST', `/ops/v1/accounts/${account.id}/credits`, { headers: bearer(OPS_TOKEN), body: { amount: -1 } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 10);
    assert.equal(results.filter((r) => r.status === 402).length, 5);
    assert.equal((await server.ops.get(`/accounts/${account.id}`)).credit_balance, 0);
    assert.equal(await server.runtime.accounts.ledgerSum(account.id), 0);
  });

  it('when eleven keys are created at once, then exactly ten exist', async () => {
    const account = await server.ops.createAccount();
    const results = await Promise.all(
      Array.from({ length: 11 }, (_, i) =>
        server.http.request('POST', `/ops/v1/accounts/${account.id}/api-keys`, {
          headers: bearer(OPS_TOKEN),
          body: { name: `k${i}`, scopes: ['SENSORS_READ'] },
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 10);
    assert.equal(results.filter((r) => r.status === 403).length, 1);
    const listed = await server.ops.get(`/accounts/${account.id}/api-keys`);
    assert.equal(listed.data.length, 10);
    assert.ok(listed.data.every((k: Record<string, unknown>) => !('key' in k)));
  });

  it('when plans are listed and replaced, then every plan field of decisions.md is there with its default', async () => {
    const list = await server.ops.get('/plans');
    const standard = list.data.find((p: { name: string }) => p.name === 'standard');
    assert.deepEqual(standard, { object: 'plan', name: 'standard', ...STANDARD_PLAN_FIELDS });
    const { object: _o, name: _n, ...fields } = standard;
    const missing = await server.http.request('PUT', '/ops/v1/plans/partial', { headers: bearer(OPS_TOKEN), body: { beats_max: 1 } });
    assert.equal(missing.status, 400);
    const put = await server.http.request('PUT', '/ops/v1/plans/pro', { headers: bearer(OPS_TOKEN), body: { ...fields, beats_max: 50 } });
    assert.equal(put.status, 200);
    assert.equal(put.json.beats_max, 50);
    const zeroRate = await server.http.request('PUT', '/ops/v1/plans/pro', { headers: bearer(OPS_TOKEN), body: { ...fields, rest_requests_per_minute: 0 } });
    assert.equal(zeroRate.status, 400);
  });

  it('when the test clock is set and advanced, then GET /clock reports it; drain answers 200', async () => {
    const set = await server.ops.post('/clock', { now: '2026-09-13T23:59:59.500Z' });
    assert.deepEqual(set, { object: 'clock', now: '2026-09-13T23:59:59.500Z', mode: 'manual' });
    const advanced = await server.ops.post('/clock', { advance_seconds: 0.5 });
    assert.equal(advanced.now, '2026-09-14T00:00:00.000Z');
    assert.equal((await server.ops.get('/clock')).now, '2026-09-14T00:00:00.000Z');
    const account = await server.ops.createAccount();
    assert.equal(account.created_at, '2026-09-14T00:00:00.000Z', 'timestamps follow the clock');
    const drained = await server.http.request('POST', '/ops/v1/drain', { headers: bearer(OPS_TOKEN) });
    assert.equal(drained.status, 200);
  });

  it('when the test clock would leave years 1 to 9999, by now or by advance_seconds, then 400 validation-failed names the field and the clock stays', async () => {
    const setClock = (body: unknown) => server.http.request('POST', '/ops/v1/clock', { headers: bearer(OPS_TOKEN), body });
    const refused = async (body: unknown, pointer: string, at: string) => {
      const response = await setClock(body);
      assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
      assert.equal(response.json.type, `${server.docsUrl}/problems/validation-failed`);
      assert.deepEqual(
        response.json.errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
        JSON.stringify(body),
      );
      assert.equal((await server.ops.get('/clock')).now, at, `the clock stays after ${JSON.stringify(body)}`);
    };

    assert.equal((await server.ops.post('/clock', { now: '9999-12-31T23:59:59.000Z' })).now, '9999-12-31T23:59:59.000Z');
    assert.equal((await server.ops.post('/clock', { advance_seconds: 0.999 })).now, '9999-12-31T23:59:59.999Z', 'the last millisecond of 9999 is allowed');
    await refused({ advance_seconds: 0.001 }, '/advance_seconds', '9999-12-31T23:59:59.999Z');
    await refused({ advance_seconds: 86_400 * 365 * 9 }, '/advance_seconds', '9999-12-31T23:59:59.999Z');
    await refused({ advance_seconds: 1e15 }, '/advance_seconds', '9999-12-31T23:59:59.999Z');
    await refused({ advance_seconds: -1e15 }, '/advance_seconds', '9999-12-31T23:59:59.999Z');
    // Set and advance in one request: the sum is checked, and nothing of it applies.
    await refused({ now: '9999-06-01T00:00:00.000Z', advance_seconds: 86_400 * 365 }, '/advance_seconds', '9999-12-31T23:59:59.999Z');

    assert.equal((await server.ops.post('/clock', { now: '0001-01-01T00:00:01.000Z' })).now, '0001-01-01T00:00:01.000Z');
    await refused({ advance_seconds: -1.001 }, '/advance_seconds', '0001-01-01T00:00:01.000Z');
    await refused({ now: '0000-12-31T23:59:59.999Z' }, '/now', '0001-01-01T00:00:01.000Z');
    await refused({ now: '0000-06-01T00:00:00Z', advance_seconds: 86_400 * 365 }, '/now', '0001-01-01T00:00:01.000Z');
    assert.equal((await server.ops.post('/clock', { advance_seconds: -1 })).now, '0001-01-01T00:00:00.000Z', 'the first instant of year 1 is allowed');

    // Within range, everything answers: an account made at either end reads back.
    await server.ops.post('/clock', { now: '9999-12-31T23:59:59.999Z' });
    const late = await server.ops.createAccount();
    assert.equal(late.created_at, '9999-12-31T23:59:59.999Z');
    assert.equal((await server.http.request('GET', `/ops/v1/accounts/${late.id}`, { headers: bearer(OPS_TOKEN) })).status, 200);
    await server.ops.post('/clock', { now: '2026-09-14T00:00:00.000Z' });
  });

  it('when keys are created and used, then no raw key and no operator token reaches the logs', async () => {
    const account = await server.ops.createAccount();
    const key = await server.ops.createKey(account.id, ['SENSORS_READ']);
    await server.http.get('/v1/sensors', bearer(key));
    await server.http.get('/v1/sensors', bearer(`${key}x`));
    const logs = server.logs.join('');
    assert.ok(logs.includes('request_id'), 'request logs are structured and carry the request id');
    assert.ok(!logs.includes(key.slice(4)), 'raw key absent');
    assert.ok(!logs.includes(OPS_TOKEN), 'operator token absent');
  });
});

describe('operator API switched off', () => {
  it('when EVMON_OPS_TOKEN is unset, then /ops/v1 answers 404; without the test clock, POST /clock is 404', async () => {
    const off = await startServer({ EVMON_OPS_TOKEN: '' });
    try {
      const response = await off.http.request('GET', '/ops/v1/plans', { headers: bearer(OPS_TOKEN) });
      assert.equal(response.status, 404);
      assert.equal(response.json.type, `${off.docsUrl}/problems/not-found`);
    } finally {
      await off.close();
    }
    const system = await startServer({ EVMON_TEST_CLOCK: '0' });
    try {
      const response = await system.http.request('POST', '/ops/v1/clock', { headers: bearer(OPS_TOKEN), body: { advance_seconds: 5 } });
      assert.equal(response.status, 404);
      assert.equal((await system.ops.get('/clock')).mode, 'system');
    } finally {
      await system.close();
    }
  });
});
