import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBeatsServer, type BeatsClient } from '../helpers/beats.js';
import type { TestCorpus } from '../helpers/corpus.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('beat recording', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let beats: BeatsClient;
  let outlet: string;
  let otherOutlet: string;

  before(async () => {
    ({ server, corpus, beats, outlet } = await startBeatsServer(NOW));
    otherOutlet = await corpus.outlet();
  });
  after(() => server.close());

  /** An article about a new event of this type, naming a fresh party unless one is given. */
  const article = async (typeId: string, extra: Record<string, unknown> = {}) =>
    corpus.article({ outlet_id: outlet, event_type_id: typeId, roles: [{ role: 'party', entity_id: await corpus.entity() }], ...extra });

  it('when articles arrive in bulk, then each matched event gets one entry, charged once, whatever the number of its reports in the batch', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    const [one, two] = [await corpus.entity(), await corpus.entity()];
    const line = (party: string, at: string) =>
      JSON.stringify({ outlet_id: outlet, event_type_id: type.id, published_at: at, roles: [{ role: 'party', entity_id: party }] });
    const bulk = await corpus.bulk([line(one, '2026-11-20T08:00:00Z'), line(one, '2026-11-20T09:00:00Z'), line(two, '2026-11-20T10:00:00Z')]);
    const events = [...new Set(bulk.results.map((r: any) => r.incident_id))];
    assert.equal(events.length, 2, 'two events: the first two lines cluster');
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.deepEqual(entries.map((entry) => entry.event.id).sort(), [...events].sort());
    assert.equal(await corpus.balance(account.id), 8, 'one credit per entry');

    // A later batch adds a report to a recorded event and opens a new one: one entry more.
    const later = await corpus.bulk([line(two, '2026-11-20T11:00:00Z'), line(await corpus.entity(), '2026-11-20T12:00:00Z')]);
    const [again, fresh] = later.results.map((r: any) => r.incident_id);
    assert.ok(events.includes(again), 'the report joins a recorded event');
    await beats.drain();
    const now = await beats.pollAll(account.key, beat.id);
    assert.deepEqual(now.map((entry) => entry.event.id).sort(), [...events, fresh].sort());
    assert.equal(await corpus.balance(account.id), 7, 'one credit more');
  });

  it("when one batch's events match beats of two accounts, then each account records and pays for its own", async () => {
    await beats.setClock(NOW);
    const [first, second] = [await beats.account(10), await beats.account(10)];
    const type = await corpus.eventType();
    const watched = await corpus.entity();
    const byType = await beats.create(first.key, [{ event_type_id: type.id }]);
    const byEntity = await beats.create(second.key, [{ involved_entity_ids: [watched] }, { event_type_id: type.id }]);
    await beats.drain();
    const line = (party: string, at: string) =>
      JSON.stringify({ outlet_id: outlet, event_type_id: type.id, published_at: at, roles: [{ role: 'party', entity_id: party }] });
    const bulk = await corpus.bulk([line(watched, '2026-11-20T08:00:00Z'), line(await corpus.entity(), '2026-11-20T09:00:00Z')]);
    const [named, other] = bulk.results.map((r: any) => r.incident_id);
    await beats.drain();
    const firstEntries = await beats.pollAll(first.key, byType.id);
    assert.deepEqual(firstEntries.map((entry) => entry.event.id).sort(), [named, other].sort());
    const secondEntries = await beats.pollAll(second.key, byEntity.id);
    assert.deepEqual(
      secondEntries.map((entry) => [entry.event.id, entry.matched_clause_id]).sort(),
      [
        [named, byEntity.clauses[0].id],
        [other, byEntity.clauses[1].id],
      ].sort(),
      "each event on its first matching clause of the second account's beat",
    );
    assert.equal(await corpus.balance(first.id), 8, 'two entries for the first account');
    assert.equal(await corpus.balance(second.id), 8, 'two for the second');
  });

  it('when an event matches, then one entry is recorded and charged once, however often the event changes afterwards', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    const party = await corpus.entity();
    const eventId = await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      happened_at: '2026-11-18',
      roles: [{ role: 'party', entity_id: party }],
    });
    await beats.drain();
    await corpus.article({ outlet_id: otherOutlet, event_type_id: type.id, incident_id: eventId, roles: [{ role: 'party', entity_id: party }] });
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.deepEqual(Object.keys(entry).sort(), [
      'added_at',
      'backfilled',
      'carried_from_event_id',
      'event',
      'id',
      'matched_clause_id',
      'object',
      'occurred_at',
      'superseded_by_event_id',
    ]);
    assert.equal(entry.object, 'beat_entry');
    assert.equal(entry.matched_clause_id, beat.clauses[0].id);
    assert.equal(entry.occurred_at, '2026-11-18T00:00:00.000Z', 'happened_at read as a date');
    assert.equal(entry.added_at, NOW);
    assert.equal(entry.backfilled, false);
    assert.equal(entry.carried_from_event_id, null);
    assert.equal(entry.superseded_by_event_id, null);
    assert.equal(entry.event.id, eventId);
    assert.equal(entry.event.event_type.code_name, type.code_name);
    assert.equal(entry.event.happened_at, '2026-11-18');
    assert.equal(typeof entry.event.sentence, 'string');
    assert.equal(await corpus.balance(account.id), 9, 'charged once');
    const after = await beats.beat(account.key, beat.id);
    assert.equal(after.spent_this_month, 1);
    assert.equal(after.entries_this_month, 1);
    assert.equal(after.last_entry_at, NOW);
  });

  it('when an event satisfies several clauses, then the entry names the first in list order; an event matching none records nothing', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const other = await corpus.eventType();
    const party = await corpus.entity();
    const beat = await beats.create(account.key, [{ event_type_id: other.id }, { involved_entity_ids: [party] }, { event_type_id: type.id }]);
    await beats.drain();
    await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: party }] });
    await article(await corpus.eventType().then((t) => t.id));
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].matched_clause_id, beat.clauses[1].id);
    assert.equal(await corpus.balance(account.id), 9);
  });

  it('when clauses use scope, source kind, outlets, min_reports and role filters, then recording follows the same filter semantics as search', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(100);
    const type = await corpus.eventType();
    const party = await corpus.entity();
    const mentioned = await corpus.entity();
    const beat = await beats.create(account.key, [
      { involved_entity_ids: [mentioned], scope: 'PARTICIPANT' },
      { event_type_id: type.id, report_source_kind: 'USER_REPORTS_ONLY' },
      { event_type_id: type.id, min_reports: 2, required_source_news_outlet_ids: [otherOutlet] },
      { event_type_id: type.id, role_filters: [{ kind: 'amount_gte', role_code_name: 'price', min_value: 100, unit: 'usd' }] },
    ]);
    await beats.drain();
    // Mentioned only: no PARTICIPANT match; one outlet; no price.
    const plain = await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      roles: [{ role: 'party', entity_id: party }],
      mentioned_entity_ids: [mentioned],
    });
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 0);
    // A second outlet, the required one: min_reports 2 holds now.
    await corpus.article({ outlet_id: otherOutlet, event_type_id: type.id, incident_id: plain, roles: [{ role: 'party', entity_id: party }] });
    const priced = await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      roles: [
        { role: 'party', entity_id: await corpus.entity() },
        { role: 'price', amount: { value: 150, unit: 'USD' } },
      ],
    });
    const participant = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: mentioned }] });
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    const clauseOf = new Map(entries.map((e) => [e.event.id, e.matched_clause_id]));
    assert.equal(clauseOf.get(plain), beat.clauses[2].id);
    assert.equal(clauseOf.get(priced), beat.clauses[3].id);
    assert.equal(clauseOf.get(participant), beat.clauses[0].id);
    assert.equal(entries.length, 3);
  });

  it('when an entry would pass the spend cap, then nothing is recorded, the beat pauses with an open gap; resume closes it; raising the cap alone does not resume; a new month does', async () => {
    await beats.setClock('2026-11-20T12:00:00.000Z');
    const account = await beats.account(100);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }], { spend_cap_credits: 2 });
    await beats.drain();
    for (let i = 0; i < 2; i++) await article(type.id);
    await beats.drain();
    await beats.setClock('2026-11-20T12:01:00.000Z');
    await article(type.id);
    await beats.drain();
    let state = await beats.beat(account.key, beat.id);
    assert.equal(state.status, 'PAUSED_SPEND_CAP');
    assert.equal(state.enabled, true);
    assert.equal(state.spent_this_month, 2);
    assert.equal(state.entries_this_month, 2);
    assert.deepEqual(state.gaps, [{ from: '2026-11-20T12:01:00.000Z', until: null }]);
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 2);
    assert.equal(await corpus.balance(account.id), 98, 'the third entry was not charged');

    await beats.setClock('2026-11-21T08:00:00.000Z');
    await article(type.id);
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 2, 'a paused beat records nothing');
    const raised = await beats.call('PATCH', `/beats/${beat.id}/spend-cap`, account.key, { spend_cap_credits: 3 });
    assert.equal(raised.json.status, 'PAUSED_SPEND_CAP', 'raising the cap alone does not resume');

    await beats.setClock('2026-11-22T08:00:00.000Z');
    const resumed = await beats.call('POST', `/beats/${beat.id}/resume`, account.key);
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.json.status, 'ACTIVE');
    assert.deepEqual(resumed.json.gaps, [{ from: '2026-11-20T12:01:00.000Z', until: '2026-11-22T08:00:00.000Z' }]);
    await article(type.id);
    await beats.drain();
    await beats.setClock('2026-11-22T09:00:00.000Z');
    await article(type.id);
    await beats.drain();
    state = await beats.beat(account.key, beat.id);
    assert.equal(state.spent_this_month, 3);
    assert.equal(state.status, 'PAUSED_SPEND_CAP', 'the cap pauses it again');
    assert.equal(state.gaps.length, 2, 'a later pause opens a new gap');
    assert.deepEqual(state.gaps[1], { from: '2026-11-22T09:00:00.000Z', until: null });

    await beats.setClock('2026-12-01T00:00:00.000Z');
    state = await beats.beat(account.key, beat.id);
    assert.equal(state.status, 'ACTIVE', 'the next UTC month resumes recording');
    assert.equal(state.spent_this_month, 0);
    assert.equal(state.entries_this_month, 0);
    assert.deepEqual(state.gaps[1], { from: '2026-11-22T09:00:00.000Z', until: '2026-12-01T00:00:00.000Z' });
    await article(type.id);
    await beats.drain();
    state = await beats.beat(account.key, beat.id);
    assert.equal(state.spent_this_month, 1);
    assert.equal(state.entries_this_month, 1);
    const entries = await beats.pollAll(account.key, beat.id);
    assert.equal(entries.length, 4);
    for (const entry of entries) {
      for (const gap of state.gaps) assert.ok(entry.added_at < gap.from || entry.added_at >= gap.until, 'no entry inside a gap');
    }
    assert.equal(await corpus.balance(account.id), 96);
  });

  it('when the balance cannot cover an entry, then the beat pauses and the balance never goes below zero', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(1);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    for (let i = 0; i < 3; i++) await article(type.id);
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 1);
    assert.equal(await corpus.balance(account.id), 0);
    const state = await beats.beat(account.key, beat.id);
    assert.equal(state.status, 'PAUSED_SPEND_CAP');
    assert.equal(state.gaps.length, 1);
  });

  it('when a beat is disabled, then it records and spends nothing and opens no gap; enabled again, it records what comes next', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.call('POST', `/beats/${beat.id}/disable`, account.key);
    await article(type.id);
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 0);
    assert.equal(await corpus.balance(account.id), 10);
    await beats.call('POST', `/beats/${beat.id}/enable`, account.key);
    const next = await article(type.id);
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.deepEqual(
      entries.map((e) => e.event.id),
      [next],
    );
    assert.deepEqual((await beats.beat(account.key, beat.id)).gaps, []);
  });

  it('when a beat is deleted, then it records nothing more', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    assert.equal((await beats.call('DELETE', `/beats/${beat.id}`, account.key)).status, 204);
    await article(type.id);
    await beats.drain();
    assert.equal(await corpus.balance(account.id), 10);
  });

  it('when a beat is created, then it backfills matches first reported within backfill_days, oldest first, charged and marked backfilled, and is readable at once', async () => {
    await beats.setClock('2026-11-10T00:00:00.000Z');
    const type = await corpus.eventType();
    const tooOld = await article(type.id);
    await beats.setClock('2026-11-15T00:00:00.000Z');
    const older = await article(type.id, { happened_at: 'last week' });
    await beats.setClock('2026-11-19T00:00:00.000Z');
    const newer = await article(type.id);
    await beats.drain();
    await beats.setClock('2026-11-20T12:00:00.000Z');
    const account = await beats.account(10);
    const created = await beats.call('POST', '/beats', account.key, { name: 'Late', clauses: [{ event_type_id: type.id }] });
    assert.equal(created.status, 201);
    assert.equal((await beats.beat(account.key, created.json.id)).id, created.json.id, 'readable at once');
    await beats.drain();
    const entries = await beats.pollAll(account.key, created.json.id);
    assert.deepEqual(
      entries.map((e) => e.event.id),
      [older, newer],
    );
    assert.ok(entries.every((e) => e.backfilled));
    assert.equal(entries[0].occurred_at, '2026-11-15T00:00:00.000Z', 'happened_at that reads as no date: the first report date');
    assert.ok(!entries.some((e) => e.event.id === tooOld));
    assert.equal(await corpus.balance(account.id), 8);
    const live = await article(type.id);
    await beats.drain();
    const all = await beats.pollAll(account.key, created.json.id);
    assert.equal(all.length, 3);
    assert.equal(all[2].event.id, live);
    assert.equal(all[2].backfilled, false);
  });

  it('when a backfill would pass the cap, then it records up to the cap and the beat pauses', async () => {
    await beats.setClock('2026-11-18T00:00:00.000Z');
    const type = await corpus.eventType();
    for (let i = 0; i < 4; i++) await article(type.id);
    await beats.drain();
    await beats.setClock('2026-11-20T00:00:00.000Z');
    const account = await beats.account(10);
    const beat = await beats.create(account.key, [{ event_type_id: type.id }], { spend_cap_credits: 2 });
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 2);
    const state = await beats.beat(account.key, beat.id);
    assert.equal(state.status, 'PAUSED_SPEND_CAP');
    assert.equal(await corpus.balance(account.id), 8);
  });

  it('when the plan has backfill_days 0, then a new beat looks back at nothing', async () => {
    await beats.setClock('2026-11-19T00:00:00.000Z');
    const type = await corpus.eventType();
    await article(type.id);
    await beats.drain();
    const plan = `noback_${Math.random().toString(36).slice(2, 8)}`;
    await corpus.ops('PUT', `/plans/${plan}`, { ...STANDARD_PLAN_FIELDS, backfill_days: 0 });
    await beats.setClock('2026-11-20T00:00:00.000Z');
    const account = await beats.account(10, plan);
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    assert.equal(beat.backfill_days, 0);
    await beats.drain();
    assert.equal((await beats.pollAll(account.key, beat.id)).length, 0);
  });

  it("when event A is merged into B, then A's entries name B, beats without B get a free carried entry, and B is not charged again", async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const watched = await corpus.entity();
    const a = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: watched }] });
    const b = await article(type.id);
    await beats.drain();
    await beats.setClock('2026-11-20T13:00:00.000Z');
    const byEntity = await beats.create(account.key, [{ involved_entity_ids: [watched] }]);
    const byType = await beats.create(account.key, [{ event_type_id: type.id }]);
    await beats.drain();
    assert.equal(await corpus.balance(account.id), 7, 'A on both beats, B on the type beat');
    await beats.setClock('2026-11-20T14:00:00.000Z');
    await corpus.ops('POST', `/events/${a}/merge`, { into_event_id: b });
    await beats.drain();
    const entityEntries = await beats.pollAll(account.key, byEntity.id);
    assert.equal(entityEntries.length, 2);
    assert.equal(entityEntries[0].event.id, a, 'a superseded entry keeps its own event summary');
    assert.equal(entityEntries[0].superseded_by_event_id, b);
    assert.equal(entityEntries[1].event.id, b);
    assert.equal(entityEntries[1].carried_from_event_id, a);
    assert.equal(entityEntries[1].matched_clause_id, byEntity.clauses[0].id);
    assert.equal(entityEntries[1].backfilled, false);
    const typeEntries = await beats.pollAll(account.key, byType.id);
    assert.equal(typeEntries.length, 2, 'the type beat had B already: nothing carried');
    assert.equal(typeEntries.find((e) => e.event.id === a).superseded_by_event_id, b);
    assert.equal(typeEntries.find((e) => e.event.id === b).superseded_by_event_id, null);
    assert.equal(await corpus.balance(account.id), 7, 'carried entries are free, and B was not charged again');
  });

  it('when A is merged into B and B into D in quick succession, then whichever order the changes run in, the live D holds one carried entry and every other entry is superseded', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const watched = await corpus.entity();
    const a = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: watched }] });
    const beat = await beats.create(account.key, [{ involved_entity_ids: [watched] }]);
    await beats.drain();
    const b = await article(type.id);
    const d = await article(type.id);
    await beats.drain();
    assert.equal(await corpus.balance(account.id), 9);
    await corpus.ops('POST', `/events/${a}/merge`, { into_event_id: b });
    await corpus.ops('POST', `/events/${b}/merge`, { into_event_id: d });
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    const live = entries.filter((e) => e.event.id === d);
    assert.equal(live.length, 1);
    assert.ok([a, b].includes(live[0].carried_from_event_id), 'carried, not matched afresh');
    assert.equal(live[0].superseded_by_event_id, null);
    for (const entry of entries.filter((e) => e.event.id !== d)) assert.ok([b, d].includes(entry.superseded_by_event_id), `${entry.event.id} is superseded`);
    assert.equal(await corpus.balance(account.id), 9, 'carried entries are free, and D was not charged');
  });

  it('when an event is deleted, then its entries remain and read event: null', async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    const eventId = await article(type.id);
    await beats.drain();
    assert.equal((await corpus.ops('DELETE', `/events/${eventId}`)).status, 204);
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].event, null);
  });

  it("when a beat's clauses are replaced, then recording follows the new clauses and old entries keep their clause id", async () => {
    await beats.setClock(NOW);
    const account = await beats.account(10);
    const type = await corpus.eventType();
    const other = await corpus.eventType();
    const beat = await beats.create(account.key, [{ event_type_id: type.id }]);
    await article(type.id);
    await beats.drain();
    const replaced = await beats.call('PUT', `/beats/${beat.id}`, account.key, { name: 'x', clauses: [{ event_type_id: other.id }] });
    assert.equal(replaced.status, 200);
    await article(type.id);
    await article(other.id);
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.deepEqual(
      entries.map((e) => e.matched_clause_id),
      [beat.clauses[0].id, replaced.json.clauses[0].id],
    );
  });
});
