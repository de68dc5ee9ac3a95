// Bad requests of any size get small, bounded 4xx answers (docs/api-reference.md, "Errors" and
// "Transport"): at most 20 field errors and a count of the rest, JSON bodies bounded in depth,
// members and values before they are parsed (per bulk line too), 431 above 16 KiB of headers on
// HTTP/1.1 keep-alive connections and HTTP/2 streams, UTF-8 only, integers in query strings as
// decimal digits, and the operator API's methods told only to the operator. Over HTTPS, on
// whichever database the suite runs on.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const MAX_ERRORS = 20;
/** A problem of any bad request stays within this many bytes. */
const PROBLEM_BYTES = 8 * 1024;

/** `{"k0":0,…}`: an object of `count` unknown members. */
const unknownMembers = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`;
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe('bounded answers to bad requests', () => {
  let server: TestServer;
  let key: string;
  const json = () => ({ ...bearer(key), 'content-type': 'application/json' });
  const ops = (type = 'application/json') => ({ ...bearer(OPS_TOKEN), 'content-type': type });

  before(async () => {
    server = await startServer();
    // A budget that never runs out: these tests send many requests with one key.
    const plan = await server.http.request('PUT', '/ops/v1/plans/unmetered', {
      headers: bearer(OPS_TOKEN),
      body: { ...STANDARD_PLAN_FIELDS, rest_requests_per_minute: 1_000_000 },
    });
    assert.equal(plan.status, 200, plan.text);
    const account = await server.ops.createAccount({ plan: 'unmetered', credit_balance: 100 });
    key = await server.ops.createKey(account.id, ['SENSORS_WRITE', 'SENSORS_READ', 'EVENTS_READ']);
  });
  after(() => server.close());

  function assertValidationProblem(response: { status: number; text: string; json: any; headers: Record<string, string> }, what: string) {
    assert.equal(response.status, 400, `${what}: ${response.text.slice(0, 300)}`);
    assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/, what);
    assert.equal(response.json.type, `${server.docsUrl}/problems/validation-failed`, what);
    assert.ok(response.text.length <= PROBLEM_BYTES, `${what}: a ${response.text.length}-byte answer`);
    return response.json;
  }

  it('when a 1 MB body holds 95,000 unknown members, then the answer is a small 400 that names the limit', async () => {
    const body = unknownMembers(95_000);
    assert.ok(body.length > 1_000_000);
    const problem = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: body }), '95,000 members');
    assert.match(problem.detail, /more than 1,000 members/);
    assert.deepEqual(problem.errors, [{ pointer: '', detail: 'has an object with too many members' }]);
  });

  it('when a body fails on more fields than are listed, then 20 are listed and errors_omitted counts the rest exactly', async () => {
    // 900 unknown members and the 3 required ones missing: 903 fields in all.
    const problem = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: unknownMembers(900) }), '900 members');
    assert.equal(problem.errors.length, MAX_ERRORS);
    assert.equal(problem.errors_omitted, 903 - MAX_ERRORS);
    assert.deepEqual(
      problem.errors.slice(0, 4).map((e: { pointer: string }) => e.pointer),
      ['/name', '/filter', '/actions', '/k0'],
    );
    // A body with few failures lists them all and says nothing of more.
    const few = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: '{"surprise":1}' }), 'one member');
    assert.equal(few.errors.length, 4);
    assert.equal(few.errors_omitted, undefined);
  });

  it('when an array holds thousands of bad items, or too many values in all, then the answer stays small', async () => {
    const items = (count: number) =>
      JSON.stringify({ name: 'x', filter: { involved_entity_ids: Array.from({ length: count }, () => 123456789) }, actions: [] });
    const many = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: items(25_000) }), '25,000 items');
    assert.equal(many.errors.length, MAX_ERRORS);
    assert.ok(many.errors_omitted > 20_000, String(many.errors_omitted));
    const tooMany = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: items(100_000) }), '100,000 items');
    assert.match(tooMany.detail, /more than 30,000 JSON values/);
  });

  it('when an unknown member has a long name, then its pointer is cut at 200 bytes of the answer, whole characters only', async () => {
    const name = 'n'.repeat(50_000);
    const problem = assertValidationProblem(await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: `{"${name}":1}` }), 'a long name');
    const long = problem.errors.find((e: { pointer: string }) => e.pointer.startsWith('/nnn'));
    assert.equal(long.pointer, `/${'n'.repeat(199)}…`);
    // A surrogate pair at the cut is left out whole, never split.
    const astral = assertValidationProblem(
      await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: JSON.stringify({ [`${'a'.repeat(198)}😀x`]: 1 }) }),
      'an emoji at the cut',
    );
    assert.ok(astral.errors.some((e: { pointer: string }) => e.pointer === `/${'a'.repeat(198)}…`));
    // Names that JSON escapes six bytes a character are cut by what they take in the answer.
    const escaped = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`${i}${'\u0001'.repeat(200)}`, 1]));
    const response = await server.http.request('POST', '/v1/sensors', { headers: json(), rawBody: JSON.stringify(escaped) });
    assertValidationProblem(response, 'escaped names');
    assert.ok(Buffer.byteLength(response.text) <= 10 * 1024, `${Buffer.byteLength(response.text)} bytes`);
  });

  it('when JSON nests deeper than 32 levels, then every JSON endpoint answers 400 saying so, and 32 levels are read', async () => {
    const targets: [string, string, Record<string, string>][] = [
      ['POST', '/v1/sensors', json()],
      ['POST', '/v1/events/search', json()],
      ['POST', '/ops/v1/accounts', ops()],
      ['POST', '/mcp', { ...json(), accept: 'application/json, text/event-stream' }],
    ];
    for (const [method, path, headers] of targets) {
      for (const body of [nested(33), nested(3000), nestedObject(33), nestedObject(100_000)]) {
        const response = await server.http.request(method, path, { headers, rawBody: body });
        // MCP answers a JSON-RPC error carrying the problem; the others the problem itself.
        const problem = path === '/mcp' ? response.json.error.data : assertValidationProblem(response, `${path} ${body.slice(0, 8)}…`);
        assert.equal(response.status, 400, path);
        assert.match(problem.detail, /deeper than 32 levels/, path);
      }
      // 32 levels pass the shape check: the schema then refuses the body for what it holds.
      const within = await server.http.request(method, path, { headers, rawBody: nestedObject(32) });
      assert.ok(!/deeper than/.test(within.text), `${path}: ${within.text.slice(0, 200)}`);
      assert.ok(within.status < 500, `${path}: ${within.status}`);
    }
  });

  it('when a bulk line nests too deep or fails on many fields, then that line alone is refused, the others are stored, and the answer stays small', async () => {
    const outlet = await server.ops.post('/outlets', { name: 'Bounded Times' });
    const type = await server.ops.post('/event-types', {
      code_name: `bounded_${Date.now()}`,
      name: 'Bounded',
      description: '',
      roles: [{ code_name: 'party', name: 'Party', expected_type: 'NAMED_ENTITY' }],
      sentence_template: '{party}',
    });
    const entity = await server.ops.post('/entities', { name: 'Bounded Party' });
    const valid = (n: number) =>
      JSON.stringify({ outlet_id: outlet.id, event_type_id: type.id, roles: [{ role: 'party', entity_id: entity.id }], url: `https://bounded.example/${n}` });
    const lines = [valid(1), nested(3000), valid(2), unknownMembers(900), nestedObject(40), valid(3)];
    const body = `${lines.join('\n')}\n`;
    const response = await server.http.request('POST', '/ops/v1/articles/bulk', { headers: ops('application/x-ndjson'), rawBody: body });
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.deepEqual(
      response.json.results.map((r: { line: number; status: number }) => [r.line, r.status]),
      [
        [1, 201],
        [2, 400],
        [3, 201],
        [4, 400],
        [5, 400],
        [6, 201],
      ],
    );
    assert.match(response.json.results[1].problem.detail, /deeper than 32 levels/);
    // The probe's line: 15.8 MB of 1.3 million unknown fields, beside a valid line.
    const huge = unknownMembers(1_300_000);
    const probe = await server.http.request('POST', '/ops/v1/articles/bulk', { headers: ops('application/x-ndjson'), rawBody: `${huge}\n${valid(4)}\n` });
    assert.equal(probe.status, 200, probe.text.slice(0, 300));
    assert.deepEqual(
      probe.json.results.map((r: { status: number }) => r.status),
      [400, 201],
    );
    assert.match(probe.json.results[0].problem.detail, /more than 1,000 members/);
    // A line that poisons a prototype is refused as the single call refuses it.
    const poisoned = '{"__proto__":{"admin":true}}';
    const single = await server.http.request('POST', '/ops/v1/articles', { headers: ops(), rawBody: poisoned });
    const bulk = await server.http.request('POST', '/ops/v1/articles/bulk', { headers: ops('application/x-ndjson'), rawBody: `${poisoned}\n` });
    assert.equal(single.status, 400);
    assert.deepEqual(
      [bulk.json.results[0].status, bulk.json.results[0].problem.detail, bulk.json.results[0].problem.errors],
      [400, single.json.detail, single.json.errors],
    );
    assert.ok(probe.text.length <= 2 * 1024, `${probe.text.length} bytes`);
    assert.equal(response.json.results[3].problem.errors.length, MAX_ERRORS);
    assert.ok(response.json.results[3].problem.errors_omitted > 800);
    assert.ok(response.text.length <= 3 * PROBLEM_BYTES, `${response.text.length} bytes`);
  });

  it('when a bulk request holds thousands of short bad lines, then its answer is at most a fixed size per line', async () => {
    const lines = 5000;
    const body = `${Array.from({ length: lines }, (_, i) => (i % 2 === 0 ? '{}' : '{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22}')).join('\n')}\n`;
    const response = await server.http.request('POST', '/ops/v1/articles/bulk', { headers: ops('application/x-ndjson'), rawBody: body });
    assert.equal(response.status, 200);
    assert.equal(response.json.refused, lines);
    assert.ok(response.text.length <= lines * 6 * 1024, `${response.text.length} bytes for ${lines} lines`);
    assert.equal(response.json.results[1].problem.errors.length, MAX_ERRORS);
  });

  it('when a body names a charset other than UTF-8, then it is 415, and UTF-8 (or US-ASCII, its subset) named in any case is read', async () => {
    for (const [path, type, headers] of [
      ['/v1/sensors', 'application/json; charset=utf-16', bearer(key)],
      ['/v1/sensors', 'application/json;charset="ISO-8859-1"', bearer(key)],
      ['/ops/v1/articles/bulk', 'application/x-ndjson; charset=utf-16', bearer(OPS_TOKEN)],
    ] as const) {
      const response = await server.http.request('POST', path, { headers: { ...headers, 'content-type': type }, rawBody: '{}\n' });
      assert.equal(response.status, 415, `${type}: ${response.text}`);
      assert.equal(response.json.type, `${server.docsUrl}/problems/unsupported-media-type`);
    }
    for (const charset of ['UTF-8', 'utf8', 'us-ascii']) {
      const read = await server.http.request('POST', '/v1/sensors', {
        headers: { ...bearer(key), 'content-type': `application/json; charset=${charset}` },
        rawBody: '{}',
      });
      assert.equal(read.status, 400, `${charset}: read, then refused by the schema`);
      assert.ok(read.json.errors.length > 0, charset);
    }
  });

  it('when an integer query parameter is written other than in decimal digits, then it is 400 like a wrong type', async () => {
    for (const limit of ['1e1', '0x10', '%205', '+5', '5.0', '1_0', 'Infinity']) {
      const response = await server.http.request('GET', `/v1/sensors?limit=${limit}`, { headers: bearer(key) });
      assert.equal(response.status, 400, `${limit}: ${response.text}`);
      assert.equal(response.json.detail, 'Invalid querystring: limit must be an integer from 1 to 100.');
    }
    for (const limit of ['5', '05', '100']) {
      const response = await server.http.request('GET', `/v1/sensors?limit=${limit}`, { headers: bearer(key) });
      assert.equal(response.status, 200, `${limit}: ${response.text}`);
    }
  });

  it('when the operator API is called with a method it does not take, then only the operator learns it: 401 without the token, 405 with it', async () => {
    for (const path of ['/ops/v1/plans/', '/ops/v1/clock', '/%6Fps/v1/clock', '/ops/v1/%63lock']) {
      const anonymous = await server.http.request('DELETE', path);
      assert.equal(anonymous.status, 401, `${path}: ${anonymous.text}`);
      assert.equal(anonymous.headers.allow, undefined);
      const operator = await server.http.request('DELETE', path, { headers: bearer(OPS_TOKEN) });
      assert.equal(operator.status, 405, `${path}: ${operator.text}`);
      assert.ok(operator.headers.allow);
    }
    // An unknown path is 404 before any authentication, as everywhere.
    assert.equal((await server.http.request('GET', '/ops/v1/nothing-here')).status, 404);
  });

  it('when a keep-alive HTTP/1.1 connection sends a 100 KB URL after other requests, then it gets 431 before the connection closes', async () => {
    const agent = new Agent({ connect: { ca: server.ca, servername: 'localhost' }, connections: 1, pipelining: 1 });
    try {
      for (let round = 0; round < 3; round++) {
        const first = await request(`${server.http.baseUrl}/healthz`, { dispatcher: agent });
        await first.body.text();
        assert.equal(first.statusCode, 200);
        const large = await request(`${server.http.baseUrl}/v1/sensors?x=${'a'.repeat(100_000)}`, { dispatcher: agent, headers: bearer(key) });
        const text = await large.body.text();
        assert.equal(large.statusCode, 431, text);
        assert.equal(JSON.parse(text).type, `${server.docsUrl}/problems/request-header-fields-too-large`);
      }
    } finally {
      await agent.close();
    }
  });

  it('when an HTTP/2 stream sends more than 16 KiB of headers, then that stream gets 431 and the session serves the next; past 64 KiB the stream is refused', async () => {
    const session = http2.connect(server.http.baseUrl, { ca: server.ca, servername: 'localhost' });
    const send = (headers: http2.OutgoingHttpHeaders) =>
      new Promise<{ status: number; body: string; rstCode: number; requestId: unknown }>((resolve) => {
        const stream = session.request(headers);
        let status = 0;
        let body = '';
        let requestId: unknown;
        stream.on('response', (h) => {
          status = Number(h[':status']);
          requestId = h['x-request-id'];
        });
        stream.on('data', (chunk) => (body += chunk));
        stream.on('error', () => undefined);
        stream.on('close', () => resolve({ status, body, rstCode: stream.rstCode ?? 0, requestId }));
        stream.end();
      });
    try {
      const within = await send({ ':path': '/healthz', 'x-padding': 'a'.repeat(15_000) });
      assert.equal(within.status, 200);
      for (const size of [17_000, 40_000, 60_000]) {
        const over = await send({ ':path': '/v1/sensors', authorization: `Bearer ${key}`, 'x-padding': 'a'.repeat(size) });
        assert.equal(over.status, 431, `${size}: ${over.body}`);
        assert.equal(JSON.parse(over.body).type, `${server.docsUrl}/problems/request-header-fields-too-large`);
        assert.equal(over.requestId, JSON.parse(over.body).request_id, 'the answer carries its request id');
      }
      const refused = await send({ ':path': '/healthz', 'x-padding': 'a'.repeat(70_000) });
      assert.equal(refused.status, 0);
      assert.equal(refused.rstCode, http2.constants.NGHTTP2_REFUSED_STREAM);
      assert.equal((await send({ ':path': '/healthz' })).status, 200, 'the session still serves');
    } finally {
      session.close();
    }
  });
});
