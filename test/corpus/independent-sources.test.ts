// Independent sources over HTTPS (decisions.md, "independent sources"): copies found by their
// texts join their origin's event and answer copy_of_report_id; events count each copy group
// once (independent_source_count), with the search's cut-off; min_independent_sources filters
// searches, sensors, beats and MCP searches, re-checked as events change; merges keep groups.
// Texts come from the hand-written pairs (copy-pairs.json), each test's words given a suffix
// of its own so no test's texts copy another's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BEAT_SCOPES, beatsClient } from '../helpers/beats.js';
import type { TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { envelope, sdkClients } from '../helpers/mcp-sdk.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const { pairs } = JSON.parse(readFileSync(new URL('./copy-pairs.json', import.meta.url), 'utf8')) as {
  pairs: { id: string; text_a: string; text_b: string }[];
};
const pair = (id: string) => pairs.find((p) => p.id === id)!;
let tags = 0;
/** A wire story, its copies and another agency's story of the same event, in words of their own. */
function story(base: 'quake' | 'rail-strike' | 'romania-floods' | 'mine-blast' | 'ferry-fire') {
  const tag = `x${++tags}`;
  const own = (text: string) => text.replace(/\p{L}+/gu, (word) => `${word}${tag}`);
  const { text_a: wire, text_b: independent } = pair(`${base}-two-agencies`);
  return {
    wire: own(wire),
    /** The wire story republished with a byline and a copyright line, every other one shouted. */
    copy: (n = 0) => own(`By Staff Writers\n\n${n % 2 ? wire.toUpperCase() : wire}\n\nCopyright 2026. All rights reserved.`),
    independent: own(independent),
  };
}
const hoursBefore = (hours: number) => new Date(Date.parse(NOW) - hours * 3_600_000).toISOString();

