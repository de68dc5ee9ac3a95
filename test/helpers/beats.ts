// Beats for tests: an entitled account, beats and entries through the public API.
import assert from 'node:assert/strict';
import { testCorpus, type TestCorpus } from './corpus.js';
import { bearer, type HttpResponse } from './http.js';
import { startIsolatedServer, type TestServer } from './server.js';

export const BEAT_SCOPES = ['BEATS_READ', 'BEATS_WRITE'];

export interface BeatsClient {
  call(method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  /** An account with the beats entitlement, this balance and plan, and a key with both beat scopes. */
  account(credits?: number, plan?: string): Promise<{ id: string; key: string }>;
  /** Creates a beat (201 asserted); answers it. */
  create(key: string, clauses: Record<string, unknown>[], extra?: Record<string, unknown>): Promise<any>;
  /** Reads entries (200 asserted). */
  entries(key: string, beatId: string, body: Record<string, unknown>): Promise<any>;
  /** Every entry from the oldest retained one, in poll order. */
  pollAll(key: string, beatId: string): Promise<any[]>;
  beat(key: string, beatId: string): Promise<any>;
  problem(response: HttpResponse, status: number, slug: string): void;
  /** Runs the background work due now (recording, backfill). */
  drain(): Promise<unknown>;
  setClock(now: string): Promise<unknown>;
}

export function beatsClient(server: Pick<TestServer, 'http' | 'docsUrl' | 'ops'>, corpus: TestCorpus): BeatsClient {
  const client: BeatsClient = {
    call: (method, path, key, body, headers = {}) =>
      server.http.request(method, `/v1${path}`, { headers: { ...bearer(key), ...headers }, ...(body === undefined ? {} : { body }) }),
    account: (credits = 100, plan = 'standard') => corpus.account(credits, BEAT_SCOPES, plan, { beats: true }),
    async create(key, clauses, extra = {}) {
      const created = await client.call('POST', '/beats', key, { name: 'Watch', clauses, ...extra });
      assert.equal(created.status, 201, created.text);
      return created.json;
    },
    async entries(key, beatId, body) {
      const read = await client.call('POST', `/beats/${beatId}/entries`, key, body);
      assert.equal(read.status, 200, read.text);
      return read.json;
    },
    async pollAll(key, beatId) {
      const all: any[] = [];
      let page = await client.entries(key, beatId, { since: '', limit: 50 });
      all.push(...page.data);
      while (page.next_cursor) {
        page = await client.entries(key, beatId, { cursor: page.next_cursor });
        all.push(...page.data);
      }
      return all;
    },
    async beat(key, beatId) {
      const read = await client.call('GET', `/beats/${beatId}`, key);
      assert.equal(read.status, 200, read.text);
      return read.json;
    },
    problem(response, status, slug) {
      assert.equal(response.status, status, response.text);
      assert.equal(response.json.type, `${server.docsUrl}/problems/${slug}`, response.text);
    },
    drain: () => server.ops.post('/drain'),
    setClock: (now) => server.ops.post('/clock', { now }),
  };
  return client;
}

/**
 * A test server for beats: its corpus, the beats client and one outlet, the clock set to `now`.
 * On PostgreSQL it has a schema of its own (dropped when it closes): an entry's `added_at` is
 * the clock of the process that records it, and a server of another test file sharing the
 * schema, its clock elsewhere, would otherwise claim the recording jobs of this one.
 */
export async function startBeatsServer(now: string) {
  const server = await startIsolatedServer();
  const corpus = testCorpus(server);
  const beats = beatsClient(server, corpus);
  await beats.setClock(now);
  return { server, corpus, beats, outlet: await corpus.outlet() };
}
