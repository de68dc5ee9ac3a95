// Property-based tests of the error paths: whatever arrives, the answer is a 2xx or a 4xx
// problem, never a 500 and never a hang.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { generateRawKey, parseBearerKey } from '../../src/modules/accounts/api-key-format.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const RUNS = 150;

function assertClientOutcome(response: { status: number; headers: Record<string, string>; json: any; text: string }, context: unknown) {
  assert.ok(response.status < 500, `${response.status} for ${JSON.stringify(context)}: ${response.text}`);
  if (response.status >= 400) {
    assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/, JSON.stringify(context));
    assert.equal(response.json.status, response.status);
    assert.ok(response.json.request_id);
  }
}

describe('API key parser', () => {
  it('when given any header value, then it never throws and accepts only canonical evk_ keys', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('Bearer ', 'bearer evk_', `Bearer evk_${'A'.repeat(43)}`)), (header) => {
        const parsed = parseBearerKey(header);
        if (parsed !== null) {
          assert.match(parsed, /^evk_[A-Za-z0-9_-]{43}$/);
          assert.equal(Buffer.from(parsed.slice(4), 'base64url').length, 32);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('when a key is generated, then its bearer header parses back to it, with any case of "Bearer"', () => {
    fc.assert(
      fc.property(fc.constantFrom('Bearer', 'bearer', 'BEARER'), fc.integer({ min: 1, max: 3 }), (scheme, spaces) => {
        const key = generateRawKey();
        assert.equal(parseBearerKey(`${scheme}${' '.repeat(spaces)}${key.raw}`), key.raw);
        assert.equal(key.prefix, key.raw.slice(4, 12));
      }),
      { numRuns: 200 },
    );
  });

  it('when a character of a key is changed to a non-alphabet one, then it is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 46 }), fc.constantFrom('+', '/', '=', ' ', '.', 'é', '\u0000'), (index, ch) => {
        const raw = generateRawKey().raw;
        const mutated = raw.slice(0, index) + ch + raw.slice(index + 1);
        assert.equal(parseBearerKey(`Bearer ${mutated}`), null);
      }),
      { numRuns: 300 },
    );
  });
});

