import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadEventViews } from '../../src/modules/corpus/event-view.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const hoursAgo = (hours: number, from = NOW) => new Date(Date.parse(from) - hours * 3_600_000).toISOString();
const SEARCH_EVENT_FIELDS = [
  'object',
  'id',
  'event_type',
  'sentence',
  'happened_at',
  'first_report_date',
  'last_report_date',
  'matched_report_count',
  'distinct_outlet_count',
  'independent_source_count',
  'involved_entities',
].sort();

/** Search order: first_report_date newest first, ties by id descending (uuid byte order). */
const searchOrder = (a: { first_report_date: string; id: string }, b: { first_report_date: string; id: string }) =>
  b.first_report_date.localeCompare(a.first_report_date) || b.id.localeCompare(a.id);

describe('event search', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let outlet: string;
  const search = (key: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> =>
    server.http.request('POST', '/v1/events/search', { headers: { ...bearer(key), ...headers }, body });

  /** Events of a new type, one per report date given, each on its own participant. */
  async function eventsAt(dates: string[], type?: { id: string; code_name: string }) {
    const eventType = type ?? (await corpus.eventType());
    const ids: string[] = [];
    for (const published_at of dates) {
      ids.push(
        await corpus.article({
          outlet_id: outlet,
          event_type_id: eventType.id,
          published_at,
          received_at: published_at,
          roles: [{ role: 'party', entity_id: await corpus.entity() }],
        }),
      );
    }
    return { type: eventType, ids };
  }

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
    outlet = await corpus.outlet();
  });
  after(() => server.close());

  it('when a search executes, then it charges once and answers search events in order, every field present, continuations free', async () => {
    const { type, ids } = await eventsAt([hoursAgo(5), hoursAgo(1), hoursAgo(3), hoursAgo(3), hoursAgo(2)]);
    const account = await corpus.account(10);
    const first = await search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 2 });
    assert.equal(first.status, 200, first.text);
    assert.equal(await corpus.balance(account.id), 9, 'charged search_credit_cost once');
    assert.equal(first.json.object, 'search_result');
    assert.equal(first.json.total_count, 5);
    assert.equal(first.json.has_more, true);
    assert.equal(typeof first.json.next_cursor, 'string');
    assert.deepEqual(Object.keys(first.json.data[0]).sort(), SEARCH_EVENT_FIELDS);
    assert.deepEqual(first.json.data[0].event_type, { code_name: type.code_name });
    assert.equal(first.json.data[0].happened_at, null, 'nullable fields are explicit nulls');
    assert.equal(first.json.data[0].matched_report_count, 1);
    assert.equal(first.json.data[0].involved_entities.length, 1);

    const pages = [first.json];
    while (pages.at(-1).has_more) {
      const next = await search(account.key, { cursor: pages.at(-1).next_cursor });
      assert.equal(next.status, 200, next.text);
      assert.equal(next.json.execution_id, first.json.execution_id);
      assert.equal(next.json.total_count, 5);
      pages.push(next.json);
    }
    assert.deepEqual(
      pages.map((p) => p.data.length),
      [2, 2, 1],
      "the cursor keeps the first call's limit",
    );
    assert.equal(pages.at(-1).next_cursor, null);
    const seen = pages.flatMap((p) => p.data);
    assert.deepEqual(
      seen.map((e) => e.id),
      [...seen].sort(searchOrder).map((e) => e.id),
    );
    assert.deepEqual(new Set(seen.map((e) => e.id)), new Set(ids));
    assert.equal(await corpus.balance(account.id), 9, 'continuations are not charged');
  });

  it('when the lookback is short, then events first reported before it are left out even if reported again since', async () => {
    const { type, ids } = await eventsAt([hoursAgo(10 * 24), hoursAgo(2 * 24)]);
    const [old] = ids;
    await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: type.id,
      incident_id: old,
      published_at: hoursAgo(1),
      received_at: hoursAgo(1),
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    const account = await corpus.account(10);
    const week = await search(account.key, { lookback_days: 7, event_type_id: type.id });
    assert.deepEqual(
      week.json.data.map((e: { id: string }) => e.id),
      [ids[1]],
    );
    assert.equal(week.json.total_count, 1);
    const month = await search(account.key, { lookback_days: 30, event_type_id: type.id });
    assert.deepEqual(
      month.json.data.map((e: { id: string }) => e.id),
      [ids[1], old],
    );
    assert.equal(month.json.data[1].last_report_date, hoursAgo(1), "last_report_date is the latest report's publish time");
  });

  it('when reports arrive after the execution, then later pages show current dates but counts cut off at the execution', async () => {
    const { type, ids } = await eventsAt([hoursAgo(1), hoursAgo(4)]);
    const account = await corpus.account(10);
    const first = await search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 1 });
    assert.deepEqual(
      first.json.data.map((e: { id: string }) => e.id),
      [ids[0]],
    );
    // The clock stands still: these arrive after the search at the very instant it ran.
    // A second outlet reports the older event, with an earlier publish time.
    await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: type.id,
      incident_id: ids[1],
      published_at: hoursAgo(6),
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    // An event whose only report arrived after the search was not known to it.
    await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      published_at: hoursAgo(5),
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    const second = await search(account.key, { cursor: first.json.next_cursor, limit: 10 });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      second.json.data.map((e: { id: string }) => e.id),
      [ids[1]],
    );
    const [event] = second.json.data;
    assert.equal(event.first_report_date, hoursAgo(6), 'dates reflect the event as currently known');
    assert.equal(event.matched_report_count, 1, 'counts cut off at the execution');
    assert.equal(event.distinct_outlet_count, 1);
    assert.equal(second.json.total_count, 2);
  });

  it('when events are merged away or deleted after the execution, then later pages omit them', async () => {
    const type = await corpus.eventType();
    const { ids } = await eventsAt([hoursAgo(1), hoursAgo(2), hoursAgo(3)], type);
    // A fourth event of the same type, on another participant and 4 hours old.
    const [fourth] = (await eventsAt([hoursAgo(4)], type)).ids;
    const account = await corpus.account(10);
    const first = await search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 1 });
    assert.equal(first.json.total_count, 4);
    assert.equal((await corpus.ops('DELETE', `/events/${ids[1]}`)).status, 204);
    assert.equal((await corpus.ops('POST', `/events/${fourth}/merge`, { into_event_id: ids[2] })).status, 200);
    const rest = await search(account.key, { cursor: first.json.next_cursor, limit: 50 });
    assert.deepEqual(
      rest.json.data.map((e: { id: string }) => e.id),
      [ids[2]],
    );
    assert.equal(rest.json.data[0].matched_report_count, 2, 'the survivor counts the merged reports received before the execution');
    assert.equal(rest.json.total_count, 4, 'total_count was computed once, at execution');
    assert.equal(rest.json.has_more, false);
    // A page read just before the merge shows the merged-away event as its reports now leave it: none, from no source.
    const [execution] = await server.runtime.db.query<{ report_seq: number }>('SELECT report_seq FROM search_executions WHERE id = $1', [
      first.json.execution_id,
    ]);
    const [gone] = await loadEventViews(server.runtime.db, [fourth!], { seq: Number(execution!.report_seq) });
    assert.deepEqual([gone!.matched_report_count, gone!.distinct_outlet_count], [0, 0]);
  });

  it('when a plan caps results per execution, then paging stops at the cap while total_count says more', async () => {
    const plan = `capped_${unique()}`;
    await corpus.ops('PUT', `/plans/${plan}`, { ...STANDARD_PLAN_FIELDS, search_max_results: 3, search_credit_cost: 2 });
    const { type } = await eventsAt([hoursAgo(1), hoursAgo(2), hoursAgo(3), hoursAgo(4), hoursAgo(5)]);
    const account = await corpus.account(10, ['EVENTS_READ'], plan);
    const first = await search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 2 });
    assert.equal(await corpus.balance(account.id), 8, "the plan's search_credit_cost");
    assert.equal(first.json.has_more, true);
    const second = await search(account.key, { cursor: first.json.next_cursor });
    assert.equal(second.json.data.length, 1);
    assert.equal(second.json.has_more, false);
    assert.equal(second.json.next_cursor, null);
    assert.equal(second.json.total_count, 5);
  });

  it('when the balance cannot cover a search, then 402 and nothing is charged', async () => {
    const account = await corpus.account(0);
    const refused = await search(account.key, { lookback_days: 7 });
    assert.equal(refused.status, 402);
    assert.equal(refused.json.type, `${server.docsUrl}/problems/insufficient-credits`);
    assert.equal(await corpus.balance(account.id), 0);
    assert.equal((await corpus.ops('GET', `/accounts/${account.id}`)).json.credit_balance, 0);
  });

  it('when more searches arrive at once than the balance covers, then exactly as many as it covers are charged and recorded, the rest 402', async () => {
    const { type } = await eventsAt([hoursAgo(2), hoursAgo(1)]);
    const account = await corpus.account(3, ['EVENTS_READ']);
    const answers = await Promise.all(Array.from({ length: 8 }, () => search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 1 })));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 402, 402, 402, 402, 402], answers.map((answer) => answer.text).join('\n'));
    assert.equal(await corpus.balance(account.id), 0);
    const ledger = await server.http.get('/v1/account/credit-transactions', bearer(account.key));
    const charges = (ledger.json.data as { kind: string; amount: number; balance_after: number; execution_id: string }[]).filter(
      (row) => row.kind === 'SEARCH',
    );
    assert.deepEqual(charges.map((row) => [row.amount, row.balance_after]).sort(), [
      [-1, 0],
      [-1, 1],
      [-1, 2],
    ]);
    const executed = answers.filter((answer) => answer.status === 200).map((answer) => answer.json.execution_id);
    assert.deepEqual(new Set(charges.map((row) => row.execution_id)), new Set(executed));
    for (const answer of answers.filter((a) => a.status === 200)) {
      const next = await search(account.key, { cursor: answer.json.next_cursor });
      assert.equal(next.status, 200, `the execution was recorded with its charge: ${next.text}`);
      assert.equal(next.json.execution_id, answer.json.execution_id);
      assert.equal(next.json.total_count, 2);
    }
  });

  it('when a request breaks a rule, then 400 validation-failed naming the field, and nothing is charged', async () => {
    const account = await corpus.account(10);
    const other = await corpus.account(10);
    const theirs = (await corpus.ops('POST', '/entity-lists', { name: 'theirs', owner_account_id: other.id, entity_ids: [] })).json.id;
    const type = await corpus.eventType();
    const cases: [unknown, string][] = [
      [{}, '/lookback_days'],
      [{ lookback_days: 8 }, '/lookback_days'],
      [{ lookback_days: 7, limit: 51 }, '/limit'],
      [{ lookback_days: 7, limit: 0 }, '/limit'],
      [{ lookback_days: 7, min_reports: 101 }, '/min_reports'],
      [{ lookback_days: 7, surprise: true }, '/surprise'],
      [{ lookback_days: 7, incident_template_id: type.id }, '/incident_template_id'],
      [{ lookback_days: 7, involved_entity_ids: Array.from({ length: 501 }, () => crypto.randomUUID()) }, '/involved_entity_ids'],
      [{ lookback_days: 7, required_source_news_outlet_ids: Array.from({ length: 201 }, () => crypto.randomUUID()) }, '/required_source_news_outlet_ids'],
      [{ lookback_days: 7, involved_entity_list_ids: [theirs] }, '/involved_entity_list_ids/0'],
      [{ lookback_days: 7, involved_entity_list_ids: [crypto.randomUUID()] }, '/involved_entity_list_ids/0'],
      [{ lookback_days: 7, role_filters: [{ kind: 'entity_in', role_code_name: 'party', entity_list_ids: [theirs] }] }, '/role_filters/0/entity_list_ids/0'],
      [{ lookback_days: 7, role_filters: [{ kind: 'amount_above', role_code_name: 'price', min_value: 1 }] }, '/role_filters/0/kind'],
      [{ lookback_days: 7, role_filters: [{ kind: 'amount_gte', role_code_name: 'price' }] }, '/role_filters/0/min_value'],
      [{ lookback_days: 7, role_filters: [{ kind: 'date_after', role_code_name: 'closing', after_iso: 'yesterday' }] }, '/role_filters/0/after_iso'],
      [{ lookback_days: 7, role_filters: Array.from({ length: 11 }, () => ({ kind: 'amount_gte', role_code_name: 'price', min_value: 1 })) }, '/role_filters'],
      [{ lookback_days: 7, event_type_id: crypto.randomUUID() }, '/event_type_id'],
      [
        { lookback_days: 7, event_type_id: type.id, role_filters: [{ kind: 'amount_gte', role_code_name: 'nope', min_value: 1 }] },
        '/role_filters/0/role_code_name',
      ],
      [{ cursor: 'abc', lookback_days: 7 }, '/lookback_days'],
      [{ cursor: 'abc', event_type_id: null }, '/event_type_id'],
      [{ cursor: 'not-a-cursor' }, '/cursor'],
    ];
    for (const [body, pointer] of cases) {
      const response = await search(account.key, body);
      assert.equal(response.status, 400, `${JSON.stringify(body).slice(0, 120)}: ${response.text}`);
      assert.equal(response.json.type, `${server.docsUrl}/problems/validation-failed`);
      assert.ok(
        response.json.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${pointer} in ${JSON.stringify(response.json.errors)}`,
      );
    }
    assert.equal(await corpus.balance(account.id), 10);
  });

  it('when a cursor is altered, foreign, expired or from before 2026-09-14, then 400, 404, 410 or a free restart', async () => {
    const { type, ids } = await eventsAt([hoursAgo(1), hoursAgo(2), hoursAgo(3)]);
    const account = await corpus.account(10);
    const first = await search(account.key, { lookback_days: 7, event_type_id: type.id, limit: 1 });
    const cursor: string = first.json.next_cursor;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    const altered = await search(account.key, { cursor: flipped });
    assert.equal(altered.status, 400);
    assert.equal(altered.json.type, `${server.docsUrl}/problems/validation-failed`);
    assert.deepEqual(
      altered.json.errors.map((e: { pointer: string }) => e.pointer),
      ['/cursor'],
    );

    const stranger = await corpus.account(10);
    const foreign = await search(stranger.key, { cursor });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.json.type, `${server.docsUrl}/problems/not-found`);

    const sibling = await corpus.ops('POST', `/accounts/${account.id}/api-keys`, { name: 'second', scopes: ['EVENTS_READ'] });
    const bySibling = await search(sibling.json.key, { cursor });
    assert.equal(bySibling.status, 200, 'any key of the account may continue');
    assert.deepEqual(
      bySibling.json.data.map((e: { id: string }) => e.id),
      [ids[1]],
    );

    await server.ops.post('/clock', { advance_seconds: 86_400 });
    const expired = await search(account.key, { cursor });
    assert.equal(expired.status, 410);
    assert.equal(expired.json.type, `${server.docsUrl}/problems/search-execution-expired`);
    await server.ops.post('/clock', { now: NOW });

    // A cursor issued before the 2026-09-14 change restarts its execution at page one, free.
    const before = '2026-09-13T23:00:00.000Z';
    await server.ops.post('/clock', { now: before });
    const old = await eventsAt([hoursAgo(1, before), hoursAgo(2, before)]);
    const oldFirst = await search(account.key, { lookback_days: 7, event_type_id: old.type.id, limit: 1 });
    assert.deepEqual(
      oldFirst.json.data.map((e: { id: string }) => e.id),
      [old.ids[0]],
    );
    const balance = await corpus.balance(account.id);
    await server.ops.post('/clock', { now: '2026-09-14T01:00:00.000Z' });
    const restarted = await search(account.key, { cursor: oldFirst.json.next_cursor });
    assert.equal(restarted.status, 200, restarted.text);
    assert.equal(restarted.json.execution_id, oldFirst.json.execution_id);
    assert.deepEqual(
      restarted.json.data.map((e: { id: string }) => e.id),
      [old.ids[0]],
      'page one again',
    );
    assert.equal(await corpus.balance(account.id), balance, 'not charged');
    const onward = await search(account.key, { cursor: restarted.json.next_cursor });
    assert.deepEqual(
      onward.json.data.map((e: { id: string }) => e.id),
      [old.ids[1]],
      'a cursor issued after the change pages on',
    );
    await server.ops.post('/clock', { advance_seconds: 86_400 });
    assert.equal((await search(account.key, { cursor: oldFirst.json.next_cursor })).status, 410, 'past retention, even before the change');
    await server.ops.post('/clock', { now: NOW });
  });
});
