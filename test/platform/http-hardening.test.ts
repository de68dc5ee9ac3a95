// decisions.md, "HTTP hardening", through the public surface: raw TLS sockets where the HTTP
// parser is involved, HTTPS requests otherwise.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { rawConnection } from '../helpers/raw-http.js';
import { OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const SCOPES = ['EVENTS_READ', 'SENSORS_READ', 'SENSORS_WRITE', 'BEATS_READ', 'BEATS_WRITE'];

/** Asserts an RFC 9457 problem of this type, as JSON text. */
function assertProblem(docsUrl: string, exchange: { status: number | null; headers: Record<string, string>; body: string }, status: number, slug: string) {
  assert.equal(exchange.status, status, exchange.body);
  assert.match(exchange.headers['content-type'] ?? '', /^application\/problem\+json/);
  const body = JSON.parse(exchange.body);
  assert.equal(body.type, `${docsUrl}/problems/${slug}`);
  assert.equal(body.status, status);
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.match(body.request_id, /^[0-9a-f-]{36}$/);
  return body;
}

describe('HTTP hardening', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let account: { id: string; key: string };

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    account = await corpus.account(50, SCOPES, 'standard', { beats: true });
  });
  after(() => server.close());

  const raw = () => rawConnection(server.http.baseUrl, server.ca);
  const call = (method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {}) =>
    server.http.request(method, path, { ...options, headers: { ...bearer(account.key), ...options.headers } });

  it('when a request carries two Authorization headers, then it is 401 invalid-api-key, on the API and the operator API', async () => {
    for (const [path, first] of [
      ['/v1/sensors', `Bearer ${account.key}`],
      ['/ops/v1/clock', `Bearer ${OPS_TOKEN}`],
    ] as const) {
      for (const second of [first, 'Bearer evk_other']) {
        const connection = await raw();
        connection.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\n\r\n`);
        const body = assertProblem(server.docsUrl, await connection.exchange(5000), 401, 'invalid-api-key');
        assert.match(body.detail, /exactly one Authorization header/);
        connection.destroy();
      }
      // One header is served as before.
      const connection = await raw();
      connection.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${first}\r\n\r\n`);
      assert.equal((await connection.exchange(5000)).status, 200);
      connection.destroy();
    }
  });

  it('when the HTTP parser refuses a request (malformed, headers too large), then the answer is a problem document and the connection closes', async () => {
    const malformed = await raw();
    malformed.write('GET /v1/sensors HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n');
    const bad = await malformed.exchange(5000);
    assertProblem(server.docsUrl, bad, 400, 'bad-request');
    assert.notEqual(await malformed.untilClosed(5000), null);

    const large = await raw();
    large.write(`GET /v1/sensors HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertProblem(server.docsUrl, await large.exchange(5000), 431, 'request-header-fields-too-large');
    assert.notEqual(await large.untilClosed(5000), null);

    const framing = await raw();
    framing.write('POST /v1/events/search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!');
    assertProblem(server.docsUrl, await framing.exchange(5000), 400, 'bad-request');
  });

  it('when an idle keep-alive connection is answered, then the response announces the 75 s keep-alive timeout', async () => {
    const connection = await raw();
    connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const answered = await connection.exchange(5000);
    assert.equal(answered.status, 200);
    assert.equal(answered.headers['keep-alive'], 'timeout=75');
    connection.destroy();
  });

  it('when a client disconnects in the middle of a body, API or console form, then it is logged as the client closing, not as the database', async () => {
    const cutOff = async (head: string, partial: string) => {
      const connection = await raw();
      connection.write(`${head}Host: localhost\r\nContent-Length: 200\r\n\r\n${partial}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      connection.destroy();
    };
    await cutOff(`POST /v1/events/search HTTP/1.1\r\nAuthorization: Bearer ${account.key}\r\nContent-Type: application/json\r\n`, '{"lookback_days":');
    await cutOff('POST /console/sign-in HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n', 'email=a%40b.example&pass');
    const closing = () => server.logs.filter((line) => line.includes('client closed the connection'));
    const deadline = Date.now() + 5000;
    while (closing().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(closing().length, 2, server.logs.slice(-5).join(''));
    for (const line of closing()) assert.equal(JSON.parse(line).level, 30, 'info: nobody is paged for a client that went away');
    assert.ok(!server.logs.some((l) => l.includes('database unavailable')));
  });

  it('when a raw API key or signing secret appears in a URL or header, then no log line contains it', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await call('GET', `/v1/sensors?api_key=${account.key}&secret=${encodeURIComponent(secret)}`);
    await call('GET', `/v1/${account.key}/sensors`);
    await server.http.request('GET', `/v1/sensors?token=${account.key.replace('_', '%5F')}`, { headers: { authorization: `Bearer ${account.key}x` } });
    const logged = server.logs.join('');
    assert.ok(logged.includes('"route":"/v1/sensors","path":"/v1/sensors","query_others":2'), 'the request is still logged, without its query');
    assert.ok(!logged.includes(account.key.slice(4)), 'no part of the key after its prefix');
    assert.ok(!logged.includes(secret.slice(6, 30)) && !logged.includes(encodeURIComponent(secret).slice(6, 30)), 'no signing secret, raw or encoded');
  });

  it('when a body holds 1e309 or a year-0 date, then 400 validation-failed names the field and nothing is charged', async () => {
    const before = await corpus.balance(account.id);
    for (const [body, pointer] of [
      ['{"lookback_days":30,"min_reports":1e309}', '/min_reports'],
      ['{"lookback_days":30,"role_filters":[{"kind":"amount_gte","role_code_name":"m","min_value":-1e309}]}', '/role_filters/0/min_value'],
      ['{"lookback_days":30,"role_filters":[{"kind":"date_after","role_code_name":"m","after_iso":"0000-06-01T00:00:00Z"}]}', '/role_filters/0/after_iso'],
    ] as const) {
      const response = await call('POST', '/v1/events/search', { headers: { 'content-type': 'application/json' }, rawBody: body });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.json.type, `${server.docsUrl}/problems/validation-failed`);
      assert.deepEqual(
        response.json.errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
      );
    }
    assert.equal(await corpus.balance(account.id), before, 'nothing charged');
    const beat = await call('POST', '/v1/beats', { body: { name: 'b', clauses: [{ involved_entity_ids: [await corpus.entity()] }] } });
    assert.equal(beat.status, 201, beat.text);
    const window = await call('POST', `/v1/beats/${beat.json.id}/entries`, { body: { from: '0000-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' } });
    assert.equal(window.status, 400, window.text);
    assert.deepEqual(
      window.json.errors.map((e: { pointer: string }) => e.pointer),
      ['/from'],
    );
  });

  it('when bodies come as merge patch, empty on body-less actions, or compressed, then they are taken or refused by the rules', async () => {
    const type = await corpus.eventType();
    const created = await call('POST', '/v1/sensors', {
      body: { name: 'one', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: 'https://example.com/hook' }] },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id;

    const patched = await call('PATCH', `/v1/sensors/${id}`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      rawBody: '{"name":"renamed","description":null}',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.name, 'renamed');
    const mergeOnPost = await call('POST', '/v1/events/search', {
      headers: { 'content-type': 'application/merge-patch+json' },
      rawBody: '{"lookback_days":30}',
    });
    assert.equal(mergeOnPost.status, 415, mergeOnPost.text);

    for (const contentType of ['application/json', 'text/plain', 'application/octet-stream']) {
      const disabled = await call('POST', `/v1/sensors/${id}/disable`, { headers: { 'content-type': contentType }, rawBody: '' });
      assert.equal(disabled.status, 200, `${contentType}: ${disabled.text}`);
      const enabled = await call('POST', `/v1/sensors/${id}/enable`, { headers: { 'content-type': contentType }, rawBody: '' });
      assert.equal(enabled.status, 200, `${contentType}: ${enabled.text}`);
    }
    const notEmpty = await call('POST', `/v1/sensors/${id}/disable`, { headers: { 'content-type': 'text/plain' }, rawBody: 'hello' });
    assert.equal(notEmpty.status, 415, notEmpty.text);
    const emptyOnCreate = await call('POST', '/v1/sensors', { headers: { 'content-type': 'application/json' }, rawBody: '' });
    assert.equal(emptyOnCreate.status, 400, 'an operation that takes a body still needs one');

    const gzip = await call('POST', '/v1/events/search', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      rawBody: '{"lookback_days":30}',
    });
    assert.equal(gzip.status, 415, gzip.text);
    assert.equal(gzip.json.type, `${server.docsUrl}/problems/unsupported-media-type`);
    const identity = await call('POST', '/v1/events/search', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      rawBody: '{"lookback_days":30}',
    });
    assert.equal(identity.status, 200, identity.text);

    const deleted = await call('DELETE', `/v1/sensors/${id}`, { headers: { 'content-type': 'application/json' }, rawBody: '' });
    assert.equal(deleted.status, 204, deleted.text);
  });

  it('when fields are wrong, then each gets one message in words', async () => {
    const errors = async (method: string, path: string, body: unknown) => {
      const response = await call(method, path, { body });
      assert.equal(response.status, 400, response.text);
      return response.json.errors as { pointer: string; detail: string }[];
    };
    assert.deepEqual(await errors('POST', '/v1/events/search', { lookback_days: '30', event_type_id: 'earthquake' }), [
      { pointer: '/lookback_days', detail: 'must be one of 7, 30, 90, 180, 365' },
      { pointer: '/event_type_id', detail: 'must be a UUID or null' },
    ]);
    assert.deepEqual(await errors('POST', '/v1/events/search', { lookback_days: 30, role_filters: [{ kind: 'amount_between', role_code_name: 'm' }] }), [
      { pointer: '/role_filters/0/kind', detail: 'must be one of amount_gte, amount_lte, date_after, date_before, entity_in' },
    ]);
    assert.deepEqual(await errors('POST', '/v1/events/search', { lookback_days: 30, min_reports: 0, limit: 51 }), [
      { pointer: '/min_reports', detail: 'must be an integer from 1 to 100' },
      { pointer: '/limit', detail: 'must be an integer from 1 to 50' },
    ]);
    const filter = { incident_template_id: null, involved_entity_canonical_ids: [] };
    assert.deepEqual(await errors('POST', '/v1/sensors', { name: 's', filter, actions: [{ type: 'webhook', url: 'https://example.com/' }] }), [
      { pointer: '/filter/incident_template_id', detail: 'was renamed to event_type_id' },
      { pointer: '/filter/involved_entity_canonical_ids', detail: 'was renamed to involved_entity_ids' },
    ]);
    const path = await call('GET', '/v1/sensors/earthquake');
    assert.equal(path.status, 400);
    assert.equal(path.json.detail, 'Invalid params: id must be a UUID.');

    const tooLarge = await call('POST', '/v1/events/search', { body: { lookback_days: 30, pad: 'x'.repeat(1_100_000) } });
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.json.detail, /1 MiB \(1048576 bytes\)/);
  });
});

