// Structured reporting for tests: reporting accounts, event types that take reports, grants
// through the operator API, and filing through the public API.
import assert from 'node:assert/strict';
import { testCorpus, unique, type TestCorpus } from './corpus.js';
import { roleList } from './fixtures.js';
import { bearer, type HttpResponse } from './http.js';
import { startServer, type TestServer } from './server.js';

export const REPORT_SCOPES = ['REPORTS_READ', 'REPORTS_WRITE'];

export interface ReportingAccountOptions {
  display_name?: string | null;
  kind?: 'INDIVIDUAL' | 'ORGANIZATION';
  entitlements?: Record<string, boolean>;
  scopes?: string[];
}

export interface ReportingClient {
  call(method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  /** An account (by default named, with both reporting entitlements) and a key with both report scopes. */
  account(options?: ReportingAccountOptions): Promise<{ id: string; key: string; keyId: string }>;
  /** A grant through the operator API (201 asserted). */
  grant(body: {
    account_id: string;
    event_type_id: string;
    pins?: { role: string; allowed_entity_ids: string[] }[];
    label?: string;
    expires_at?: string;
  }): Promise<any>;
  /** Files a report; answers the response. */
  file(key: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Files a report (201 asserted), runs processing, and answers the processed report. */
  fileProcessed(key: string, body: Record<string, unknown>): Promise<any>;
  problem(response: HttpResponse, status: number, slug: string, code?: string): void;
  drain(): Promise<unknown>;
  setClock(now: string): Promise<unknown>;
}

export function reportingClient(server: Pick<TestServer, 'http' | 'docsUrl' | 'ops'>, corpus: TestCorpus): ReportingClient {
  const client: ReportingClient = {
    call: (method, path, key, body, headers = {}) =>
      server.http.request(method, `/v1${path}`, { headers: { ...bearer(key), ...headers }, ...(body === undefined ? {} : { body }) }),
    async account(options = {}) {
      // A key with REPORTS_WRITE needs a reporting entitlement when it is made; the account's
      // own entitlements are set afterwards (they may be taken away from a key's owner).
      const created = await corpus.ops('POST', '/accounts', {
        display_name: options.display_name === undefined ? `Reporter ${unique()}` : options.display_name,
        kind: options.kind ?? 'INDIVIDUAL',
        entitlements: { structured_reporting: true, entity_reporting: true },
      });
      assert.equal(created.status, 201, created.text);
      const key = await corpus.ops('POST', `/accounts/${created.json.id}/api-keys`, { name: 'reporting', scopes: options.scopes ?? REPORT_SCOPES });
      assert.equal(key.status, 201, key.text);
      if (options.entitlements) {
        const patched = await corpus.ops('PATCH', `/accounts/${created.json.id}`, {
          entitlements: { structured_reporting: false, entity_reporting: false, beats: false, ...options.entitlements },
        });
        assert.equal(patched.status, 200, patched.text);
      }
      return { id: created.json.id, key: key.json.key, keyId: key.json.id };
    },
    async grant(body) {
      const created = await corpus.ops('POST', '/reporting-grants', {
        label: `Grant ${unique()}`,
        expires_at: '2027-12-31T00:00:00.000Z',
        pins: [],
        ...body,
      });
      assert.equal(created.status, 201, created.text);
      return created.json;
    },
    file: (key, body, headers) => client.call('POST', '/reports', key, body, headers),
    async fileProcessed(key, body) {
      const filed = await client.file(key, body);
      assert.equal(filed.status, 201, filed.text);
      await client.drain();
      const read = await client.call('GET', `/reports/${filed.json.id}`, key);
      assert.equal(read.status, 200, read.text);
      assert.ok(read.json.incident_id, 'processed');
      return read.json;
    },
    problem(response, status, slug, code) {
      assert.equal(response.status, status, response.text);
      assert.equal(response.json.type, `${server.docsUrl}/problems/${slug}`, response.text);
      if (code !== undefined) assert.equal(response.json.code, code, response.text);
    },
    drain: () => server.ops.post('/drain'),
    setClock: (now) => server.ops.post('/clock', { now }),
  };
  return client;
}

/** An event type that takes reports: an acquirer and a target (entities), a price, a closing date. */
export async function dealType(corpus: TestCorpus, extraRoles: Record<string, string | null> = {}) {
  const created = await corpus.ops('POST', '/event-types', {
    code_name: `deal_${unique()}`,
    name: 'Deal',
    description: 'One company agrees to buy another.',
    roles: roleList({ acquirer: 'NAMED_ENTITY', target: 'NAMED_ENTITY', price: 'CURRENCY', closing: 'DATE', ...extraRoles }),
    sentence_template: '{acquirer} agreed to acquire {target}',
  });
  assert.equal(created.status, 201, created.text);
  return created.json as { id: string; code_name: string; roles: { id: string; code_name: string; name: string; expected_type: string | null }[] };
}

/** A test server for reporting, the clock set to `now`. */
export async function startReportingServer(now: string) {
  const server = await startServer();
  const corpus = testCorpus(server);
  const reporting = reportingClient(server, corpus);
  await reporting.setClock(now);
  return { server, corpus, reporting };
}
