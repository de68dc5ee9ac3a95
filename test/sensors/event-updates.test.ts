// `event.updated` deliveries over HTTPS (decisions.md, "events by id, revisions and update
// deliveries"): a sensor with deliver_updates is told of changes to the events it delivered in
// the past 30 days, signed, with the changes since its previous delivery for the event; only
// the named fields (or a merge) cause one; at most one per (sensor, event) per 10 minutes on
// the test clock, carrying the state of when it is made.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const START = '2026-11-20T12:00:00.000Z';
const MINUTE = 60;

describe('event.updated deliveries', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;
  let type: { id: string };
  let outlets: string[];
  let key: string;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(START));
    type = await corpus.eventType();
    outlets = [];
    for (let i = 0; i < 6; i++) outlets.push(await corpus.outlet());
    ({ key } = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE', 'EVENTS_READ']));
  });
  after(() => close());

  const now = async () => (await server.ops.get('/clock')).now as string;
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });
  const drain = () => server.ops.post('/drain');
  /** An article naming `party`, from outlet `outlet`, published now (joins the event of the party's earlier articles). */
  async function article(party: string, outlet: number, extra: Record<string, unknown> = {}) {
    return corpus.article({
      outlet_id: outlets[outlet],
      event_type_id: type.id,
      published_at: await now(),
      roles: [{ role: 'party', entity_id: party }],
      ...extra,
    });
  }
  async function sensor(party: string, path: string, deliverUpdates?: boolean) {
    const created = await server.http.post(
      '/v1/sensors',
      {
        name: 'follow',
        filter: { involved_entity_ids: [party] },
        actions: [{ type: 'webhook', url: receiver.url(path) }],
        ...(deliverUpdates === undefined ? {} : { deliver_updates: deliverUpdates }),
      },
      bearer(key),
    );
    assert.equal(created.status, 201, created.text);
    return created.json as { id: string; signing_secret: string; deliver_updates: boolean };
  }
  /** The deliveries that reached `path`, each verified as of when it was signed, as {type, timestamp, data}. */
  async function received(path: string, secret: string) {
    return receiver.received
      .filter((r) => r.path === path)
      .map((r) => verifyWebhook(secret, r, Number(r.headers['webhook-timestamp']) * 1000) as { type: string; timestamp: string; data: any });
  }

  it('when a followed event gains outlets, then the sensor gets event.updated at once, then at most one per 10 minutes with the state of then', async () => {
    const party = await corpus.entity();
    const watching = await sensor(party, '/follow', true);
    assert.equal(watching.deliver_updates, true);
    const eventId = await article(party, 0);
    await drain();
    assert.deepEqual(
      (await received('/follow', watching.signing_secret)).map((d) => d.type),
      ['event.matched'],
    );

    await advance(MINUTE);
    await article(party, 1);
    await drain();
    const [, first] = await received('/follow', watching.signing_secret);
    assert.equal(first!.type, 'event.updated');
    assert.equal(first!.data.sensor_id, watching.id);
    assert.equal(first!.data.event.id, eventId);
    assert.equal(first!.data.revision, 2);
    assert.deepEqual(first!.data.changes.distinct_outlet_count, { from: 1, to: 2 });
    assert.deepEqual(first!.data.changes.matched_report_count, { from: 1, to: 2 });
    assert.equal(first!.data.event.distinct_outlet_count, 2);

    // Two more outlets within the 10 minutes: nothing yet, then one update with both.
    await advance(2 * MINUTE);
    await article(party, 2);
    await drain();
    await advance(2 * MINUTE);
    await article(party, 3);
    await drain();
    assert.equal((await received('/follow', watching.signing_secret)).length, 2, 'coalesced: none within 10 minutes of the last');
    await advance(6 * MINUTE); // 10 minutes after the first update
    await drain();
    const deliveries = await received('/follow', watching.signing_secret);
    assert.equal(deliveries.length, 3);
    const second = deliveries[2]!;
    assert.equal(second.type, 'event.updated');
    assert.equal(second.data.revision, 4);
    assert.deepEqual(second.data.changes.distinct_outlet_count, { from: 2, to: 4 }, 'every change since the previous delivery');
    assert.equal(second.timestamp, await now());

    // The delivery log lists them; one is redelivered like any other.
    const log = await server.http.get(`/v1/sensors/${watching.id}/deliveries`, bearer(key));
    assert.deepEqual(
      log.json.data.map((d: { type: string }) => d.type),
      ['event.updated', 'event.updated', 'event.matched'],
    );
    const redeliver = await server.http.post(`/v1/sensors/${watching.id}/deliveries/${log.json.data[0].id}/redeliver`, undefined, bearer(key));
    assert.equal(redeliver.status, 200, redeliver.text);
    await drain();
    assert.equal((await received('/follow', watching.signing_secret)).length, 4);
  });

  it('when only the report count and last report date move, then no update; the next that counts carries them too', async () => {
    const party = await corpus.entity();
    const watching = await sensor(party, '/quiet', true);
    await article(party, 0);
    await drain();
    await advance(MINUTE);
    await article(party, 0); // the same outlet: one more report, nothing a sensor is told of
    await drain();
    await advance(20 * MINUTE);
    await drain();
    assert.deepEqual(
      (await received('/quiet', watching.signing_secret)).map((d) => d.type),
      ['event.matched'],
    );
    await article(party, 1);
    await drain();
    const [, update] = await received('/quiet', watching.signing_secret);
    assert.equal(update!.type, 'event.updated');
    assert.deepEqual(update!.data.changes.matched_report_count, { from: 1, to: 3 });
    assert.deepEqual(update!.data.changes.distinct_outlet_count, { from: 1, to: 2 });
  });

  it('when a sensor does not deliver updates, then it gets none until a PATCH turns them on; a merge into the event makes one', async () => {
    const [party, other] = [await corpus.entity(), await corpus.entity()];
    const watching = await sensor(party, '/later');
    assert.equal(watching.deliver_updates, false);
    const eventId = await article(party, 0);
    await drain();
    await advance(MINUTE);
    await article(party, 1);
    await drain();
    assert.equal((await received('/later', watching.signing_secret)).length, 1);

    const patched = await server.http.request('PATCH', `/v1/sensors/${watching.id}`, {
      headers: { ...bearer(key), 'content-type': 'application/merge-patch+json' },
      body: { deliver_updates: true },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.deliver_updates, true);
    const mergedId = await article(other, 2);
    const merge = await corpus.ops('POST', `/events/${mergedId}/merge`, { into_event_id: eventId });
    assert.equal(merge.status, 200, merge.text);
    await drain();
    const deliveries = await received('/later', watching.signing_secret);
    assert.deepEqual(
      deliveries.map((d) => d.type),
      ['event.matched', 'event.updated'],
    );
    const update = deliveries[1]!.data;
    assert.equal(update.revision, 3);
    // Since its one delivery (revision 1): a second outlet, then the merged event's.
    assert.deepEqual(update.changes.distinct_outlet_count, { from: 1, to: 3 });
    assert.deepEqual(
      update.changes.involved_entities.added.map((e: { id: string }) => e.id),
      [other],
    );

    // null resets it to false.
    const reset = await server.http.request('PATCH', `/v1/sensors/${watching.id}`, {
      headers: { ...bearer(key), 'content-type': 'application/merge-patch+json' },
      body: { deliver_updates: null },
    });
    assert.equal(reset.json.deliver_updates, false);
  });

  it('when an event was delivered more than 30 days ago, then its changes bring no update', async () => {
    const party = await corpus.entity();
    const watching = await sensor(party, '/old', true);
    const eventId = await article(party, 0);
    await drain();
    await advance(31 * 24 * 60 * MINUTE);
    await article(party, 1, { incident_id: eventId });
    await drain();
    assert.deepEqual(
      (await received('/old', watching.signing_secret)).map((d) => d.type),
      ['event.matched'],
    );
  });
});
