import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import selfsigned from 'selfsigned';
import type { TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE'];

describe('sensor deliveries', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let outlet: string;
  let close: () => Promise<void>;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(NOW));
    outlet = await corpus.outlet();
  });
  after(() => close());

  const drain = () => server.ops.post('/drain');
  const now = async () => (await server.ops.get('/clock')).now as string;
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });

  async function sensor(key: string, filter: Record<string, unknown>, path: string, extra: Record<string, unknown> = {}) {
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'watch', filter, actions: [{ type: 'webhook', url: receiver.url(path) }], ...extra },
      bearer(key),
    );
    assert.equal(created.status, 201, created.text);
    return created.json;
  }
  const received = (path: string) => receiver.received.filter((r) => r.path === path);
  const deliveries = async (key: string, sensorId: string) => {
    const list = await server.http.get(`/v1/sensors/${sensorId}/deliveries`, bearer(key));
    assert.equal(list.status, 200, list.text);
    return list.json.data;
  };

  it('when articles arrive in bulk, then each matched event is delivered once, counting every report of the batch', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const watching = await sensor(account.key, { event_type_id: type.id }, '/bulk');
    const [one, two] = [await corpus.entity(), await corpus.entity()];
    const line = (party: string, at: string) =>
      JSON.stringify({ outlet_id: outlet, event_type_id: type.id, published_at: at, roles: [{ role: 'party', entity_id: party }] });
    const bulk = await corpus.bulk([line(one, '2026-11-20T08:00:00Z'), line(one, '2026-11-20T09:00:00Z'), line(two, '2026-11-20T10:00:00Z')]);
    const [first, , third] = bulk.results.map((r: any) => r.incident_id);
    await drain();
    const payloads = received('/bulk').map((webhook) => verifyWebhook(watching.signing_secret, webhook, NOW) as any);
    assert.deepEqual(payloads.map((p) => p.data.event.id).sort(), [first, third].sort());
    const firstEvent = payloads.find((p) => p.data.event.id === first).data.event;
    assert.equal(firstEvent.matched_report_count, 2, JSON.stringify(firstEvent));

    // A later batch adds a report to a delivered event and opens a new one; a second sensor
    // sees both for the first time: each sensor gets each event it was never sent, once.
    const also = await sensor(account.key, { event_type_id: type.id }, '/bulk-also');
    // Found by its outlet alone: the matching reads the events' outlets from their sources.
    const byOutlet = await sensor(account.key, { required_source_news_outlet_ids: [outlet] }, '/bulk-outlet');
    // An event of another type: no sensor but the outlet's is found by it.
    const elsewhere = JSON.stringify({
      outlet_id: outlet,
      event_type_id: (await corpus.eventType()).id,
      published_at: '2026-11-20T12:30:00Z',
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
    });
    const later = await corpus.bulk([line(one, '2026-11-20T11:00:00Z'), line(await corpus.entity(), '2026-11-20T12:00:00Z'), elsewhere]);
    const [again, fresh, other] = later.results.map((r: any) => r.incident_id);
    assert.equal(again, first, 'the report joins the delivered event');
    await drain();
    const secrets: Record<string, string> = { '/bulk': watching.signing_secret, '/bulk-also': also.signing_secret, '/bulk-outlet': byOutlet.signing_secret };
    const events = (path: string) => received(path).map((webhook) => (verifyWebhook(secrets[path]!, webhook, NOW) as any).data.event.id);
    assert.deepEqual(events('/bulk').sort(), [first, third, fresh].sort(), 'the first sensor: only the new event');
    assert.deepEqual(events('/bulk-also').sort(), [first, fresh].sort(), 'the second: both events of its batch');
    assert.deepEqual(events('/bulk-outlet').sort(), [first, fresh, other].sort(), 'the one found by its outlet: every event of its outlet');
  });

  it('when an event matches, then one signed event.matched delivery arrives, verified by a Standard Webhooks library, and never a second', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const entity = await corpus.entity();
    const watching = await sensor(account.key, { involved_entity_ids: [entity] }, '/one');
    const eventId = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    await drain();
    const [webhook] = received('/one');
    assert.ok(webhook, 'delivered');
    const payload = verifyWebhook(watching.signing_secret, webhook, await now()) as any;
    assert.equal(payload.type, 'event.matched');
    assert.equal(payload.data.sensor_id, watching.id);
    assert.equal(payload.data.event.id, eventId);
    assert.equal(payload.data.event.object, 'event');
    assert.deepEqual(payload.data.event.event_type, { code_name: type.code_name });
    assert.equal(typeof payload.timestamp, 'string');
    assert.equal(webhook.headers['content-type'], 'application/json');
    assert.equal(webhook.headers['webhook-timestamp'], String(Math.floor(Date.parse(await now()) / 1000)));

    // A second report on the same event: matched again, delivered never again.
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, incident_id: eventId, roles: [{ role: 'party', entity_id: entity }] });
    await drain();
    assert.equal(received('/one').length, 1);
    const [delivery] = await deliveries(account.key, watching.id);
    assert.equal(delivery.id, webhook.headers['webhook-id']);
    assert.equal(delivery.object, 'sensor_delivery');
    assert.equal(delivery.type, 'event.matched');
    assert.equal(delivery.event_id, eventId);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.equal(delivery.next_attempt_at, null);
  });

  it('when events do not match, or the sensor is disabled, then nothing is delivered', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const [watched, other] = [await corpus.entity(), await corpus.entity()];
    const active = await sensor(account.key, { involved_entity_ids: [watched], min_reports: 2 }, '/none-a');
    const off = await sensor(account.key, { involved_entity_ids: [watched] }, '/none-b', { enabled: false });
    assert.equal(off.enabled, false);
    const eventId = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: watched }] });
    await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: other }] });
    await drain();
    assert.equal(received('/none-a').length, 0, 'one outlet is below min_reports 2');
    assert.equal(received('/none-b').length, 0, 'disabled');
    assert.deepEqual(await deliveries(account.key, active.id), []);

    // A second outlet makes it match; a sensor enabled afterwards still gets nothing for it
    // until the event changes again (no backfill, no catch-up).
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, incident_id: eventId, roles: [{ role: 'party', entity_id: watched }] });
    await drain();
    assert.equal(received('/none-a').length, 1);
    const enabled = await server.http.post(`/v1/sensors/${off.id}/enable`, undefined, bearer(account.key));
    assert.equal(enabled.status, 200, enabled.text);
    await drain();
    assert.equal(received('/none-b').length, 0, 'no catch-up on enable');
  });

  it('when the receiver fails, then retries follow the schedule on the test clock with a stable webhook-id, Retry-After honoured, and FAILED after the last', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const entity = await corpus.entity();
    const watching = await sensor(account.key, { event_type_id: type.id }, '/retry');
    let answer = { status: 500 } as { status: number; headers?: Record<string, string> };
    const previous = receiver.reply;
    receiver.reply = (request) => (request.path === '/retry' ? answer : previous(request));
    try {
      await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
      await drain();
      assert.equal(received('/retry').length, 1);
      let [delivery] = await deliveries(account.key, watching.id);
      assert.equal(delivery.status, 'PENDING');
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.last_status_code, 500);
      const firstAt = Date.parse(delivery.last_attempt_at);
      const wait = Date.parse(delivery.next_attempt_at) - firstAt;
      assert.ok(wait >= 4_000 && wait <= 6_000, `first retry after 5 s ±20%, got ${wait} ms`);

      await drain();
      assert.equal(received('/retry').length, 1, 'not due yet');
      await advance(wait / 1000);
      answer = { status: 429, headers: { 'retry-after': '3600' } };
      await drain();
      assert.equal(received('/retry').length, 2);
      [delivery] = await deliveries(account.key, watching.id);
      assert.equal(delivery.attempts, 2);
      assert.equal(delivery.last_status_code, 429);
      assert.equal(Date.parse(delivery.next_attempt_at) - Date.parse(delivery.last_attempt_at), 3_600_000, 'Retry-After lengthens the 5-minute step');

      // The remaining steps: 1 h (Retry-After), then 30 min, 2 h, 5 h, 10 h, 10 h, each ±20%; a
      // Retry-After shorter than the step does not shorten it.
      answer = { status: 503, headers: { 'retry-after': '1' } };
      const steps = [3600, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
      for (const [i, step] of steps.entries()) {
        [delivery] = await deliveries(account.key, watching.id);
        const gap = (Date.parse(delivery.next_attempt_at) - Date.parse(delivery.last_attempt_at)) / 1000;
        if (i > 0) assert.ok(gap >= step * 0.8 && gap <= step * 1.2, `step ${i}: ${gap} s for ${step} s`);
        await advance(gap);
        await drain();
        assert.equal(received('/retry').length, 3 + i);
      }
      [delivery] = await deliveries(account.key, watching.id);
      assert.equal(delivery.status, 'FAILED');
      assert.equal(delivery.attempts, 8);
      assert.equal(delivery.next_attempt_at, null);
      await advance(86_400);
      await drain();
      assert.equal(received('/retry').length, 8, 'nothing after FAILED');
      const ids = new Set(received('/retry').map((r) => r.headers['webhook-id']));
      assert.deepEqual([...ids], [delivery.id], 'one webhook-id across every attempt');
      const bodies = new Set(received('/retry').map((r) => r.body));
      assert.equal(bodies.size, 1, 'the same body every time');
      for (const attempt of received('/retry')) verifyWebhook(watching.signing_secret, attempt, Number(attempt.headers['webhook-timestamp']) * 1000);
    } finally {
      receiver.reply = previous;
    }
  });

  it('when the secret is rotated, then for 24 hours deliveries carry both signatures, then only the new one', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const watching = await sensor(account.key, { event_type_id: type.id }, '/rotate');
    const rotated = await server.http.post(`/v1/sensors/${watching.id}/rotate-secret`, undefined, bearer(account.key));
    assert.equal(rotated.status, 200, rotated.text);
    const newSecret = rotated.json.signing_secret as string;
    assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(newSecret, watching.signing_secret);
    const event = async () => corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });

    await event();
    await drain();
    const [during] = received('/rotate');
    assert.ok(during);
    assert.equal(during.headers['webhook-signature']!.split(' ').length, 2);
    verifyWebhook(newSecret, during, await now());
    verifyWebhook(watching.signing_secret, during, await now());

    await advance(24 * 3600 + 1);
    await event();
    await drain();
    const [, afterwards] = received('/rotate');
    assert.ok(afterwards);
    assert.equal(afterwards.headers['webhook-signature']!.split(' ').length, 1);
    verifyWebhook(newSecret, afterwards, await now());
    const later = await now();
    assert.throws(() => verifyWebhook(watching.signing_secret, afterwards, later), /No matching signature/);
  });

  it('when a delivered event is merged into another, then the sensor gets event.merged with the survivor', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const entity = await corpus.entity();
    const watching = await sensor(account.key, { involved_entity_ids: [entity] }, '/merge');
    const merged = await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    const survivor = await corpus.article({
      outlet_id: await corpus.outlet(),
      event_type_id: type.id,
      roles: [{ role: 'party', entity_id: await corpus.entity() }],
      happened_at: 'elsewhere',
    });
    await drain();
    assert.equal(received('/merge').length, 1);
    const answer = await corpus.ops('POST', `/events/${merged}/merge`, { into_event_id: survivor });
    assert.equal(answer.status, 200, answer.text);
    await drain();
    const bodies = received('/merge').map((r) => verifyWebhook(watching.signing_secret, r, Number(r.headers['webhook-timestamp']) * 1000) as any);
    const mergedNote = bodies.find((b) => b.type === 'event.merged');
    assert.ok(mergedNote, JSON.stringify(bodies));
    assert.deepEqual(
      {
        sensor_id: mergedNote.data.sensor_id,
        event_id: mergedNote.data.event_id,
        merged_into_event_id: mergedNote.data.merged_into_event_id,
        event: mergedNote.data.event.id,
      },
      { sensor_id: watching.id, event_id: merged, merged_into_event_id: survivor, event: survivor },
    );
    // The survivor now carries the watched entity: it matches, once.
    assert.equal(bodies.filter((b) => b.type === 'event.matched' && b.data.event.id === survivor).length, 1);
    assert.equal(bodies.length, 3);
  });

  it('when the receiver answers a redirect, then it is not followed: the attempt failed and is retried later', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const watching = await sensor(account.key, { event_type_id: type.id }, '/redirect');
    const previous = receiver.reply;
    receiver.reply = (request) => (request.path === '/redirect' ? { status: 307, headers: { location: receiver.url('/redirected') } } : previous(request));
    try {
      await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
      await drain();
      assert.equal(received('/redirect').length, 1);
      assert.equal(received('/redirected').length, 0, 'not followed');
      const [delivery] = await deliveries(account.key, watching.id);
      assert.equal(delivery.status, 'PENDING');
      assert.equal(delivery.last_status_code, 307);
      assert.equal(delivery.last_error, 'the webhook answered 307');
    } finally {
      receiver.reply = previous;
    }
  });

  it('when the receiver takes longer than 15 seconds, then the attempt fails as a timeout and is retried', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const watching = await sensor(account.key, { event_type_id: type.id }, '/timeout');
    const previous = receiver.reply;
    receiver.reply = (request) => (request.path === '/timeout' ? { status: 200, delayMs: 16_000 } : previous(request));
    try {
      await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
      await drain(); // waits for the attempt: about 15 s of real time
      assert.equal(received('/timeout').length, 1);
      const [delivery] = await deliveries(account.key, watching.id);
      assert.equal(delivery.status, 'PENDING');
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.last_status_code, null);
      assert.equal(delivery.last_error, 'no answer within 15 seconds');
    } finally {
      receiver.reply = previous;
    }
  });
  it('when an attempt gets no answer for another reason, then last_error says so in the documented words, never in the words of the transport', async () => {
    // A port with nothing listening; a TLS server whose certificate no CA vouches for (the
    // service's own self-signed one is not among the trusted); a server that closes at once.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
    const untrusted = tls.createServer({ cert: pems.cert, key: pems.private }, (socket) => socket.end());
    await new Promise<void>((resolve) => untrusted.listen(0, '127.0.0.1', resolve));
    const hangUp = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    const port = (s: net.Server) => (s.address() as net.AddressInfo).port;
    try {
      const expected: [string, string][] = [
        [`https://127.0.0.1:${refusedPort}/hook`, 'the connection was refused'],
        [`https://localhost:${port(untrusted)}/hook`, "the webhook's TLS certificate was not accepted"],
        [`https://127.0.0.1:${port(hangUp)}/hook`, 'the connection failed before an answer'],
      ];
      for (const [url, wording] of expected) {
        const account = await corpus.account(0, SCOPES);
        const type = await corpus.eventType();
        const created = await server.http.post(
          '/v1/sensors',
          { name: 'unreachable', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url }] },
          bearer(account.key),
        );
        assert.equal(created.status, 201, created.text);
        await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
        await drain();
        const [delivery] = await deliveries(account.key, created.json.id);
        assert.equal(delivery.attempts, 1, url);
        assert.equal(delivery.last_status_code, null, url);
        assert.equal(delivery.last_error, wording, url);
      }
    } finally {
      untrusted.close();
      hangUp.close();
    }
  });
});
