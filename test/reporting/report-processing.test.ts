// Filed reports become part of the corpus: clustered like articles, counted one source per
// filing account, and seen by sensors and beats through report_source_kind and represented
// entities.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { beatsClient, type BeatsClient } from '../helpers/beats.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { dealType, reportingClient, type ReportingClient } from '../helpers/reporting.js';
import { isolatedDatabase, startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('report processing', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let reporting: ReportingClient;
  let beats: BeatsClient;
  let receiver: WebhookReceiver;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let outlet: string;

  before(async () => {
    // Its own database: webhook attempts of this file's sensors are made by this server alone.
    database = await isolatedDatabase();
    server = await startServer({ ...database.env, EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
    corpus = testCorpus(server);
    reporting = reportingClient(server, corpus);
    beats = beatsClient(server, corpus);
    receiver = await startReceiver();
    await reporting.setClock(NOW);
    outlet = await corpus.outlet();
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await database.drop();
  });

  const deal = (acquirer: string, target: string, extra: Record<string, unknown> = {}) => ({
    happened_at: '2026-11-19T08:30:00Z',
    roles: [
      { role: 'acquirer', entity_id: acquirer },
      { role: 'target', entity_id: target },
    ],
    ...extra,
  });

  it('when reports are filed, then they join the event of an article they share a participant with, each filing account counting as one source', async () => {
    const type = await dealType(corpus);
    const [acme, globex, initech] = [await corpus.entity(), await corpus.entity(), await corpus.entity()];
    const eventId = await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      published_at: '2026-11-19T10:00:00.000Z',
      roles: [{ role: 'acquirer', entity_id: acme }],
    });
    const alice = await reporting.account();
    const bob = await reporting.account();
    const first = await reporting.fileProcessed(alice.key, { event_type_id: type.id, ...deal(acme, globex) });
    const second = await reporting.fileProcessed(alice.key, { event_type_id: type.id, ...deal(acme, globex) });
    const third = await reporting.fileProcessed(bob.key, { event_type_id: type.id, ...deal(acme, globex) });
    assert.deepEqual([first.incident_id, second.incident_id, third.incident_id], [eventId, eventId, eventId]);
    assert.equal(new Set([first.incident_report_id, second.incident_report_id, third.incident_report_id]).size, 3);
    const event = (await corpus.ops('GET', `/events/${eventId}`)).json;
    assert.equal(event.matched_report_count, 4);
    assert.equal(event.distinct_outlet_count, 3); // the outlet, alice, bob
    assert.equal(event.happened_at, '2026-11-19T08:30:00.000Z');

    // No shared participant, happened far from the event, or another entity in a role the
    // event fills: a new event.
    const apart = await reporting.fileProcessed(bob.key, { event_type_id: type.id, ...deal(initech, await corpus.entity()) });
    const later = await reporting.fileProcessed(bob.key, { event_type_id: type.id, ...deal(acme, globex, { happened_at: '2026-11-10T08:30:00Z' }) });
    assert.notEqual(apart.incident_id, eventId);
    assert.notEqual(later.incident_id, eventId);
    assert.notEqual(later.incident_id, apart.incident_id);
    // The roles the other way round: another deal (clustering precision), so another event.
    const swapped = await reporting.fileProcessed(bob.key, { event_type_id: type.id, ...deal(globex, acme) });
    assert.notEqual(swapped.incident_id, eventId);

    // A merged event: the report reads its survivor.
    assert.equal((await corpus.ops('POST', `/events/${apart.incident_id}/merge`, { into_event_id: eventId })).status, 200);
    assert.equal((await reporting.call('GET', `/reports/${apart.id}`, bob.key)).json.incident_id, eventId);
  });

  it('when beat clauses count only user reports or represented entities, then only the reports they count record entries', async () => {
    const type = await dealType(corpus);
    const [pinned, other, target] = [await corpus.entity(), await corpus.entity(), await corpus.entity()];
    const list = (await corpus.ops('POST', '/entity-lists', { name: 'pinned', entity_ids: [pinned] })).json.id;
    const newsroom = await reporting.account();
    const grant = await reporting.grant({ account_id: newsroom.id, event_type_id: type.id, pins: [{ role: 'acquirer', allowed_entity_ids: [pinned] }] });
    const { key } = await beats.account();
    const userReports = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'USER_REPORTS_ONLY' }]);
    const represented = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'REPRESENTED_ONLY', represented_entity_ids: [pinned] }]);
    const representedList = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'REPRESENTED_ONLY', represented_entity_list_ids: [list] }]);
    const representedOther = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'REPRESENTED_ONLY', represented_entity_ids: [other] }]);
    const articlesOnly = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'ARTICLES_ONLY' }]);
    await beats.drain();

    const articleEvent = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'acquirer', entity_id: other }] });
    const plain = await reporting.fileProcessed(newsroom.key, { event_type_id: type.id, ...deal(target, other, { happened_at: '2026-11-01T00:00:00Z' }) });
    // Under the grant: the pinned acquirer is filled in.
    const underGrant = await reporting.fileProcessed(newsroom.key, {
      event_type_id: type.id,
      grant_id: grant.id,
      happened_at: '2026-11-19T08:30:00Z',
      roles: [{ role: 'target', entity_id: target }],
    });
    assert.deepEqual(
      underGrant.roles.map((r: { role: string }) => r.role),
      ['target', 'acquirer'],
    );
    await beats.drain();

    const eventsOf = async (beat: { id: string }) => (await beats.pollAll(key, beat.id)).map((entry) => entry.event.id).sort();
    assert.deepEqual(await eventsOf(userReports), [plain.incident_id, underGrant.incident_id].sort());
    assert.deepEqual(await eventsOf(represented), [underGrant.incident_id]);
    assert.deepEqual(await eventsOf(representedList), [underGrant.incident_id]);
    assert.deepEqual(await eventsOf(representedOther), []);
    assert.deepEqual(await eventsOf(articlesOnly), [articleEvent]);

    // A beat made afterwards backfills through the filter's SQL face, and agrees.
    const backfilled = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'REPRESENTED_ONLY', represented_entity_ids: [pinned] }]);
    const backfilledUsers = await beats.create(key, [{ event_type_id: type.id, report_source_kind: 'USER_REPORTS_ONLY' }]);
    await beats.drain();
    assert.deepEqual(await eventsOf(backfilled), [underGrant.incident_id]);
    assert.deepEqual(await eventsOf(backfilledUsers), [plain.incident_id, underGrant.incident_id].sort());
  });

  it('when a sensor watches a represented entity, then a report filed under a grant pinning it is delivered', async () => {
    const type = await dealType(corpus);
    const [pinned, target] = [await corpus.entity(), await corpus.entity()];
    const newsroom = await reporting.account();
    const grant = await reporting.grant({ account_id: newsroom.id, event_type_id: type.id, pins: [{ role: 'acquirer', allowed_entity_ids: [pinned] }] });
    const owner = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    const created = await server.http.post(
      '/v1/sensors',
      {
        name: 'represented',
        filter: { event_type_id: type.id, report_source_kind: 'REPRESENTED_ONLY', represented_entity_ids: [pinned] },
        actions: [{ type: 'webhook', url: receiver.url('/represented') }],
      },
      bearer(owner.key),
    );
    assert.equal(created.status, 201, created.text);
    // An article naming the entity is not a represented report.
    await corpus.article({
      outlet_id: outlet,
      event_type_id: type.id,
      roles: [
        { role: 'acquirer', entity_id: pinned },
        { role: 'target', entity_id: target },
      ],
    });
    await reporting.drain();
    assert.equal(receiver.received.filter((r) => r.path === '/represented').length, 0);

    const report = await reporting.fileProcessed(newsroom.key, { event_type_id: type.id, grant_id: grant.id, ...deal(pinned, target) });
    await reporting.drain();
    const delivered = receiver.received.filter((r) => r.path === '/represented');
    assert.equal(delivered.length, 1);
    const payload = verifyWebhook(created.json.signing_secret, delivered[0]!, NOW) as { type: string; data: { event: { id: string } } };
    assert.equal(payload.type, 'event.matched');
    assert.equal(payload.data.event.id, report.incident_id);
  });
});
