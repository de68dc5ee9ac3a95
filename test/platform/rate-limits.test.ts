import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ManualClock } from '../../src/platform/clock.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { httpClient, randomLoopbackAddress } from '../helpers/http.js';
import { bearer, OPS_TOKEN, PG_URL, spawnServers, timeLimit, startServer, type SpawnedServer, type TestServer } from '../helpers/server.js';
import type { Owner } from '../helpers/processes.js';

const PLAN = { ...STANDARD_PLAN_FIELDS, rest_requests_per_minute: 5, mcp_requests_per_minute: 5 };

describe('per-key REST budget', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    const put = await server.http.request('PUT', '/ops/v1/plans/tiny', { headers: bearer(OPS_TOKEN), body: PLAN });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.rest_requests_per_minute, 5);
  });
  after(() => server.close());

  it('when a key spends its budget, then the next call is 429 rate-limited with Retry-After and RateLimit headers', async () => {
    await server.ops.post('/clock', { now: '2026-11-22T10:00:15.000Z' });
    const account = await server.ops.createAccount({ plan: 'tiny' });
    const key = await server.ops.createKey(account.id, ['SENSORS_READ']);
    for (let i = 1; i <= 5; i++) {
      const response = await server.http.get('/v1/sensors', bearer(key));
      assert.equal(response.status, 200);
      assert.equal(response.headers['ratelimit-limit'], '5');
      assert.equal(response.headers['ratelimit-remaining'], String(5 - i));
      assert.equal(response.headers['ratelimit-reset'], '45');
      assert.equal(response.headers['ratelimit-policy'], '5;w=60');
    }
    const refused = await server.http.get('/v1/sensors', bearer(key));
    assert.equal(refused.status, 429);
    assert.equal(refused.json.type, `${server.docsUrl}/problems/rate-limited`);
    assert.equal(refused.headers['retry-after'], '45');
    assert.equal(refused.headers['ratelimit-remaining'], '0');
    assert.equal(refused.headers['ratelimit-limit'], '5');

    await server.ops.post('/clock', { advance_seconds: 45 });
    const afterReset = await server.http.get('/v1/sensors', bearer(key));
    assert.equal(afterReset.status, 200);
    assert.equal(afterReset.headers['ratelimit-remaining'], '4');
    assert.equal(afterReset.headers['ratelimit-reset'], '60');
  });

  it('when calls fail (bad query, missing scope), then they still count against the budget', async () => {
    await server.ops.post('/clock', { now: '2026-11-22T11:00:00.000Z' });
    const account = await server.ops.createAccount({ plan: 'tiny' });
    const key = await server.ops.createKey(account.id, ['SENSORS_READ']);
    const noScope = await server.ops.createKey(account.id, ['EVENTS_READ']);
    assert.equal((await server.http.get('/v1/sensors?limit=999', bearer(key))).status, 400);
    const forbidden = await server.http.get('/v1/sensors', bearer(noScope));
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers['ratelimit-remaining'], '4', 'each key has its own budget');
    for (let i = 0; i < 4; i++) assert.equal((await server.http.get('/v1/sensors', bearer(key))).status, 200);
    assert.equal((await server.http.get('/v1/sensors', bearer(key))).status, 429);
  });

  it('when the plan changes, then the budget follows it', async () => {
    await server.ops.post('/clock', { now: '2026-11-22T12:00:00.000Z' });
    const account = await server.ops.createAccount({ plan: 'tiny' });
    const key = await server.ops.createKey(account.id, ['SENSORS_READ']);
    assert.equal((await server.http.get('/v1/sensors', bearer(key))).headers['ratelimit-limit'], '5');
    const patched = await server.http.request('PATCH', `/ops/v1/accounts/${account.id}`, { headers: bearer(OPS_TOKEN), body: { plan: 'standard' } });
    assert.equal(patched.json.plan, 'standard');
    assert.equal((await server.http.get('/v1/sensors', bearer(key))).headers['ratelimit-limit'], '60');
  });

  it('when a request is unauthenticated or public, then it carries no RateLimit headers', async () => {
    assert.equal((await server.http.get('/v1/sensors')).headers['ratelimit-limit'], undefined);
    assert.equal((await server.http.get('/healthz')).headers['ratelimit-limit'], undefined);
  });
});