describe('HTTP hardening: slow clients', () => {
  // The real limits are 15 s, 30 s and 75 s; a test server takes shorter ones in the same order.
  let server: TestServer;
  before(async () => {
    server = await startServer({ EVMON_TEST_HTTP_TIMEOUTS_MS: '1000,2500,3000' });
    key = (await testCorpus(server).account(10, ['EVENTS_READ'])).key;
  });
  let key: string;
  after(() => server.close());
  const raw = () => rawConnection(server.http.baseUrl, server.ca);

  it('when headers or a body do not arrive in time, then 408 request-timeout as a problem, and an idle keep-alive connection is closed', async () => {
    const headers = await raw();
    headers.write('GET /healthz HTTP/1.1\r\nHost: loc');
    const body = await raw();
    body.write(
      `POST /v1/events/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"look`,
    );
    const idle = await raw();
    idle.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    assert.equal((await idle.exchange(5000)).status, 200);

    const [headersLate, bodyLate, idleClosed] = await Promise.all([headers.exchange(10_000), body.exchange(10_000), idle.untilClosed(10_000)]);
    assertProblem(server.docsUrl, headersLate, 408, 'request-timeout');
    assertProblem(server.docsUrl, bodyLate, 408, 'request-timeout');
    const [headersClosed, bodyClosed] = [await headers.untilClosed(5000), await body.untilClosed(5000)];
    // Each limit is kept: not before it, and by the next ones.
    assert.ok(headersClosed !== null && headersClosed >= 1000 && headersClosed < 2500, `headers: ${headersClosed}`);
    assert.ok(bodyClosed !== null && bodyClosed >= 2500, `body: ${bodyClosed}`);
    assert.ok(idleClosed !== null && idleClosed >= 3000, `idle: ${idleClosed}`);
    assert.ok(!server.logs.some((line) => line.includes('database unavailable')));
  });
});

