// Corpus building for tests: event types, outlets, entities and articles through the
// operator API, each named uniquely so tests sharing one database never see each other's.
import assert from 'node:assert/strict';
import { roleList } from './fixtures.js';
import { bearer, type HttpResponse } from './http.js';
import { OPS_TOKEN, startServer, type TestServer } from './server.js';

export const unique = () => Math.random().toString(36).slice(2, 10);

export interface TestCorpus {
  ops(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  eventType(roles?: Record<string, string | null>, template?: string): Promise<{ id: string; code_name: string }>;
  outlet(): Promise<string>;
  entity(name?: string): Promise<string>;
  /** Ingests an article; answers its event id. */
  article(body: Record<string, unknown>): Promise<string>;
  /** Ingests NDJSON lines through POST /ops/v1/articles/bulk (200 asserted); answers the result. */
  bulk(lines: readonly string[]): Promise<any>;
  /** Ingests articles in one bulk request (every line must be stored anew); answers each one's event id. */
  articles(bodies: readonly Record<string, unknown>[]): Promise<string[]>;
  /** A new account with this balance, plan and entitlements, and a key with these scopes. */
  account(credits?: number, scopes?: string[], plan?: string, entitlements?: Record<string, boolean>): Promise<{ id: string; key: string }>;
  balance(accountId: string): Promise<number>;
}

export function testCorpus(server: Pick<TestServer, 'http'>): TestCorpus {
  const ops = (method: string, path: string, body?: unknown) =>
    server.http.request(method, `/ops/v1${path}`, { headers: bearer(OPS_TOKEN), ...(body === undefined ? {} : { body }) });
  const created = async (response: Promise<HttpResponse>) => {
    const answer = await response;
    assert.ok(answer.status < 300, `operator call failed: ${answer.status} ${answer.text}`);
    return answer.json;
  };
  const corpus: TestCorpus = {
    ops,
    eventType: (roles = { party: 'NAMED_ENTITY', price: 'CURRENCY', closing: 'DATE' }, template = '{party} did something') =>
      created(
        ops('POST', '/event-types', { code_name: `type_${unique()}`, name: 'Test type', description: '', roles: roleList(roles), sentence_template: template }),
      ),
    outlet: async () => (await created(ops('POST', '/outlets', { name: `Outlet ${unique()}` }))).id,
    entity: async (name = `Entity ${unique()}`) => (await created(ops('POST', '/entities', { name, type: 'ORGANIZATION' }))).id,
    article: async (body) => (await created(ops('POST', '/articles', body))).incident_id,
    bulk: (lines) =>
      created(
        server.http.request('POST', '/ops/v1/articles/bulk', {
          headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/x-ndjson' },
          rawBody: lines.join('\n'),
        }),
      ),
    async articles(bodies) {
      const { results } = await corpus.bulk(bodies.map((body) => JSON.stringify(body)));
      assert.ok(
        results.every((result: { status: number }) => result.status === 201),
        JSON.stringify(results),
      );
      return results.map((result: { incident_id: string }) => result.incident_id);
    },
    async account(credits = 100, scopes = ['EVENTS_READ'], plan = 'standard', entitlements = {}) {
      const account = await created(ops('POST', '/accounts', { credit_balance: credits, plan, entitlements }));
      const key = await created(ops('POST', `/accounts/${account.id}/api-keys`, { name: 'test', scopes }));
      return { id: account.id, key: key.key };
    },
    balance: async (accountId) => (await created(ops('GET', `/accounts/${accountId}`))).credit_balance,
  };
  return corpus;
}

/** A server on the test clock with one event type (roles party, price, closing) and one outlet, for article tests. */
export async function startArticleServer(now = '2026-11-20T12:00:00.000Z') {
  const server = await startServer();
  const corpus = testCorpus(server);
  await server.ops.post('/clock', { now });
  return { server, corpus, type: await corpus.eventType(), outlet: await corpus.outlet() };
}