describe('request handling under arbitrary input', () => {
  let server: TestServer;
  let accountId: string;
  let key: string;
  let entityId: string;
  let eventTypeId: string;
  before(async () => {
    server = await startServer();
    accountId = (await server.ops.createAccount()).id;
    key = await server.ops.createKey(accountId, ['SENSORS_READ']);
    entityId = (await server.ops.post('/entities', { name: 'Fuzz target' })).id;
    eventTypeId = (
      await server.ops.post('/event-types', {
        code_name: `fuzz_${Date.now()}`,
        name: 'F',
        description: '',
        roles: [{ code_name: 'who', name: 'Who', expected_type: 'NAMED_ENTITY' }],
        sentence_template: '{who}',
      })
    ).id;
    await server.ops.post('/plans/unused', undefined).catch(() => undefined);
  });
  after(() => server.close());

  const opsCall = (method: string, path: string, rawBody: string, contentType = 'application/json') =>
    server.http.request(method, `/ops/v1${path}`, { headers: { ...bearer(OPS_TOKEN), 'content-type': contentType }, rawBody });

  it('when operator bodies are arbitrary JSON, then every answer is a 2xx or a 4xx problem', async () => {
    const targets = [
      ['POST', '/accounts'],
      ['PATCH', () => `/accounts/${accountId}`],
      ['POST', () => `/accounts/${accountId}/credits`],
      ['POST', () => `/accounts/${accountId}/api-keys`],
      ['PUT', '/plans/fuzzed'],
      ['POST', '/clock'],
      ['POST', '/articles'],
      ['POST', '/event-types'],
      ['PATCH', () => `/event-types/${eventTypeId}`],
      ['POST', '/entities'],
      ['POST', '/entity-lists'],
      ['POST', () => `/entities/${entityId}/merge`],
      ['POST', () => `/events/${'00000000-0000-4000-8000-000000000000'}/merge`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), fc.jsonValue({ maxDepth: 4 }), async ([method, path], value) => {
        const target = typeof path === 'function' ? path() : path;
        const response = await opsCall(method, target, JSON.stringify(value));
        assertClientOutcome(response, { method, target, value });
      }),
      { numRuns: RUNS },
    );
  });

  it('when operator bodies are objects with plausible keys and hostile values, then every answer is a 2xx or a 4xx problem', async () => {
    const hostile = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53, 'INDIVIDUAL', 'standard', '', '\u0000', 'a\u0000', '__proto__', null, [], {}),
      fc.string({ unit: 'binary' }),
    );
    const keys = fc.constantFrom(
      'display_name',
      'kind',
      'plan',
      'credit_balance',
      'entitlements',
      'amount',
      'reason',
      'name',
      'scopes',
      'now',
      'advance_seconds',
      'beats_max',
      '__proto__',
      'constructor',
      'outlet_id',
      'event_type_id',
      'roles',
      'code_name',
      'sentence_template',
      'entity_ids',
      'into_entity_id',
      'happened_at',
      'published_at',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/accounts',
          `/accounts/${'00000000-0000-4000-8000-000000000000'}/credits`,
          '/clock',
          '/plans/p1',
          '/articles',
          '/event-types',
          '/entity-lists',
        ),
        fc.dictionary(keys, hostile, { maxKeys: 5 }),
        async (path, body) => {
          const method = path.startsWith('/plans') ? 'PUT' : 'POST';
          assertClientOutcome(await opsCall(method, path, JSON.stringify(body)), { path, body });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('when search bodies have plausible keys and hostile values, with or without an idempotency key, then every answer is a 2xx or a 4xx problem', async () => {
    const searchKey = await server.ops.createKey((await server.ops.createAccount({ credit_balance: 1000 })).id, ['EVENTS_READ']);
    const hostile = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom(
        7,
        30,
        365,
        0,
        -1,
        51,
        1e308,
        2 ** 53,
        '',
        '\u0000',
        null,
        [],
        {},
        '00000000-0000-4000-8000-000000000000',
        [eventTypeId],
        [entityId],
        `eyJ9.${'A'.repeat(43)}`,
      ),
      fc.array(
        fc.record(
          {
            kind: fc.constantFrom('amount_gte', 'amount_lte', 'date_after', 'date_before', 'entity_in', 'other'),
            role_code_name: fc.constantFrom('who', '', 'x'),
            min_value: fc.double(),
            max_value: fc.double(),
            after_iso: fc.string(),
            before_iso: fc.constantFrom('2026-01-01T00:00:00Z', '2026-13-01T00:00:00Z', '2026-02-30T25:61:00+99:00'),
            canonical_ids: fc.constant([entityId]),
            entity_list_ids: fc.constant(['00000000-0000-4000-8000-000000000000']),
            unit: fc.string(),
          },
          { requiredKeys: ['kind'] },
        ),
        { maxLength: 3 },
      ),
    );
    const keys = fc.constantFrom(
      'lookback_days',
      'event_type_id',
      'involved_entity_ids',
      'involved_entity_list_ids',
      'required_source_news_outlet_ids',
      'min_reports',
      'role_filters',
      'limit',
      'cursor',
      '__proto__',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(keys, hostile, { maxKeys: 5 }),
        fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
        async (body, idempotencyKey) => {
          const headers = {
            ...bearer(searchKey),
            'content-type': 'application/json',
            ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey.replace(/[^\x20-\x7e]/g, '') }),
          };
          const response = await server.http.request('POST', '/v1/events/search', { headers, rawBody: JSON.stringify({ lookback_days: 7, ...body }) });
          assertClientOutcome(response, { body, idempotencyKey });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('when bodies are arbitrary text, bytes or content types, then every answer is a 4xx problem or a 2xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.constantFrom('{', '[]', 'null', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '\ufeff{}'),
        ),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
          'application/jsonx',
        ),
        async (text, type) => assertClientOutcome(await opsCall('POST', '/accounts', text, type), { text, type }),
      ),
      { numRuns: RUNS },
    );
  });

  it('when Authorization headers, paths and query strings are arbitrary, then no answer is a 5xx', async () => {
    const safeHeader = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          safeHeader,
          fc.constant(`Bearer ${key}`),
          safeHeader.map((s) => `Bearer ${s}`),
        ),
        fc.constantFrom(
          '/v1/sensors',
          '/v1/sensors/',
          '/v1/Sensors',
          '/v1',
          '/',
          '/ops/v1/accounts/x',
          '/v1/sensors/%00',
          '/docs/problems/%2e%2e',
          '/ops/v1/accounts/%E0%A4%A',
          '/ops/v1/accounts/urn:uuid:00000000-0000-4000-8000-000000000000',
        ),
        fc.webQueryParameters(),
        async (authorization, path, query) => {
          const response = await server.http.request('GET', `${path}${query ? `?${query}` : ''}`, { headers: { authorization } });
          assertClientOutcome(response, { authorization, path, query });
        },
      ),
      { numRuns: RUNS },
    );
  });
});