describe('HTTP hardening: slow HTTP/2 streams', () => {
  let server: TestServer;
  let key: string;
  before(async () => {
    server = await startServer({ EVMON_TEST_HTTP_TIMEOUTS_MS: '1000,2000,60000' });
    key = (await testCorpus(server).account(10, ['EVENTS_READ'])).key;
  });
  after(() => server.close());

  it('when an HTTP/2 stream does not send its whole body in time, then that stream gets 408 and the session serves others', async () => {
    const session = http2.connect(server.http.baseUrl, { ca: server.ca, servername: 'localhost' });
    try {
      const slow = session.request({
        ':method': 'POST',
        ':path': '/v1/events/search',
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': '100',
      });
      slow.write('{"look');
      const started = Date.now();
      const answer = await new Promise<{ status: number; body: string; contentType: string }>((resolve, reject) => {
        let status = 0;
        let contentType = '';
        let body = '';
        slow.on('response', (headers) => {
          status = Number(headers[':status']);
          contentType = String(headers['content-type']);
        });
        slow.on('data', (chunk) => (body += chunk));
        slow.on('end', () => resolve({ status, body, contentType }));
        slow.on('error', reject);
      });
      assert.equal(answer.status, 408, answer.body);
      assert.match(answer.contentType, /^application\/problem\+json/);
      assert.equal(JSON.parse(answer.body).type, `${server.docsUrl}/problems/request-timeout`);
      assert.ok(Date.now() - started >= 1900, 'not before the body limit');
      // The session itself is fine: another stream on it is served.
      const health = session.request({ ':path': '/healthz' });
      const status = await new Promise<number>((resolve) => health.on('response', (headers) => resolve(Number(headers[':status']))));
      health.close();
      assert.equal(status, 200);
    } finally {
      session.close();
    }
  });
});
