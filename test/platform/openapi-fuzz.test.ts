// Seeded, bounded fuzzing of every operation the service documents: the operations of its own
// OpenAPI document (GET /v1/openapi.json, the operator API's included), read from a running
// server. Each operation gets generated JSON bodies, query strings and headers, with a key
// holding every scope (or the operator token), and without valid credentials. Whatever arrives,
// the answer is a status (never a dropped connection), never a 5xx, and a 4xx is a small
// application/problem+json problem with its status and request id.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { SCOPES } from '../../src/platform/scopes.js';
import { testCorpus, unique } from '../helpers/corpus.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { bodyOf, bodySpec } from '../helpers/fuzz-bodies.js';
import { badCredentials, extraHeaders, pathArbitrary, queryArbitrary, toJson } from '../helpers/fuzz-inputs.js';
import { describeRequest, type Outcome, type Outgoing, type Sender, sender } from '../helpers/fuzz-requests.js';
import { type Operation, operationsOf, plausibleBody, type Schema, takesBody } from '../helpers/openapi-operations.js';
import { bearer, OPS_TOKEN, startIsolatedServer, type TestServer } from '../helpers/server.js';

/** The seed of every property; each operation's own is derived from it and the operation's name. */
const SEED = 20_261_128;
/** Runs per operation and kind of input: about 2,000 requests in all, 20 to 35 s for the file on a busy 2-core machine. */
const RUNS = { bodies: 20, queries: 8, headers: 8, credentials: 6 };
/** No error answer is larger than this. */
const MAX_PROBLEM_BYTES = 16 * 1024;
/** How long one request may take before it counts as a hang. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Fewer documented operations of either API than this means the document lost some, and the fuzzing with it. */
const MIN_OPERATIONS_PER_API = 25;
const NOW = '2026-11-20T12:00:00.000Z';

