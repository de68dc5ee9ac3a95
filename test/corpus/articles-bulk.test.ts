// POST /ops/v1/articles/bulk (operations.md, 2026-11-25): NDJSON of single-article bodies,
// answered line by line; the valid lines written together, the others refused with the problem
// the single call would answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startArticleServer, type TestCorpus, unique } from '../helpers/corpus.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { OPS_TOKEN, type TestServer } from '../helpers/server.js';

describe('bulk article ingest', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let type: { id: string };
  let outlet: string;
  before(async () => {
    ({ server, corpus, type, outlet } = await startArticleServer());
  });
  after(() => server.close());

  const bulk = (body: string, contentType = 'application/x-ndjson', token = OPS_TOKEN): Promise<HttpResponse> =>
    server.http.request('POST', '/ops/v1/articles/bulk', { headers: { ...bearer(token), 'content-type': contentType }, rawBody: body });
  const article = async (extra: Record<string, unknown> = {}) => ({
    outlet_id: outlet,
    event_type_id: type.id,
    published_at: '2026-11-20T08:00:00.000Z',
    roles: [{ role: 'party', entity_id: await corpus.entity() }],
    url: `https://news.example/${unique()}`,
    ...extra,
  });
  const withoutRequestId = ({ request_id: _id, ...problem }: Record<string, unknown>) => problem;

  it('when lines are good, bad and already stored, then each gets its own answer in order, and the good ones are stored', async () => {
    const stored = await article();
    const single = await corpus.ops('POST', '/articles', stored);
    assert.equal(single.status, 201, single.text);
    const good = await article();
    const unknownRole = { ...(await article()), roles: [{ role: 'nobody', entity_id: await corpus.entity() }] };
    const lines = [
      JSON.stringify(good),
      '{"not json',
      JSON.stringify({ ...(await article()), colour: 'red' }),
      '',
      JSON.stringify(unknownRole),
      JSON.stringify(stored),
      '   ',
    ];
    const answer = await bulk(lines.join('\n'));
    assert.equal(answer.status, 200, answer.text);
    const { object, accepted, existing, refused, results } = answer.json;
    assert.deepEqual([object, accepted, existing, refused], ['article_bulk_result', 1, 1, 3]);
    assert.deepEqual(
      results.map((r: any) => [r.line, r.status]),
      [
        [1, 201],
        [2, 400],
        [3, 400],
        [5, 400],
        [6, 200],
      ],
      'one item per non-blank line, numbered over every line',
    );
    assert.deepEqual({ id: results[4].id, incident_id: results[4].incident_id }, { id: single.json.id, incident_id: single.json.incident_id });
    const event = await corpus.ops('GET', `/events/${results[0].incident_id}`);
    assert.equal(event.status, 200, 'the good line is stored');

    // Each refusal is the single call's problem (but for its request id).
    const invalidJson = await server.http.request('POST', '/ops/v1/articles', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/json' },
      rawBody: '{"not json',
    });
    const singles = [invalidJson, await corpus.ops('POST', '/articles', JSON.parse(lines[2]!)), await corpus.ops('POST', '/articles', unknownRole)];
    for (const [i, expected] of singles.entries()) {
      assert.equal(expected.status, 400, expected.text);
      assert.deepEqual(withoutRequestId(results[i + 1].problem), withoutRequestId(expected.json));
      assert.equal(results[i + 1].problem.request_id, answer.headers['x-request-id']);
    }
  });

  it('when a line starts with a byte-order mark, holds a number no double holds, or a url of 2,000 multi-byte characters, then it is judged as the single call judges it', async () => {
    const bom = `\uFEFF${JSON.stringify(await article())}`;
    const huge = JSON.stringify(await article({ roles: [{ role: 'price', amount: { value: 1, unit: 'USD' } }] })).replace('"value":1', '"value":1e309');
    // Random CJK characters (3 bytes each), which no compression shrinks below an index entry's 2,704 bytes.
    const cjk = String.fromCodePoint(...Array.from({ length: 1_960 }, () => 0x4e00 + Math.floor(Math.random() * 0x5000)));
    const longUrl = await article({ url: `https://news.example/${cjk}${unique()}` });
    const answer = await bulk([bom, huge, JSON.stringify(longUrl), JSON.stringify(longUrl)].join('\n'));
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.json.results.map((r: any) => r.status),
      [201, 400, 201, 200],
    );
    const single = await server.http.request('POST', '/ops/v1/articles', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/json' },
      rawBody: huge,
    });
    assert.deepEqual(withoutRequestId(answer.json.results[1].problem), withoutRequestId(single.json));
    const longSingle = await corpus.ops('POST', '/articles', longUrl);
    assert.deepEqual([longSingle.status, longSingle.json.id], [200, answer.json.results[2].id]);
  });

  it("when text holds the characters COPY's text format escapes, then it is stored exactly as sent", async () => {
    const headline = 'tab\there, line\nbreak, return\r, back\\slash, \\N, \\., and \\t spelled out';
    const url = `https://news.example/${unique()}?q=a\\b\tc`;
    const sent = await article({ headline, url });
    const answer = await bulk(JSON.stringify(sent));
    assert.equal(answer.status, 200, answer.text);
    const [{ id, status }] = answer.json.results;
    assert.equal(status, 201);
    const [stored] = await server.runtime.db.query<{ headline: string; url: string }>('SELECT headline, url FROM reports WHERE id = $1', [id]);
    assert.deepEqual(stored, { headline, url });

    // A new event's row is copied too: its sentence holds the party's name as it was given.
    const name = `Tab\there ${unique()}, line\nbreak, back\\slash \\N \\.`;
    const opened = await bulk(JSON.stringify(await article({ roles: [{ role: 'party', entity_id: await corpus.entity(name) }] })));
    const [{ incident_id }] = opened.json.results;
    const [event] = await server.runtime.db.query<{ sentence: string }>('SELECT sentence FROM events WHERE id = $1', [incident_id]);
    assert.equal(event!.sentence, `${name} did something`);
  });

  it("when the database refuses one line's value, then that line gets the single call's 400 and the others are stored, clustered as they would be alone", async () => {
    const party = await corpus.entity();
    const first = await article({ roles: [{ role: 'party', entity_id: party }] });
    const refused = await article({ headline: 'nul \u0000 byte' });
    const second = await article({ roles: [{ role: 'party', entity_id: party }], published_at: '2026-11-20T09:00:00.000Z' });
    const answer = await bulk([first, refused, second].map((line) => JSON.stringify(line)).join('\n'));
    assert.equal(answer.status, 200, answer.text);
    const [one, two, three] = answer.json.results;
    assert.deepEqual([one.status, two.status, three.status], [201, 400, 201]);
    const single = await corpus.ops('POST', '/articles', refused);
    assert.equal(single.status, 400, single.text);
    assert.deepEqual(withoutRequestId(two.problem), withoutRequestId(single.json));
    assert.equal(three.incident_id, one.incident_id, 'the good lines still cluster together');
    assert.equal((await corpus.ops('GET', `/events/${one.incident_id}`)).json.matched_report_count, 2);
  });

  it('when one article comes twice in a request, then it is stored once: 201, then 200 naming it', async () => {
    const line = JSON.stringify(await article());
    const answer = await bulk(`${line}\r\n${line}\r\n`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.json.results.map((r: any) => r.status),
      [201, 200],
    );
    assert.equal(answer.json.results[1].id, answer.json.results[0].id);
    assert.equal((await corpus.ops('GET', `/events/${answer.json.results[0].incident_id}`)).json.matched_report_count, 1);
  });

  it('when a batch is large enough to be checked in worker threads, then every line is judged, numbered and copied as in a small one', async () => {
    const party = await corpus.entity();
    // A text of about 3,000 characters, and words of its own per run: a copy of nothing stored.
    const tag = unique().replace(/[^a-z0-9]/gi, '');
    const words = 'the council said on monday that the new bridge across the river would open next spring after years of delay'.split(' ');
    const text = Array.from({ length: 6 }, (_, p) =>
      Array.from({ length: 80 }, (_, i) => `${words[(i * 7 + p) % words.length]}${tag}${p}x${i}`).join(' '),
    ).join('\n\n');
    const bad = ['{"not json', JSON.stringify({ ...(await article()), colour: 'red' })];
    const small = await bulk(bad.join('\n'));
    assert.equal(small.status, 200, small.text);
    // 1,200 lines over 256 KiB: slices of 500 lines, refusals and blank lines in the second and third, a text and its copy in different slices.
    const lines: string[] = [];
    for (let i = 0; i < 1_200; i++) lines.push(JSON.stringify(await article({ roles: [{ role: 'party', entity_id: party }] })));
    lines[3] = JSON.stringify(await article({ roles: [{ role: 'party', entity_id: party }], text }));
    lines[1_100] = JSON.stringify(await article({ roles: [{ role: 'party', entity_id: party }], text: text.toUpperCase() }));
    lines[600] = bad[0]!;
    lines[1_001] = bad[1]!;
    lines[700] = '';
    const body = lines.join('\n');
    assert.ok(body.length > 256 * 1024, `${body.length} characters`);
    const answer = await bulk(body);
    assert.equal(answer.status, 200, answer.text);
    const { accepted, refused, results } = answer.json;
    assert.deepEqual([accepted, refused, results.length], [1_197, 2, 1_199]);
    const at = (line: number) => results.find((r: any) => r.line === line);
    assert.equal(at(701), undefined, 'a blank line gets no item');
    assert.deepEqual(withoutRequestId(at(601).problem), withoutRequestId(small.json.results[0].problem));
    assert.deepEqual(withoutRequestId(at(1_002).problem), withoutRequestId(small.json.results[1].problem));
    assert.deepEqual([at(4).copy_of_report_id, at(1_101).copy_of_report_id], [null, at(4).id]);
  });

  it('when the body is JSON, or NDJSON goes to the single call, then 415; without the operator token, 401', async () => {
    const line = JSON.stringify(await article());
    const json = await bulk(line, 'application/json');
    assert.equal(json.status, 415, json.text);
    assert.match(json.json.detail, /application\/x-ndjson/);
    const ndjsonSingle = await server.http.request('POST', '/ops/v1/articles', {
      headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/x-ndjson' },
      rawBody: line,
    });
    assert.equal(ndjsonSingle.status, 415, ndjsonSingle.text);
    assert.equal((await bulk(line, 'application/x-ndjson', 'wrong-token-0123456789')).status, 401);
    const empty = await bulk('');
    assert.deepEqual([empty.status, empty.json.results], [200, []]);
  });

  it('when a request holds more than 10,000 lines or 16 MiB, then it is refused whole and nothing is stored', async () => {
    const line = JSON.stringify(await article());
    const tooMany = await bulk(`${line}\n${'{}\n'.repeat(10_000)}`);
    assert.equal(tooMany.status, 400, tooMany.text);
    assert.match(tooMany.json.detail, /at most 10000 lines/);
    const tooBig = await bulk(`${line}\n${' '.repeat(16 * 1024 * 1024)}`);
    assert.equal(tooBig.status, 413, tooBig.text);
    const again = await bulk(line);
    assert.equal(again.json.results[0].status, 201, 'the refused requests stored nothing');
  });
});
