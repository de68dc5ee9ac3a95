import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBeatsServer, type BeatsClient } from '../helpers/beats.js';
import type { TestCorpus } from '../helpers/corpus.js';
import type { TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('beat entries reads', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let beats: BeatsClient;
  let outlet: string;

  before(async () => ({ server, corpus, beats, outlet } = await startBeatsServer(NOW)));
  after(() => server.close());

  const article = async (typeId: string, happenedAt: string | null = null) =>
    corpus.article({ outlet_id: outlet, event_type_id: typeId, happened_at: happenedAt, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
  const pointers = (response: { json: any }) => (response.json.errors as { pointer: string }[]).map((e) => e.pointer);

  /** A beat on a fresh event type, with one entry per `happened_at` given, recorded at the current clock. */
  async function beatWith(happened: (string | null)[]) {
    const account = await beats.account(1000);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    const events: string[] = [];
    for (const at of happened) events.push(await article(type.id, at));
    await beats.drain();
    return { key: account.key, beat, events, type };
  }

  it('when many entries are recorded in one instant, then polling with limit 1 walks them all exactly once, by poll_since and by next_cursor alike', async () => {
    await beats.setClock(NOW);
    const { key, beat, events } = await beatWith([null, null, null, null, null]);
    const all = await beats.pollAll(key, beat.id);
    assert.equal(all.length, 5);
    assert.ok(
      all.every((e) => e.added_at === NOW),
      'one instant',
    );
    assert.deepEqual(new Set(all.map((e) => e.event.id)), new Set(events));

    const byPollSince: string[] = [];
    let since = '';
    for (let i = 0; i < 7; i++) {
      const page = await beats.entries(key, beat.id, { since, limit: 1 });
      assert.equal(page.object, 'beat_entries');
      assert.equal(page.total_count, null);
      assert.equal(typeof page.poll_since, 'string');
      byPollSince.push(...page.data.map((e: any) => e.id));
      if (page.data.length === 0) assert.equal(page.poll_since, since, 'nothing new: poll_since comes back unchanged');
      since = page.poll_since;
    }
    assert.deepEqual(
      byPollSince,
      all.map((e) => e.id),
    );

    const byCursor: string[] = [];
    let page = await beats.entries(key, beat.id, { since: '', limit: 1 });
    byCursor.push(...page.data.map((e: any) => e.id));
    while (page.next_cursor) {
      assert.equal(page.has_more, true);
      page = await beats.entries(key, beat.id, { cursor: page.next_cursor });
      assert.equal(typeof page.poll_since, 'string', 'every poll page carries poll_since');
      byCursor.push(...page.data.map((e: any) => e.id));
    }
    assert.equal(page.has_more, false);
    assert.deepEqual(
      byCursor,
      all.map((e) => e.id),
    );

    const upper = await beats.entries(key, beat.id.toUpperCase(), { since: '', limit: 1 });
    assert.equal((await beats.entries(key, beat.id, { cursor: upper.next_cursor })).data.length, 1, 'tokens bind the beat, not the spelling of its id');

    const later = await article((await beats.beat(key, beat.id)).clauses[0].event_type_id);
    await beats.drain();
    const fresh = await beats.entries(key, beat.id, { since });
    assert.deepEqual(
      fresh.data.map((e: any) => e.event.id),
      [later],
      'the saved poll_since picks up what came since',
    );
  });

  it('when a window is read, then from is inclusive, until exclusive, on occurred_at by default, newest first, with an exact total_count, paged by cursor', async () => {
    await beats.setClock(NOW);
    const { key, beat } = await beatWith(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05']);
    const page1 = await beats.entries(key, beat.id, { from: '2026-11-02T00:00:00Z', until: '2026-11-05T00:00:00+00:00', limit: 2 });
    assert.equal(page1.total_count, 3);
    assert.equal(page1.poll_since, null);
    assert.deepEqual(
      page1.data.map((e: any) => e.occurred_at),
      ['2026-11-04T00:00:00.000Z', '2026-11-03T00:00:00.000Z'],
    );
    assert.equal(page1.has_more, true);
    const page2 = await beats.entries(key, beat.id, { cursor: page1.next_cursor });
    assert.deepEqual(
      page2.data.map((e: any) => e.occurred_at),
      ['2026-11-02T00:00:00.000Z'],
    );
    assert.equal(page2.has_more, false);
    assert.equal(page2.next_cursor, null);
    assert.equal(page2.total_count, 3);
    const offset = await beats.entries(key, beat.id, { from: '2026-11-04T01:00:00+02:00', until: '2026-11-04T23:00:00-01:00' });
    assert.deepEqual(
      offset.data.map((e: any) => e.occurred_at),
      ['2026-11-04T00:00:00.000Z'],
      'offsets are honoured',
    );
    assert.deepEqual(offset.beat, { id: beat.id, status: 'ACTIVE', gaps: [] });
  });

  it('when a window is read on added_at or by last, then it covers the recording time up to now', async () => {
    await beats.setClock('2026-11-10T00:00:00.000Z');
    const { key, beat, type } = await beatWith(['2020-01-01']);
    await beats.setClock('2026-11-20T00:00:00.000Z');
    const recent = await article(type.id, '2020-01-02');
    await beats.drain();
    const day = await beats.entries(key, beat.id, { last: '24h', axis: 'added_at' });
    assert.deepEqual(
      day.data.map((e: any) => e.event.id),
      [recent],
      'recorded now: inside a window ending now',
    );
    assert.equal(day.total_count, 1);
    const month = await beats.entries(key, beat.id, { last: '30d', axis: 'added_at' });
    assert.equal(month.total_count, 2);
    assert.equal((await beats.entries(key, beat.id, { last: '30d' })).total_count, 0, 'on occurred_at, both happened in 2020 (beyond retention)');
  });

  it('when retention is passed, then windows are clamped to it on their own axis and polls read only retained entries', async () => {
    await beats.setClock('2026-08-01T00:00:00.000Z');
    const { key, beat, type } = await beatWith([null]);
    await beats.setClock('2026-11-20T00:00:00.000Z');
    const kept = await article(type.id);
    await beats.drain();
    const polled = await beats.pollAll(key, beat.id);
    assert.deepEqual(
      polled.map((e) => e.event.id),
      [kept],
      'poll mode: added_at within the 90 retained days',
    );
    const window = await beats.entries(key, beat.id, { from: '2026-01-01T00:00:00Z', until: '2026-12-01T00:00:00Z', axis: 'added_at' });
    assert.equal(window.total_count, 1);
  });

  it('when a read breaks a rule, then it is 400 validation-failed naming the member', async () => {
    await beats.setClock(NOW);
    const { key, beat } = await beatWith([null, null, null]);
    const other = await beatWith([null]);
    const first = await beats.entries(key, beat.id, { since: '', limit: 1 });
    const otherPage = await beats.entries(other.key, other.beat.id, { since: '' });
    const cases: [Record<string, unknown>, string][] = [
      [{}, ''],
      [{ limit: 5 }, ''],
      [{ since: '', last: '24h' }, '/since'],
      [{ since: '', from: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' }, '/since'],
      [{ from: '2026-11-01T00:00:00Z' }, '/until'],
      [{ until: '2026-11-01T00:00:00Z' }, '/from'],
      [{ from: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' }, '/from'],
      [{ from: '2026-11-02T00:00:00Z', until: '2026-11-02T00:00:00Z' }, '/from'],
      [{ from: '2026-11-02', until: '2026-11-03T00:00:00Z' }, '/from'],
      [{ from: '2026-11-02T00:00:00', until: '2026-11-03T00:00:00Z' }, '/from'],
      [{ from: '2026-01-01T00:00:00Z', until: '9999-12-31T23:59:59-14:00' }, '/until'],
      [{ from: '0000-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }, '/from'],
      [{ from: '2016-12-31T23:59:60Z', until: '2026-01-01T00:00:00Z' }, '/from'],
      [{ last: '24h', from: '2026-11-01T00:00:00Z' }, '/from'],
      [{ last: '12h' }, '/last'],
      [{ since: '', axis: 'added_at' }, '/axis'],
      [{ last: '7d', axis: 'published_at' }, '/axis'],
      [{ since: '', limit: 51 }, '/limit'],
      [{ since: '', limit: 0 }, '/limit'],
      [{ since: '', page: 2 }, '/page'],
      [{ since: 'garbage' }, '/since'],
      [{ since: otherPage.poll_since }, '/since'],
      [{ cursor: first.next_cursor, since: '' }, '/since'],
      [{ cursor: first.next_cursor, axis: 'added_at' }, '/axis'],
      [{ cursor: `${first.next_cursor.slice(0, -2)}AA` }, '/cursor'],
      [{ cursor: first.poll_since }, '/cursor'],
    ];
    for (const [body, pointer] of cases) {
      const response = await beats.call('POST', `/beats/${beat.id}/entries`, key, body);
      beats.problem(response, 400, 'validation-failed');
      assert.ok(pointers(response).includes(pointer), `${JSON.stringify(body)}: ${response.text}`);
    }
    const foreign = await beats.call('POST', `/beats/${other.beat.id}/entries`, other.key, { cursor: first.next_cursor });
    beats.problem(foreign, 400, 'validation-failed');
    assert.deepEqual(pointers(foreign), ['/cursor'], 'a cursor is valid only for its own beat');
    await server.ops.post('/clock', { advance_seconds: 3600 });
    const expired = await beats.call('POST', `/beats/${beat.id}/entries`, key, { cursor: first.next_cursor });
    beats.problem(expired, 400, 'validation-failed');
    assert.equal((await beats.call('POST', `/beats/${beat.id}/entries`, key, { since: first.poll_since })).status, 200, 'a poll token does not expire');
  });

  it('when a large backfill runs, then it records every match in batches, oldest first, each once', async () => {
    await beats.setClock('2026-11-15T00:00:00.000Z');
    const type = await corpus.eventType();
    const events: string[] = [];
    for (let i = 0; i < 230; i++) {
      events.push(
        await corpus.article({
          outlet_id: outlet,
          event_type_id: type.id,
          published_at: new Date(Date.parse('2026-11-15T00:00:00Z') + (i % 7) * 3_600_000 + i).toISOString(),
          roles: [{ role: 'party', entity_id: await corpus.entity() }],
        }),
      );
    }
    await beats.drain();
    await beats.setClock('2026-11-16T00:00:00.000Z');
    const account = await beats.account(1000);
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.equal(entries.length, 230);
    assert.deepEqual(new Set(entries.map((e) => e.event.id)), new Set(events));
    const dates = await Promise.all(entries.map(async (e) => (await corpus.ops('GET', `/events/${e.event.id}`)).json.first_report_date as string));
    assert.deepEqual(dates, [...dates].sort(), 'oldest first');
    assert.equal(await corpus.balance(account.id), 770);
  });
});