describe('every documented operation under generated input', () => {
  let server: TestServer;
  let requests: Sender;
  let document: Schema;
  let operations: Operation[] = [];
  let apiKey: string;
  const ids: Record<string, string> = {};
  /** Every distinct failure seen, not only the first of each property, by rule, operation and status. */
  const failures = new Map<string, { count: number; maxBytes: number; example: string }>();

  /** A real id for path parameter `name` of the operation; DELETE and merges get one of their own to remove. */
  function realId({ method, path }: Operation, name: string): string {
    if (name === 'delivery_id') return ids.delivery!;
    if (path.startsWith('/v1/sensors/')) return method === 'DELETE' ? ids.doomedSensor! : ids.sensor!;
    if (path.startsWith('/v1/beats/')) return method === 'DELETE' ? ids.doomedBeat! : ids.beat!;
    if (path.startsWith('/v1/reports/')) return ids.report!;
    if (path.startsWith('/ops/v1/accounts/')) return ids.otherAccount!;
    if (path.startsWith('/ops/v1/api-keys/')) return ids.otherKey!;
    if (path.startsWith('/ops/v1/plans/')) return ids.otherPlan!;
    if (path.startsWith('/ops/v1/entities/')) return ids.doomedEntity!;
    if (path.startsWith('/ops/v1/event-types/')) return ids.eventType!;
    if (path.startsWith('/ops/v1/events/')) return method === 'GET' ? ids.event! : ids.doomedEvent!;
    if (path.startsWith('/ops/v1/reporting-grants/')) return ids.grant!;
    if (path.startsWith('/ops/v1/console-users/')) return ids.consoleUser!;
    return ids.entity!;
  }

  /** A real id for a UUID member of a body named `field`. */
  function idForField(field: string): string {
    if (/event_type|template/.test(field)) return ids.eventType!;
    if (/outlet/.test(field)) return ids.outlet!;
    if (/list/.test(field)) return ids.entityList!;
    if (/account/.test(field)) return ids.otherAccount!;
    if (/incident|event/.test(field)) return ids.event!;
    return ids.entity!;
  }

  const plausible = (operation: Operation) => plausibleBody(document, operation, { idFor: idForField, now: NOW });
  const filledPath = (operation: Operation, hostile: boolean) => pathArbitrary(operation, (name) => realId(operation, name), hostile);

  function credentials(operation: Operation): Record<string, string> {
    if (operation.auth === 'ops') return bearer(OPS_TOKEN);
    if (operation.auth === 'key') return bearer(apiKey);
    return {};
  }

  /** The rule an answer breaks, if any: its name, and what to say about it. */
  function brokenRule(outcome: Outcome): { rule: string; message: string } | null {
    if ('error' in outcome) {
      const { error } = outcome;
      const rule = error.name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : 'connection dropped';
      return { rule, message: `${error.code ?? error.cause?.code ?? error.name}: ${error.message} ${error.cause?.message ?? ''}` };
    }
    const { status, headers, bytes } = outcome;
    const text = bytes.toString('utf8');
    if (status >= 500) return { rule: '5xx answer', message: text };
    if (status < 400) return null;
    if (!/^application\/problem\+json/.test(headers['content-type'] ?? '')) {
      return { rule: '4xx not application/problem+json', message: `content-type ${headers['content-type'] ?? '(none)'}: ${text}` };
    }
    let problem: any;
    try {
      problem = JSON.parse(text);
    } catch {
      return { rule: '4xx body not JSON', message: text };
    }
    if (problem?.status !== status) return { rule: '4xx problem without its status', message: text };
    if (typeof problem?.request_id !== 'string' || problem.request_id.length === 0) return { rule: '4xx problem without request_id', message: text };
    if (bytes.length > MAX_PROBLEM_BYTES) {
      return {
        rule: `4xx answer over ${MAX_PROBLEM_BYTES} bytes`,
        message: `${problem.type} ${problem.detail} (${problem.errors?.length ?? 0} errors listed)`,
      };
    }
    return null;
  }

  /** The rules every answer keeps; a broken one is counted (for the summary) and fails the property. */
  function check(operation: Operation, outgoing: Outgoing, outcome: Outcome): void {
    if ('error' in outcome) {
      // undici refuses such a request before sending it (and leaks a connection slot): the generator is wrong, not the server.
      assert.notEqual(outcome.error.code, 'UND_ERR_INVALID_ARG', `not sendable: ${outcome.error.message} for ${describeRequest(outgoing)}`);
    }
    const broken = brokenRule(outcome);
    if (broken === null) return;
    const status = 'status' in outcome ? outcome.status : null;
    const bytes = 'bytes' in outcome ? outcome.bytes.length : 0;
    const message = broken.message.slice(0, 300);
    const key = `${broken.rule} | ${operation.label} | ${status}`;
    const seen = failures.get(key) ?? { count: 0, maxBytes: 0, example: `${message.slice(0, 160)} | e.g. ${describeRequest(outgoing)}` };
    failures.set(key, { ...seen, count: seen.count + 1, maxBytes: Math.max(seen.maxBytes, bytes) });
    assert.fail(`${broken.rule}: ${status ?? 'no status'} (${bytes} bytes) for ${describeRequest(outgoing)}: ${message}`);
  }

  /** One property per operation, a subtest each, its seed derived from the category and the operation. */
  async function fuzzEach<T>(
    t: TestContext,
    category: keyof typeof RUNS,
    select: (operation: Operation) => boolean,
    input: (operation: Operation) => fc.Arbitrary<T>,
    build: (operation: Operation, value: T) => Outgoing,
  ) {
    const chosen = operations.filter(select);
    assert.ok(chosen.length > 0, `no operation to fuzz for ${category}`);
    for (const operation of chosen) {
      await t.test(operation.label, async () => {
        await fc.assert(
          fc.asyncProperty(input(operation), async (value) => {
            const outgoing = build(operation, value);
            check(operation, outgoing, await requests.send(outgoing));
          }),
          { seed: seedOf(`${category} ${operation.label}`), numRuns: RUNS[category] },
        );
      });
    }
  }

  before(async () => {
    server = await startIsolatedServer();
    requests = sender(server, REQUEST_TIMEOUT_MS);
    const read = await server.http.get('/v1/openapi.json');
    assert.equal(read.status, 200, read.text.slice(0, 300));
    document = read.json;
    operations = operationsOf(document);

    const corpus = testCorpus(server);
    const created = async (method: string, path: string, body: unknown, headers: Record<string, string> = bearer(OPS_TOKEN)) => {
      const response = await server.http.request(method, path, { headers, body });
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
      return response.json;
    };
    await server.ops.post('/clock', { now: NOW });
    // A plan whose budgets the run never reaches (the test clock keeps every request in one minute).
    const budgets = { ...STANDARD_PLAN_FIELDS, rest_requests_per_minute: 1_000_000, mcp_requests_per_minute: 1_000_000, beats_max: 1_000, clauses_max: 10_000 };
    await created('PUT', '/ops/v1/plans/fuzz_main', budgets);
    ids.otherPlan = 'fuzz_other';
    await created('PUT', `/ops/v1/plans/${ids.otherPlan}`, budgets);
    const entitlements = { structured_reporting: true, entity_reporting: true, beats: true };
    const account = await server.ops.createAccount({
      display_name: 'Fuzz',
      kind: 'ORGANIZATION',
      plan: 'fuzz_main',
      credit_balance: 1_000_000_000,
      entitlements,
    });
    apiKey = await server.ops.createKey(account.id, [...SCOPES], 'fuzz every scope');
    ids.narrowKey = await server.ops.createKey(account.id, ['SENSORS_READ'], 'fuzz one scope');
    const revoked = await server.ops.post(`/accounts/${account.id}/api-keys`, { name: 'fuzz revoked', scopes: [...SCOPES] });
    await server.ops.post(`/api-keys/${revoked.id}/revoke`);
    ids.revokedKey = revoked.key;
    // The operator routes act on an account of their own, so the fuzzing key keeps its plan and scopes.
    const other = await server.ops.createAccount({ plan: ids.otherPlan, credit_balance: 1_000, entitlements });
    ids.otherAccount = other.id;
    ids.otherKey = (await server.ops.post(`/accounts/${other.id}/api-keys`, { name: 'fuzz other', scopes: ['SENSORS_READ'] })).id;
    ids.consoleUser = (
      await server.ops.post(`/accounts/${other.id}/console-users`, { email: `fuzz-${unique()}@example.com`, password: 'correct horse battery staple' })
    ).id;

    ids.eventType = (await corpus.eventType()).id;
    ids.outlet = await corpus.outlet();
    ids.entity = await corpus.entity();
    ids.doomedEntity = await corpus.entity();
    ids.entityList = (await created('POST', '/ops/v1/entity-lists', { name: `Fuzz list ${unique()}`, entity_ids: [ids.entity] })).id;
    const article = (entity: string) => ({
      outlet_id: ids.outlet,
      event_type_id: ids.eventType,
      published_at: NOW,
      happened_at: '2026-11-19',
      roles: [{ role: 'party', entity_id: entity }],
    });
    ids.event = await corpus.article(article(ids.entity));
    ids.doomedEvent = await corpus.article(article(ids.doomedEntity));
    const grant = { account_id: account.id, label: 'Fuzz grant', event_type_id: ids.eventType, expires_at: '2027-12-31T00:00:00.000Z', pins: [] };
    ids.grant = (await created('POST', '/ops/v1/reporting-grants', grant)).id;

    const keyed = bearer(apiKey);
    const sensorBody = { name: 'Fuzz sensor', filter: { event_type_id: ids.eventType }, actions: [{ type: 'webhook', url: 'https://fuzz.invalid/hook' }] };
    ids.sensor = (await created('POST', '/v1/sensors', sensorBody, keyed)).id;
    ids.doomedSensor = (await created('POST', '/v1/sensors', sensorBody, keyed)).id;
    ids.delivery = (await created('POST', `/v1/sensors/${ids.sensor}/test`, undefined, keyed)).id;
    const beatBody = { name: 'Fuzz beat', clauses: [{ event_type_id: ids.eventType }] };
    ids.beat = (await created('POST', '/v1/beats', beatBody, keyed)).id;
    ids.doomedBeat = (await created('POST', '/v1/beats', beatBody, keyed)).id;
    const reportBody = { event_type_id: ids.eventType, happened_at: '2026-11-19T10:00:00Z', roles: [{ role: 'party', entity_id: ids.entity }] };
    ids.report = (await created('POST', '/v1/reports', reportBody, keyed)).id;
  });

  after(async () => {
    if (failures.size > 0) {
      const lines = [...failures].sort(([a], [b]) => a.localeCompare(b)).map(([key, f]) => `${key} | ×${f.count}, up to ${f.maxBytes} bytes | ${f.example}`);
      const total = [...failures.values()].reduce((sum, f) => sum + f.count, 0);
      process.stderr.write(`openapi-fuzz: ${total} failing answers, ${failures.size} distinct:\n${lines.join('\n')}\n`);
    }
    await requests?.close();
    await server?.close();
  });

  it('when the document is read, then it lists the operations of the public and the operator API, with what fuzzing them needs', () => {
    const labels = (select: (operation: Operation) => boolean) => operations.filter(select).map((operation) => operation.label);
    const publicOnes = labels((operation) => operation.path.startsWith('/v1/'));
    const operatorOnes = labels((operation) => operation.path.startsWith('/ops/v1/'));
    assert.ok(publicOnes.length >= MIN_OPERATIONS_PER_API, `${publicOnes.length} /v1 operations: ${publicOnes.join(', ')}`);
    assert.ok(operatorOnes.length >= MIN_OPERATIONS_PER_API, `${operatorOnes.length} /ops/v1 operations: ${operatorOnes.join(', ')}`);
    // Else the operator token would not be sent, and their fuzzing would stop at 401.
    assert.deepEqual(
      labels((operation) => operation.path.startsWith('/ops/v1/') && operation.auth !== 'ops'),
      [],
    );
    // Else the fuzzing key, holding SCOPES, would stop at 403.
    assert.deepEqual(
      labels((operation) => operation.scopes.some((scope) => !(SCOPES as readonly string[]).includes(scope))),
      [],
    );
    // Bulk ingestion gets NDJSON bodies only if the document says it takes them.
    assert.ok(labels((operation) => operation.ndjson && operation.auth === 'ops').length > 0, 'no operator operation taking NDJSON');
    // Generated members go where the body schema has them; a schema without any would leave made-up names only.
    assert.deepEqual(
      labels((operation) => operation.bodySchema !== null && operation.fieldNames.length === 0),
      [],
    );
  });

  it('when bodies are generated JSON, deep, oversized or badly encoded, then every answer is a status, below 500, and a 4xx is a small problem', async (t) => {
    await fuzzEach(
      t,
      'bodies',
      takesBody,
      (operation) => fc.tuple(filledPath(operation, false), bodySpec(operation)),
      (operation, [path, spec]) => {
        const { body, what } = bodyOf(operation, spec, plausible(operation));
        const contentType =
          spec.kind === 'ndjson'
            ? 'application/x-ndjson'
            : operation.method === 'PATCH' && body.length % 2 === 0
              ? 'application/merge-patch+json'
              : 'application/json';
        return { method: operation.method, path, headers: { ...credentials(operation), 'content-type': contentType }, body, what };
      },
    );
  });

  it('when query strings are generated, with the operation parameters in odd forms, then every answer is a status, below 500, and a 4xx is a small problem', async (t) => {
    await fuzzEach(
      t,
      'queries',
      () => true,
      (operation) => fc.tuple(filledPath(operation, true), queryArbitrary(operation)),
      (operation, [path, query]) => {
        const body = takesBody(operation) ? toJson(plausible(operation)) : undefined;
        const headers: Record<string, string> = { ...credentials(operation), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
        return { method: operation.method, path: `${path}?${query}`, headers, body, what: 'a plausible body' };
      },
    );
  });

  it('when headers are generated, odd content types, charsets, idempotency keys and values up to 20 KB, then every answer is a status, below 500, and a 4xx is a small problem', async (t) => {
    await fuzzEach(
      t,
      'headers',
      () => true,
      (operation) => fc.tuple(filledPath(operation, false), extraHeaders, fc.boolean()),
      (operation, [path, headers, withBody]) => {
        const sendsBody = takesBody(operation) || (withBody && operation.method !== 'GET');
        const body = sendsBody ? toJson(plausible(operation)) : undefined;
        return { method: operation.method, path, headers: { ...headers, ...credentials(operation) }, body, what: sendsBody ? 'a plausible body' : 'no body' };
      },
    );
  });

  it('when credentials are missing, malformed, revoked, too narrow or of the other API, then every answer is a status, below 500, and a 4xx is a small problem', async (t) => {
    await fuzzEach(
      t,
      'credentials',
      () => true,
      (operation) => {
        const otherApi = operation.auth === 'ops' ? apiKey : OPS_TOKEN;
        const { revokedKey, narrowKey } = ids;
        const wrong = [
          `Bearer ${revokedKey}`,
          `Bearer ${narrowKey}`,
          `Bearer ${revokedKey}x`,
          `bearer  ${revokedKey}`,
          `Bearer ${otherApi}`,
          `Bearer ${OPS_TOKEN}x`,
        ];
        return fc.tuple(filledPath(operation, true), badCredentials(wrong), fc.option(bodySpec(operation), { nil: undefined }));
      },
      (operation, [path, authorization, spec]) => {
        const built = takesBody(operation) && spec !== undefined ? bodyOf(operation, spec, plausible(operation)) : undefined;
        const headers: Record<string, string> = { ...authorization, ...(built ? { 'content-type': 'application/json' } : {}) };
        return { method: operation.method, path, headers, body: built?.body, what: built?.what ?? 'no body' };
      },
    );
  });
});

/** A seed of its own for each property, fixed by SEED and the property's name (FNV-1a). */
function seedOf(name: string): number {
  let hash = 0x811c9dc5;
  for (const char of name) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  return (SEED ^ hash) | 0;
}
