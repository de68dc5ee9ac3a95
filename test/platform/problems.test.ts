import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROBLEM_SLUGS } from '../../src/platform/problems.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

function assertProblem(server: TestServer, response: { status: number; headers: Record<string, string>; json: any }, slug: string, status: number) {
  assert.equal(response.status, status, JSON.stringify(response.json));
  assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/);
  assert.equal(response.json.type, `${server.docsUrl}/problems/${slug}`);
  assert.equal(response.json.status, status);
  assert.equal(typeof response.json.title, 'string');
  assert.equal(typeof response.json.detail, 'string');
  assert.equal(response.json.request_id, response.headers['x-request-id']);
}

describe('problem responses', () => {
  let server: TestServer;
  let key: string;
  let accountId: string;
  before(async () => {
    server = await startServer();
    const account = await server.ops.createAccount();
    accountId = account.id;
    key = await server.ops.createKey(account.id, ['SENSORS_READ']);
  });
  after(() => server.close());

  it('when the route is unknown, then 404 not-found comes before any authentication', async () => {
    const response = await server.http.get('/v1/nothing-here');
    assertProblem(server, response, 'not-found', 404);
  });

  it('when the path exists with another method, then 405 method-not-allowed with Allow', async () => {
    const response = await server.http.request('DELETE', '/v1/sensors', { headers: bearer(key) });
    assertProblem(server, response, 'method-not-allowed', 405);
    assert.equal(response.headers.allow, 'GET, HEAD, POST');
  });

  it('when no Authorization header is sent, then 401 invalid-api-key with WWW-Authenticate, telling how to send the key', async () => {
    const response = await server.http.get('/v1/sensors');
    assertProblem(server, response, 'invalid-api-key', 401);
    assert.equal(response.headers['www-authenticate'], 'Bearer');
    assert.equal(response.json.detail, 'No API key was sent: send it as Authorization: Bearer evk_…');
  });

  it('when the header is malformed, then 401 invalid-api-key tells how to send the key', async () => {
    for (const header of ['Basic abc', `Bearer ${key} extra`, 'Bearer', key]) {
      const response = await server.http.get('/v1/sensors', { authorization: header });
      assertProblem(server, response, 'invalid-api-key', 401);
      assert.equal(response.json.detail, 'The Authorization header is malformed: send the API key as Authorization: Bearer evk_…', header);
    }
  });

  it('when a bearer key is sent that is unknown or not a key, then 401 invalid-api-key says the key is not valid, without the how-to', async () => {
    for (const header of [`Bearer evk_${'A'.repeat(43)}`, 'Bearer nope', `Bearer ${key}x`, 'bearer evk_unknown']) {
      const response = await server.http.get('/v1/sensors', { authorization: header });
      assertProblem(server, response, 'invalid-api-key', 401);
      assert.equal(response.json.detail, 'The API key is not valid: it is unknown or has been revoked.', header);
    }
  });

  it('when a key is revoked, then it answers 401 at once', async () => {
    const created = await server.ops.post(`/accounts/${accountId}/api-keys`, { name: 'short-lived', scopes: ['SENSORS_READ'] });
    assert.equal((await server.http.get('/v1/sensors', bearer(created.key))).status, 200);
    const revoked = await server.ops.post(`/api-keys/${created.id}/revoke`);
    assert.equal(revoked.key, undefined);
    assert.ok(revoked.revoked_at);
    const refused = await server.http.get('/v1/sensors', bearer(created.key));
    assertProblem(server, refused, 'invalid-api-key', 401);
    assert.equal(refused.json.detail, 'The API key is not valid: it is unknown or has been revoked.');
  });

  it('when the key lacks the scope, then 403 missing-scope', async () => {
    const other = await server.ops.createKey(accountId, ['EVENTS_READ']);
    assertProblem(server, await server.http.get('/v1/sensors', bearer(other)), 'missing-scope', 403);
  });

  it('when the body is not JSON, then 400 validation-failed with errors pointing at the body', async () => {
    const response = await server.http.request('POST', '/ops/v1/accounts', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/json' },
      rawBody: '{"display_name": ',
    });
    assertProblem(server, response, 'validation-failed', 400);
    assert.deepEqual(response.json.errors, [{ pointer: '', detail: 'is not valid JSON' }]);
  });

  it('when values pass JSON but not storage (NUL characters, urn:uuid ids, unreadable timestamps), then 400, never 500', async () => {
    const nul = await server.http.request('POST', '/ops/v1/accounts', { headers: bearer(OPS_TOKEN), body: { display_name: 'a\u0000b' } });
    assertProblem(server, nul, 'validation-failed', 400);
    assert.equal(nul.json.errors[0].pointer, '/display_name');
    const urn = await server.http.get(`/ops/v1/accounts/urn:uuid:${accountId}`, bearer(OPS_TOKEN));
    assertProblem(server, urn, 'validation-failed', 400);
    for (const now of ['2026-01-01T00:00:00+01', '2026-12-31T23:59:60Z']) {
      const clock = await server.http.request('POST', '/ops/v1/clock', { headers: bearer(OPS_TOKEN), body: { now } });
      assert.equal(clock.status, 400, now);
    }
    assert.match((await server.ops.get('/clock')).now, /^\d{4}-/, 'the clock still reads a time');
  });

  it('when the URL is badly encoded or a path parameter is too long, then a problem with a request id', async () => {
    for (const path of ['/v1/sensors/%E0%A4%A', `/ops/v1/accounts/${'a'.repeat(500)}`]) {
      const response = await server.http.request('GET', path, { headers: bearer(OPS_TOKEN) });
      assert.ok(response.status === 400 || response.status === 404, `${path}: ${response.status}`);
      assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.equal(response.json.request_id, response.headers['x-request-id']);
    }
  });

  it('when the body has an unknown or mistyped member, then 400 validation-failed naming it in errors', async () => {
    const response = await server.http.request('POST', '/ops/v1/accounts', {
      headers: bearer(OPS_TOKEN),
      body: { display_name: 'x', surprise: true, kind: 'ROBOT', entitlements: { beats: 'yes' } },
    });
    assertProblem(server, response, 'validation-failed', 400);
    const pointers = response.json.errors.map((e: { pointer: string }) => e.pointer).sort();
    assert.deepEqual(pointers, ['/entitlements/beats', '/kind', '/surprise']);
  });

  it('when a required member is missing, then its pointer names it', async () => {
    const response = await server.http.request('POST', `/ops/v1/accounts/${accountId}/api-keys`, {
      headers: bearer(OPS_TOKEN),
      body: { scopes: ['SENSORS_READ'] },
    });
    assertProblem(server, response, 'validation-failed', 400);
    assert.deepEqual(response.json.errors, [{ pointer: '/name', detail: 'is required' }]);
  });

  it('when the body is not JSON at all, then 415 unsupported-media-type', async () => {
    const response = await server.http.request('POST', '/ops/v1/accounts', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'text/plain' },
      rawBody: 'hello',
    });
    assertProblem(server, response, 'unsupported-media-type', 415);
  });

  it('when the body is over the limit, then 413 payload-too-large', async () => {
    const response = await server.http.request('POST', '/ops/v1/accounts', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/json' },
      rawBody: `{"display_name":"${'x'.repeat(1024 * 1024 + 10)}"}`,
    });
    assertProblem(server, response, 'payload-too-large', 413);
  });

  it('when a query parameter is out of range or unknown, then 400 validation-failed', async () => {
    for (const query of ['limit=101', 'limit=0', 'limit=abc', 'starting_after=not-a-uuid', 'colour=red']) {
      assertProblem(server, await server.http.get(`/v1/sensors?${query}`, bearer(key)), 'validation-failed', 400);
    }
  });

  it('when a path id is not a UUID, then 400 validation-failed; when it names nothing, then 404', async () => {
    assertProblem(server, await server.http.get('/ops/v1/accounts/123', bearer(OPS_TOKEN)), 'validation-failed', 400);
    assertProblem(server, await server.http.get('/ops/v1/accounts/00000000-0000-4000-8000-000000000000', bearer(OPS_TOKEN)), 'not-found', 404);
  });

  it('when the operator token is wrong, then 401 invalid-api-key', async () => {
    assertProblem(server, await server.http.get('/ops/v1/plans', bearer('wrong-token')), 'invalid-api-key', 401);
    assertProblem(server, await server.http.get('/ops/v1/plans'), 'invalid-api-key', 401);
  });

  it('when an eleventh key is created, then 403 quota-exceeded', async () => {
    const account = await server.ops.createAccount();
    for (let i = 0; i < 10; i++) await server.ops.createKey(account.id, ['SENSORS_READ']);
    const response = await server.http.request('POST', `/ops/v1/accounts/${account.id}/api-keys`, {
      headers: bearer(OPS_TOKEN),
      body: { name: 'eleventh', scopes: ['SENSORS_READ'] },
    });
    assertProblem(server, response, 'quota-exceeded', 403);
  });

  it('when a debit exceeds the balance, then 402 insufficient-credits and nothing changes', async () => {
    const account = await server.ops.createAccount({ credit_balance: 5 });
    const response = await server.http.request('POST', `/ops/v1/accounts/${account.id}/credits`, { headers: bearer(OPS_TOKEN), body: { amount: -6 } });
    assertProblem(server, response, 'insufficient-credits', 402);
    assert.equal((await server.ops.get(`/accounts/${account.id}`)).credit_balance, 5);
  });

  it('when every problem type URI is opened, then a readable page answers', async () => {
    for (const slug of PROBLEM_SLUGS) {
      const response = await server.http.get(`/docs/problems/${slug}`);
      assert.equal(response.status, 200, slug);
      assert.match(response.headers['content-type'] ?? '', /text\/html/);
      assert.match(response.text, new RegExp(slug));
    }
    assert.equal((await server.http.get('/docs/problems/no-such-problem')).status, 404);
  });
});

describe('database unavailable', () => {
  it('when the database cannot take writes, then 503 write-unavailable with Retry-After', async () => {
    const server = await startServer();
    try {
      await server.runtime.db.close();
      const response = await server.http.request('POST', '/ops/v1/accounts', { headers: bearer(OPS_TOKEN), body: {} });
      assertProblem(server, response, 'write-unavailable', 503);
      assert.equal(response.headers['retry-after'], '5');
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});