describe('independent sources', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;
  let type: { id: string };
  let outlets: string[];

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(NOW));
    type = await corpus.eventType();
    outlets = [];
    for (let i = 0; i < 8; i++) outlets.push(await corpus.outlet());
  });
  after(() => close());

  /**
   * Ingests one article (201 or 200 asserted); answers its answer. Without a party it names a
   * price alone: no participant, so clustering would open an event of its own for it (and it
   * names no other party in the event it joins, which would keep later reports out).
   */
  async function article(fields: { outlet: number; party: string | null; text?: string; hoursAgo?: number; incident_id?: string; url?: string }) {
    const answer = await corpus.ops('POST', '/articles', {
      outlet_id: outlets[fields.outlet],
      event_type_id: type.id,
      published_at: hoursBefore(fields.hoursAgo ?? 2),
      ...(fields.url ? { url: fields.url } : {}),
      roles: fields.party === null ? [{ role: 'price', amount: { value: 5, unit: 'USD' } }] : [{ role: 'party', entity_id: fields.party }],
      ...(fields.text === undefined ? {} : { text: fields.text }),
      ...(fields.incident_id ? { incident_id: fields.incident_id } : {}),
    });
    assert.ok(answer.status === 201 || answer.status === 200, answer.text);
    return answer.json as { id: string; incident_id: string; copy_of_report_id: string | null };
  }
  const opsEvent = async (id: string) => (await corpus.ops('GET', `/events/${id}`)).json;
  const counts = async (id: string) => {
    const event = await opsEvent(id);
    return { outlets: event.distinct_outlet_count, independent: event.independent_source_count, reports: event.matched_report_count };
  };
  async function search(key: string, body: Record<string, unknown>) {
    const page = await server.http.post('/v1/events/search', { lookback_days: 7, event_type_id: type.id, ...body }, bearer(key));
    assert.equal(page.status, 200, page.text);
    return page.json;
  }

  it('when an outlet republishes a story under other names, then it joins the origin event, answers its origin, and counts once', async () => {
    const texts = story('rail-strike');
    const x = await corpus.entity();
    const origin = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    assert.equal(origin.copy_of_report_id, null);
    // No participant: clustering alone would open an event of its own.
    const url = `https://news.example/strike-${tags}`;
    const copy = await article({ outlet: 1, party: null, text: texts.copy(), hoursAgo: 2, url });
    assert.deepEqual([copy.incident_id, copy.copy_of_report_id], [origin.incident_id, origin.id]);
    const independent = await article({ outlet: 2, party: x, text: texts.independent, hoursAgo: 2 });
    assert.deepEqual([independent.incident_id, independent.copy_of_report_id], [origin.incident_id, null]);
    assert.deepEqual(await counts(origin.incident_id), { outlets: 3, independent: 2, reports: 3 });
    // The same article again (its outlet and url) answers as it did.
    assert.deepEqual(await article({ outlet: 1, party: null, text: texts.copy(), hoursAgo: 2, url }), copy);

    const account = await corpus.account(100);
    const three = await search(account.key, { involved_entity_ids: [x], min_independent_sources: 3 });
    assert.deepEqual(three.data, []);
    const two = await search(account.key, { involved_entity_ids: [x], min_independent_sources: 2 });
    assert.deepEqual(
      two.data.map((e: any) => [e.id, e.distinct_outlet_count, e.independent_source_count]),
      [[origin.incident_id, 3, 2]],
    );
  });

  it('when texts are briefs of fewer than 50 words, then none is a copy, however alike', async () => {
    const brief = 'Rail workers walked out on Monday over pay, the union said, halting most trains across the country.';
    const party = await corpus.entity();
    const first = await article({ outlet: 3, party, text: brief });
    const second = await article({ outlet: 4, party, text: brief });
    assert.equal(second.copy_of_report_id, null);
    assert.deepEqual(await counts(first.incident_id), { outlets: 2, independent: 2, reports: 2 });
  });

  it('when two texts are one story but the reports name no entity in common, then neither is a copy of the other', async () => {
    const texts = story('mine-blast');
    const [x, y] = [await corpus.entity(), await corpus.entity()];
    const first = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    const other = await article({ outlet: 1, party: y, text: texts.copy(), hoursAgo: 2 });
    assert.equal(other.copy_of_report_id, null);
    assert.notEqual(other.incident_id, first.incident_id);
    // A copy naming the story's party, or naming none, is one.
    const sharing = await article({ outlet: 2, party: y, text: texts.copy(1), hoursAgo: 1 });
    assert.deepEqual([sharing.incident_id, sharing.copy_of_report_id], [other.incident_id, other.id]);
    const naming = await article({ outlet: 3, party: null, text: texts.copy(), hoursAgo: 1 });
    assert.deepEqual([naming.incident_id, naming.copy_of_report_id], [first.incident_id, first.id]);
  });

  it('when a copy names an incident_id, then it joins that event, and counts there as its own origin', async () => {
    const texts = story('quake');
    const [x, y] = [await corpus.entity(), await corpus.entity()];
    const origin = await article({ outlet: 0, party: x, text: texts.wire });
    const other = await article({ outlet: 2, party: y, text: texts.independent });
    assert.notEqual(other.incident_id, origin.incident_id);
    const copy = await article({ outlet: 1, party: x, text: texts.copy(), incident_id: other.incident_id });
    assert.deepEqual([copy.incident_id, copy.copy_of_report_id], [other.incident_id, origin.id]);
    assert.deepEqual(await counts(other.incident_id), { outlets: 2, independent: 2, reports: 2 });
    assert.deepEqual(await counts(origin.incident_id), { outlets: 1, independent: 1, reports: 1 });
  });

  it('when the origin arrives after its copy, then the earliest report date is the origin, and later copies answer it', async () => {
    const texts = story('romania-floods');
    const party = await corpus.entity();
    const early = await article({ outlet: 0, party, text: texts.copy(), hoursAgo: 2 });
    // The wire story, published an hour before the copy and received after it.
    const wire = await article({ outlet: 1, party, text: texts.wire, hoursAgo: 3 });
    assert.deepEqual([wire.incident_id, wire.copy_of_report_id], [early.incident_id, early.id]);
    const late = await article({ outlet: 2, party: null, text: texts.copy(1), hoursAgo: 1 });
    assert.deepEqual([late.incident_id, late.copy_of_report_id], [early.incident_id, wire.id]);
    assert.deepEqual(await counts(early.incident_id), { outlets: 3, independent: 1, reports: 3 });
  });

  it('when a copy and an independent report arrive after a search, then its next page counts neither', async () => {
    const account = await corpus.account(100);
    const [x, y] = [await corpus.entity(), await corpus.entity()];
    const older = story('ferry-fire');
    const newer = story('mine-blast');
    const first = await article({ outlet: 0, party: x, text: older.wire, hoursAgo: 5 });
    await article({ outlet: 1, party: null, text: older.copy(), hoursAgo: 5 });
    await article({ outlet: 0, party: y, text: newer.wire, hoursAgo: 1 });
    const page = await search(account.key, { involved_entity_ids: [x, y], limit: 1 });
    assert.equal(page.data.length, 1);
    // An earlier-dated copy from a third outlet (it would be the group's origin) and an independent report.
    await article({ outlet: 2, party: null, text: older.copy(1), hoursAgo: 6 });
    await article({ outlet: 3, party: x, text: older.independent, hoursAgo: 5 });
    const next = await server.http.post('/v1/events/search', { cursor: page.next_cursor }, bearer(account.key));
    assert.equal(next.status, 200, next.text);
    const [event] = next.json.data;
    assert.equal(event.id, first.incident_id);
    assert.deepEqual([event.matched_report_count, event.distinct_outlet_count, event.independent_source_count], [2, 2, 1]);
    assert.deepEqual(await counts(first.incident_id), { outlets: 4, independent: 2, reports: 4 });
  });

  it('when an earlier-dated copy takes its group over after a search, then the next page still lists the event its cut-off counted', async () => {
    const account = await corpus.account(100);
    const [x, y] = [await corpus.entity(), await corpus.entity()];
    const older = story('quake');
    const newer = story('rail-strike');
    // Two events of two independent sources each: the wire story (outlet 0) and another agency's (outlet 1).
    const first = await article({ outlet: 0, party: x, text: older.wire, hoursAgo: 5 });
    await article({ outlet: 1, party: x, text: older.independent, hoursAgo: 5 });
    await article({ outlet: 0, party: y, text: newer.wire, hoursAgo: 1 });
    await article({ outlet: 1, party: y, text: newer.independent, hoursAgo: 1 });
    const page = await search(account.key, { involved_entity_ids: [x, y], min_independent_sources: 2, limit: 1 });
    assert.deepEqual([page.total_count, page.data.length], [2, 1]);
    // A copy of the wire story from outlet 1, dated before it: the wire group's origin is now
    // outlet 1's, as the other group's is, so the event has one independent source now.
    const copy = await article({ outlet: 1, party: null, text: older.copy(), hoursAgo: 6 });
    assert.equal(copy.incident_id, first.incident_id);
    assert.deepEqual(await counts(first.incident_id), { outlets: 2, independent: 1, reports: 3 });
    const next = await server.http.post('/v1/events/search', { cursor: page.next_cursor }, bearer(account.key));
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(
      next.json.data.map((event: { id: string; independent_source_count: number }) => [event.id, event.independent_source_count]),
      [[first.incident_id, 2]],
      'counted at the execution: two independent sources',
    );
  });

  it('when five outlets run one story, then a sensor wanting two independent sources waits, and fires on an independent report', async () => {
    const account = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    const x = await corpus.entity();
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'confirmed', filter: { involved_entity_ids: [x], min_independent_sources: 2 }, actions: [{ type: 'webhook', url: receiver.url('/confirmed') }] },
      bearer(account.key),
    );
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.filter.min_independent_sources, 2);
    const texts = story('rail-strike');
    const origin = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    for (let i = 1; i <= 4; i++) await article({ outlet: i, party: null, text: texts.copy(i), hoursAgo: 2 });
    await server.ops.post('/drain');
    assert.deepEqual(await counts(origin.incident_id), { outlets: 5, independent: 1, reports: 5 });
    assert.equal(receiver.received.filter((r) => r.path === '/confirmed').length, 0);
    await article({ outlet: 5, party: x, text: texts.independent, hoursAgo: 1 });
    await server.ops.post('/drain');
    const delivered = receiver.received.filter((r) => r.path === '/confirmed');
    assert.equal(delivered.length, 1);
    const payload = verifyWebhook(created.json.signing_secret, delivered[0]!, NOW) as any;
    assert.deepEqual(
      [payload.data.event.id, payload.data.event.distinct_outlet_count, payload.data.event.independent_source_count],
      [origin.incident_id, 6, 2],
    );
  });

  it('when five outlets run one story, then a beat clause wanting two independent sources records nothing until an independent report', async () => {
    const beats = beatsClient(server, corpus);
    const account = await corpus.account(100, BEAT_SCOPES, 'standard', { beats: true });
    const x = await corpus.entity();
    const beat = await beats.create(account.key, [{ involved_entity_ids: [x], min_independent_sources: 2 }]);
    assert.equal(beat.clauses[0].min_independent_sources, 2);
    const texts = story('romania-floods');
    const origin = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    for (let i = 1; i <= 4; i++) await article({ outlet: i, party: null, text: texts.copy(i), hoursAgo: 2 });
    await beats.drain();
    assert.deepEqual(await beats.pollAll(account.key, beat.id), []);
    await article({ outlet: 5, party: x, text: texts.independent, hoursAgo: 1 });
    await beats.drain();
    const entries = await beats.pollAll(account.key, beat.id);
    assert.deepEqual(
      entries.map((e: any) => e.event.id),
      [origin.incident_id],
    );
  });

  it('when an agent searches over MCP with min_independent_sources, then copies count once there too', async () => {
    const x = await corpus.entity();
    const texts = story('mine-blast');
    const origin = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    await article({ outlet: 1, party: null, text: texts.copy(), hoursAgo: 2 });
    const account = await corpus.account(100, ['EVENTS_READ']);
    const clients = sdkClients(server);
    try {
      const client = await clients.connect(account.key);
      const call = (min: number) =>
        client.callTool({ name: 'search_events', arguments: { lookback_days: 7, involved_entity_ids: [x], min_independent_sources: min } });
      assert.deepEqual(envelope(await call(2)).data, []);
      const found = envelope(await call(1)).data;
      assert.deepEqual(
        found.map((e: any) => [e.id, e.distinct_outlet_count, e.independent_source_count]),
        [[origin.incident_id, 2, 1]],
      );
      await client.close();
    } finally {
      await clients.close();
    }
  });

  it('when events merge, then copy groups stay as they were and the counts are recomputed', async () => {
    const texts = story('quake');
    const [x, y] = [await corpus.entity(), await corpus.entity()];
    const origin = await article({ outlet: 0, party: x, text: texts.wire, hoursAgo: 3 });
    const elsewhere = await article({ outlet: 2, party: y, text: texts.independent, hoursAgo: 3 });
    const copy = await article({ outlet: 1, party: null, text: texts.copy(), incident_id: elsewhere.incident_id });
    assert.equal(copy.copy_of_report_id, origin.id);
    assert.deepEqual(await counts(elsewhere.incident_id), { outlets: 2, independent: 2, reports: 2 });
    const merged = await corpus.ops('POST', `/events/${elsewhere.incident_id}/merge`, { into_event_id: origin.incident_id });
    assert.equal(merged.status, 200, merged.text);
    // The wire story and its copy now meet in one event: one group, counted once.
    assert.deepEqual(await counts(origin.incident_id), { outlets: 3, independent: 2, reports: 3 });
  });

  it('when a filter or a text is out of range, then it is refused, naming the field', async () => {
    const account = await corpus.account(100);
    for (const value of [0, 101, 1.5]) {
      const refused = await server.http.post('/v1/events/search', { lookback_days: 7, min_independent_sources: value }, bearer(account.key));
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, /min_independent_sources/);
    }
    const beats = beatsClient(server, corpus);
    const beatAccount = await corpus.account(100, BEAT_SCOPES, 'standard', { beats: true });
    const clause = await beats.call('POST', '/beats', beatAccount.key, { name: 'b', clauses: [{ event_type_id: type.id, min_independent_sources: 11 }] });
    assert.equal(clause.status, 400, clause.text);
    assert.match(clause.text, /min_independent_sources/);
    const tooLong = await corpus.ops('POST', '/articles', {
      outlet_id: outlets[0],
      event_type_id: type.id,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
      text: 'word '.repeat(40_001),
    });
    assert.equal(tooLong.status, 400, tooLong.text);
    assert.match(tooLong.text, /text/);
  });

  it('when the entity a stored report names is merged into another, then a copy naming the survivor is one', async () => {
    const texts = story('ferry-fire');
    const [alias, survivor] = [await corpus.entity(), await corpus.entity()];
    const origin = await article({ outlet: 5, party: alias, text: texts.wire, hoursAgo: 3 });
    const merged = await corpus.ops('POST', `/entities/${alias}/merge`, { into_entity_id: survivor });
    assert.equal(merged.status, 200, merged.text);
    // Looked up by the survivor: the report was written naming the entity merged away.
    const copy = await article({ outlet: 6, party: survivor, text: texts.copy(), hoursAgo: 2 });
    assert.deepEqual([copy.incident_id, copy.copy_of_report_id], [origin.incident_id, origin.id]);
  });
});