describe('IP edge policy', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ EVMON_EDGE_MAX_PER_MINUTE: '5', EVMON_EDGE_BAN_SECONDS: '30' });
  });
  after(() => server.close());

  it('when an IP passes the threshold, then it is banned with a bare 429 for the ban length, probes excepted', async () => {
    // The operator API is behind the policy too, so this test moves the clock from inside.
    const clock = server.runtime.clock as ManualClock;
    const visitor = httpClient(server.http.baseUrl, server.ca, { localAddress: randomLoopbackAddress() });
    clock.set(new Date('2026-11-22T10:00:00.000Z'));
    for (let i = 1; i <= 5; i++) assert.notEqual((await visitor.get('/v1/nothing')).status, 429, `request ${i}`);
    const crossing = await visitor.get('/v1/sensors');
    assert.equal(crossing.status, 429);
    assert.equal(crossing.text, '');
    assert.equal(crossing.headers['retry-after'], '30');
    assert.equal(crossing.headers['content-type'], undefined);

    const banned = await visitor.get('/docs/problems');
    assert.equal(banned.status, 429);
    assert.equal(banned.text, '');
    assert.equal((await visitor.get('/healthz')).status, 200);
    assert.equal((await visitor.get('/readyz')).status, 200);
    assert.equal((await server.http.get('/docs/problems')).status, 200, 'other addresses are not banned');

    clock.advance(29);
    assert.equal((await visitor.get('/docs/problems')).status, 429);
    clock.advance(1 + 60);
    assert.equal((await visitor.get('/docs/problems')).status, 200);
    await visitor.close();
  });
});

/** Two server processes on PostgreSQL, clocks at `instant`, and a key on a plan of `limit` per minute. */
async function twoProcessesSharingAKey(owner: Owner, limit: number, instant: string) {
  const [a, b] = (await spawnServers(owner, 2, { EVMON_DATABASE_URL: PG_URL! })) as [SpawnedServer, SpawnedServer];
  try {
    await a.ops.post('/clock', { now: instant });
    await b.ops.post('/clock', { now: instant });
    const put = await a.http.request('PUT', `/ops/v1/plans/shared-${limit}`, {
      headers: bearer(OPS_TOKEN),
      body: { ...PLAN, rest_requests_per_minute: limit },
    });
    assert.equal(put.status, 200);
    const account = await a.ops.createAccount({ plan: `shared-${limit}` });
    const key = await b.ops.createKey(account.id, ['SENSORS_READ']);
    return { a, b, key };
  } catch (error) {
    await a.stop();
    await b.stop();
    throw error;
  }
}

describe('budgets across two server processes on one PostgreSQL', { skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false }, () => {
  it('when two processes serve one key, then they share one budget exactly', { timeout: timeLimit({ starts: 2 }) }, async (t) => {
    const { a, b, key } = await twoProcessesSharingAKey(t, 10, '2026-11-22T13:00:10.000Z');
    try {
      const calls = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).http.get('/v1/sensors', bearer(key)));
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 6);
    } finally {
      assert.equal(await a.stop(), 0);
      assert.equal(await b.stop(), 0);
    }
  });

  it('when the limit is large and two processes share it, then leases never overflow it and strand at most 2% of it', {
    timeout: timeLimit({ starts: 2 }),
  }, async (t) => {
    const { a, b, key } = await twoProcessesSharingAKey(t, 500, '2026-11-22T14:00:10.000Z');
    try {
      const statuses: number[] = [];
      for (let round = 0; round < 6; round++) {
        const calls = Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? a : b).http.get('/v1/sensors', bearer(key)));
        statuses.push(...(await Promise.all(calls)).map((r) => r.status));
      }
      const allowed = statuses.filter((s) => s === 200).length;
      assert.ok(allowed <= 500, `${allowed} allowed, limit 500`);
      assert.ok(allowed >= 500 - 2 * 10, `${allowed} allowed; each process strands at most one lease of 10`);
      assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0);
    } finally {
      assert.equal(await a.stop(), 0);
      assert.equal(await b.stop(), 0);
    }
  });

  it('when one process bans an IP, then the other refuses it too', { timeout: timeLimit({ starts: 2 }) }, async (t) => {
    const env = { EVMON_DATABASE_URL: PG_URL!, EVMON_EDGE_MAX_PER_MINUTE: '4', EVMON_EDGE_BAN_SECONDS: '600' };
    const [a, b] = (await spawnServers(t, 2, env)) as [SpawnedServer, SpawnedServer];
    const address = randomLoopbackAddress();
    const fromA = httpClient(a.http.baseUrl, a.ca, { localAddress: address });
    const fromB = httpClient(b.http.baseUrl, b.ca, { localAddress: address });
    try {
      for (let i = 0; i < 4; i++) assert.notEqual((await fromA.get('/v1/x')).status, 429);
      assert.equal((await fromA.get('/v1/x')).status, 429);
      const other = await fromB.get('/v1/x');
      assert.equal(other.status, 429);
      assert.equal(other.text, '');
      assert.notEqual((await b.http.get('/v1/x')).status, 429, 'other addresses pass');
    } finally {
      await fromA.close();
      await fromB.close();
      await a.stop();
      await b.stop();
    }
  });
});
