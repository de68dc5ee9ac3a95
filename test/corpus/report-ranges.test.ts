// The pages a bulk load adds to `reports` are summarized in its BRIN indexes as they come
// (report-ranges.ts): copy detection reads the reports written lately through them, in every
// ingest, and an unsummarized page is read whatever a scan asks for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, unique } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { OPS_TOKEN, startIsolatedServer, type TestServer } from '../helpers/server.js';

describe('summaries of the new pages of reports', () => {
  let server: TestServer;
  before(async () => {
    // A database of its own: no other test's reports add pages meanwhile.
    server = await startIsolatedServer();
    await server.ops.post('/clock', { now: '2026-11-20T12:00:00.000Z' });
  });
  after(() => server.close());

  it('when a bulk request writes reports past the first range of pages, then none of the pages it added is left unsummarized, and nothing failed', async () => {
    const corpus = testCorpus(server);
    const [type, outlet, party] = [await corpus.eventType(), await corpus.outlet(), await corpus.entity()];
    // 6,000 reports: about 150 pages, past the first range of 128 (summarized, empty, when the index was made).
    const lines = Array.from({ length: 6_000 }, (_, i) =>
      JSON.stringify({
        outlet_id: outlet,
        event_type_id: type.id,
        published_at: '2026-11-20T08:00:00.000Z',
        roles: [{ role: 'party', entity_id: party }],
        url: `https://news.example/${unique()}`,
        text: `The council of ${unique()} met on day ${i} and said the bridge would open next spring.`,
      }),
    );
    const answer = await server.http.request('POST', '/ops/v1/articles/bulk', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/x-ndjson' },
      rawBody: lines.join('\n'),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.accepted, 6_000);
    const [size] = await server.runtime.db.query<{ pages: number }>(`SELECT (pg_relation_size('reports') / 8192)::int AS pages`);
    assert.ok(size!.pages > 128, `${size!.pages} pages`);
    const [left] = await server.runtime.db.query<{ seq: number; at: number }>(
      `SELECT brin_summarize_new_values('reports_received_seq_brin'::regclass)::int AS seq,
              brin_summarize_new_values('reports_received_at_brin'::regclass)::int AS at`,
    );
    assert.deepEqual(left, { seq: 0, at: 0 }, 'ranges the writer left unsummarized');
    assert.equal(server.logs.filter((line) => line.includes('summarizing the new pages of reports failed')).length, 0, server.logs.join(''));
  });
});
