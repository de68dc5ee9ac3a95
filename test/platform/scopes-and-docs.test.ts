import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/platform/scopes.js';
import { bearer, startServer, type TestServer } from '../helpers/server.js';

interface Operation {
  method: string;
  path: string;
  /** Every scope the route needs (one, or several such as filing a report's two). */
  scopes: string[];
}

/** Every key-authenticated operation, read from the OpenAPI document the server serves. */
async function keyOperations(server: TestServer): Promise<Operation[]> {
  const doc = (await server.http.get('/v1/openapi.json')).json;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (operation['x-required-scope']) operations.push({ method: method.toUpperCase(), path, scopes: [operation['x-required-scope']].flat() });
    }
  }
  return operations;
}

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

describe('scopes and the API reference', () => {
  let server: TestServer;
  let accountId: string;
  before(async () => {
    server = await startServer();
    accountId = (await server.ops.createAccount({ entitlements: { structured_reporting: true, beats: true } })).id;
  });
  after(() => server.close());

  it('when the OpenAPI document is fetched without a key, then it is OpenAPI 3.1 and lists every /v1 route with its scope', async () => {
    const response = await server.http.get('/v1/openapi.json');
    assert.equal(response.status, 200);
    assert.equal(response.json.openapi, '3.1.0');
    assert.equal(response.json.paths['/v1/sensors'].get['x-required-scope'], 'SENSORS_READ');
    assert.deepEqual(response.json.paths['/v1/sensors'].get.security, [{ apiKey: [] }]);
    for (const [path, item] of Object.entries<Record<string, any>>(response.json.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const operation of Object.values<any>(item)) assert.ok(operation['x-required-scope'], `${path} declares a scope`);
    }
  });

  it('when each route is called with a key holding every other scope, then 403 missing-scope; with its scope, then not 403', async () => {
    const operations = await keyOperations(server);
    assert.ok(operations.length >= 1);
    for (const operation of operations.filter((o) => o.scopes.length > 0)) {
      const others = SCOPES.filter((s) => !operation.scopes.includes(s) && s !== 'REPORTS_WRITE' && s !== 'REPORTS_READ');
      const without = await server.ops.post(`/accounts/${accountId}/api-keys`, { name: 'without', scopes: others.length > 0 ? others : ['EVENTS_READ'] });
      const denied = await server.http.request(operation.method, concrete(operation.path), {
        headers: bearer(without.key),
        body: operation.method === 'GET' ? undefined : {},
      });
      assert.equal(denied.status, 403, `${operation.method} ${operation.path}`);
      assert.equal(denied.json.type, `${server.docsUrl}/problems/missing-scope`);

      const withScope = await server.ops.post(`/accounts/${accountId}/api-keys`, { name: 'with', scopes: operation.scopes });
      const allowed = await server.http.request(operation.method, concrete(operation.path), {
        headers: bearer(withScope.key),
        body: operation.method === 'GET' ? undefined : {},
      });
      assert.notEqual(allowed.status, 403, `${operation.method} ${operation.path}`);
      assert.notEqual(allowed.status, 401);
      // An account holds at most 10 active keys.
      for (const key of [without, withScope]) await server.ops.post(`/api-keys/${key.id}/revoke`);
    }
  });

  it('when GET /v1/sensors is called with SENSORS_READ, then the empty list envelope answers exactly', async () => {
    const key = await server.ops.createKey(accountId, ['SENSORS_READ']);
    const response = await server.http.get('/v1/sensors', bearer(key));
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, { object: 'list', data: [], has_more: false, next_cursor: null });
    assert.ok(response.headers['x-request-id']);
  });

  it('when REPORTS_WRITE is asked for, then it needs a reporting entitlement and brings REPORTS_READ', async () => {
    const plain = await server.ops.createAccount();
    const refused = await server.http.request('POST', `/ops/v1/accounts/${plain.id}/api-keys`, {
      headers: bearer('test-ops-token-0123456789'),
      body: { name: 'r', scopes: ['REPORTS_WRITE'] },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.errors[0].pointer, '/scopes');
    const key = await server.ops.post(`/accounts/${accountId}/api-keys`, { name: 'r', scopes: ['REPORTS_WRITE'] });
    assert.deepEqual(key.scopes, ['REPORTS_READ', 'REPORTS_WRITE']);
    assert.match(key.key, /^evk_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.prefix, key.key.slice(4, 12));
  });

  it('when /docs is opened, then a reference page answers and loads nothing from outside', async () => {
    const response = await server.http.get('/docs');
    assert.equal(response.status, 200);
    assert.match(response.text, /<html/i);
    // The project's own reference (Redoc over the OpenAPI document), not a stock page.
    assert.match(response.text, /<title>Event Monitoring API reference<\/title>/);
    assert.match(response.text, /<redoc spec-url="\/v1\/openapi.json"/);
    assert.match(response.headers['content-security-policy'] as string, /default-src 'self'; script-src 'self';/);
    const external = [...response.text.matchAll(/(?:src|href)="(https?:)?\/\/[^"]+"/g)].map((m) => m[0]);
    assert.deepEqual(external, []);
    for (const asset of response.text.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)) {
      const path = asset[1]!.startsWith('docs/') ? `/${asset[1]}` : `/docs/${asset[1]!.replace(/^\.\//, '')}`;
      assert.equal((await server.http.get(path)).status, 200, path);
    }
  });
});
