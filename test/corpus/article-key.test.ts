// The article natural key (operations.md, 2026-11-25): an article whose outlet and url match
// a stored report is that report, answered 200 with it, and nothing is added or changed.
// Articles without a url are always new.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startArticleServer, type TestCorpus, unique } from '../helpers/corpus.js';
import type { TestServer } from '../helpers/server.js';

describe('article natural key', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let type: { id: string };
  let outlet: string;
  before(async () => {
    ({ server, corpus, type, outlet } = await startArticleServer());
  });
  after(() => server.close());

  const article = async (extra: Record<string, unknown> = {}) => ({
    outlet_id: outlet,
    event_type_id: type.id,
    published_at: '2026-11-20T08:00:00.000Z',
    roles: [{ role: 'party', entity_id: await corpus.entity() }],
    ...extra,
  });
  const post = (body: unknown) => corpus.ops('POST', '/articles', body);
  const reportsOf = async (eventId: string) => (await corpus.ops('GET', `/events/${eventId}`)).json.matched_report_count as number;

  it('when an article with the outlet and url of a stored report comes again, then 200 with that report and nothing changes, whatever else it says', async () => {
    const url = `https://news.example/${unique()}`;
    const body = await article({ url });
    const first = await post(body);
    assert.equal(first.status, 201, first.text);
    const again = await post(body);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json, first.json);
    // Another body under the same outlet and url is still that report.
    const changed = await post(await article({ url, published_at: '2026-11-19T08:00:00.000Z', headline: 'Other' }));
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.json, first.json);
    assert.equal(await reportsOf(first.json.incident_id), 1, 'nothing added');
    const event = (await corpus.ops('GET', `/events/${first.json.incident_id}`)).json;
    assert.equal(event.first_report_date, '2026-11-20T08:00:00.000Z', 'nothing changed');
  });

  it('when the same url comes from another outlet, or an article has no url, then each is a new report', async () => {
    const url = `https://news.example/${unique()}`;
    const body = await article({ url });
    assert.equal((await post(body)).status, 201);
    const elsewhere = await post({ ...body, outlet_id: await corpus.outlet() });
    assert.equal(elsewhere.status, 201, elsewhere.text);
    const noUrl = await article();
    const a = await post(noUrl);
    const b = await post(noUrl);
    assert.deepEqual([a.status, b.status], [201, 201]);
    assert.notEqual(a.json.id, b.json.id);
  });

  it('when one article is sent ten times at once, then it is stored once: one 201, nine 200 naming the same report', async () => {
    const body = await article({ url: `https://news.example/${unique()}` });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    assert.equal(new Set(answers.map((a) => a.json.id)).size, 1);
    assert.equal(await reportsOf(answers[0]!.json.incident_id), 1);
  });

  it('when the stored report is refused again for a bad body, then the body is judged first (400)', async () => {
    const url = `https://news.example/${unique()}`;
    assert.equal((await post(await article({ url }))).status, 201);
    const bad = await post({ ...(await article({ url })), colour: 'red' });
    assert.equal(bad.status, 400, bad.text);
  });
});
