// GET /ops/v1/metrics: the Prometheus text exposition of the process that answers, read as a
// scraper reads it, after the things each metric counts have happened through the API.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { declaredMetrics, scrape } from '../helpers/metrics.js';
import { PG_URL, ROOT, startServer, type TestServer } from '../helpers/server.js';
import { startDeliveryServer, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOW = '2026-11-20T12:00:00.000Z';
const REQUESTS = 'evmon_http_request_duration_seconds_count';

describe('metrics', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;

  // A database of its own: on PostgreSQL no server of another test file runs these jobs and
  // deliveries, whose counts are this process's.
  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(NOW));
  });
  after(() => close());

  it('when the operator token is missing or wrong, then 401 and no metrics', async () => {
    const missing = await server.http.get('/ops/v1/metrics');
    assert.equal(missing.status, 401);
    assert.equal(missing.json.type.endsWith('/invalid-api-key'), true);
    const wrong = await server.http.get('/ops/v1/metrics', bearer('not-the-token'));
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(wrong.text, /evmon_/);
  });

  it('when scraped, then every metric the README lists is there and no other, with process memory and event-loop delay', async () => {
    const metrics = await scrape(server.http);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Metrics'), readme.indexOf('\n## ', readme.indexOf('\n## Metrics') + 1));
    const listed = new Set([...section.matchAll(/^\| `([a-z0-9_]+)`/gm)].map((m) => m[1]!));
    const ours = declaredMetrics(metrics.text).filter((name) => name.startsWith('evmon_'));
    assert.deepEqual(ours.sort(), [...listed].filter((name) => name.startsWith('evmon_')).sort());
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok(listed.has(name), `README lists ${name}`);
      assert.ok(
        metrics.samples.some((sample) => sample.name === name && sample.value > 0),
        name,
      );
    }
    assert.ok(metrics.value('evmon_db_pool_connections', { pool: 'main' }) >= 1);
    if (PG_URL !== null) assert.ok(metrics.samples.some((sample) => sample.name === 'evmon_db_pool_connections' && sample.labels.pool === 'counters'));
  });

  it('when requests are answered, then the request histogram counts them by route pattern and status, never by their URL', async () => {
    const account = await corpus.account(0, ['SENSORS_READ']);
    const missingId = randomUUID();
    const unknownPath = `/v1/nowhere-${randomUUID()}`;
    const route = { method: 'GET', route: '/v1/sensors/:id', status_code: '404' };
    const before = await scrape(server.http);
    for (let i = 0; i < 3; i++) assert.equal((await server.http.get(`/v1/sensors/${missingId}`, bearer(account.key))).status, 404);
    assert.equal((await server.http.get('/v1/sensors', bearer(account.key))).status, 200);
    assert.equal((await server.http.get(unknownPath)).status, 404);
    const later = await scrape(server.http);
    assert.equal(later.value(REQUESTS, route) - before.value(REQUESTS, route), 3);
    assert.equal(later.value(REQUESTS, { route: '/v1/sensors', status_code: '200' }) - before.value(REQUESTS, { route: '/v1/sensors', status_code: '200' }), 1);
    assert.equal(later.value(REQUESTS, { route: 'unmatched', status_code: '404' }) - before.value(REQUESTS, { route: 'unmatched', status_code: '404' }), 1);
    // The scrape itself is a request like any other.
    assert.ok(later.value(REQUESTS, { route: '/ops/v1/metrics', status_code: '200' }) >= 1);
    assert.ok(later.value('evmon_http_request_duration_seconds_sum', route) > before.value('evmon_http_request_duration_seconds_sum', route));
    assert.ok(!later.text.includes(missingId) && !later.text.includes(unknownPath), 'no URL is a label');
  });

  it('when credits are granted, charged by a search and debited by the operator, then the credit counters move by those amounts', async () => {
    const before = await scrape(server.http);
    const account = await corpus.account(10, ['EVENTS_READ']);
    const type = await corpus.eventType();
    const search = await server.http.post('/v1/events/search', { lookback_days: 7, event_type_id: type.id }, bearer(account.key));
    assert.equal(search.status, 200, search.text);
    await corpus.ops('POST', `/accounts/${account.id}/credits`, { amount: -2, reason: 'correction' });
    await corpus.ops('POST', `/accounts/${account.id}/credits`, { amount: 5, reason: 'top-up' });
    assert.equal(await corpus.balance(account.id), 12);
    const later = await scrape(server.http);
    const moved = (name: string, labels: Record<string, string> = {}) => later.value(name, labels) - before.value(name, labels);
    assert.equal(moved('evmon_credits_granted_total'), 15);
    assert.equal(moved('evmon_credits_charged_total', { kind: 'SEARCH' }), 1);
    assert.equal(moved('evmon_credits_charged_total', { kind: 'ADJUSTMENT' }), 2);
    assert.equal(moved('evmon_credits_charged_total', { kind: 'BEAT_ENTRY' }), 0);
  });

  it('when an event changes, then its jobs show as backlog until run, the lag histogram observes each subscriber, and delivery outcomes and backlog are counted', async () => {
    const account = await corpus.account(0, ['SENSORS_READ', 'SENSORS_WRITE']);
    const type = await corpus.eventType();
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'metrics', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: receiver.url('/metrics') }] },
      bearer(account.key),
    );
    assert.equal(created.status, 201, created.text);
    const before = await scrape(server.http);
    const moved = (later: Awaited<ReturnType<typeof scrape>>, name: string, labels: Record<string, string> = {}) =>
      later.value(name, labels) - before.value(name, labels);

    // The server's job poller is held, so the change's jobs wait where a scrape can see them;
    // the operator's drain runs them.
    await server.runtime.jobs.stop();
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    await server.ops.post('/clock', { advance_seconds: 30 });
    const waiting = await scrape(server.http);
    for (const subscriber of ['sensors', 'beats']) {
      const kind = `corpus.event-changed:${subscriber}`;
      assert.equal(waiting.value('evmon_jobs_backlog', { kind }), 1, kind);
      assert.equal(waiting.value('evmon_jobs_backlog_age_seconds', { kind }), 30, 'due for 30 s by the service clock');
      assert.equal(waiting.value('evmon_jobs_running', { kind }), 0);
    }

    receiver.reply = () => ({ status: 503 });
    await server.ops.post('/drain');
    const refused = await scrape(server.http);
    for (const subscriber of ['sensors', 'beats']) {
      assert.equal(refused.value('evmon_jobs_backlog', { kind: `corpus.event-changed:${subscriber}` }), 0);
      assert.equal(moved(refused, 'evmon_event_change_lag_seconds_count', { subscriber }), 1, subscriber);
      assert.ok(moved(refused, 'evmon_event_change_lag_seconds_sum', { subscriber }) >= 0);
    }
    assert.equal(receiver.received.filter((r) => r.path === '/metrics').length, 1);
    assert.equal(moved(refused, 'evmon_webhook_attempts_total', { outcome: 'retry_scheduled' }), 1);
    assert.equal(refused.value('evmon_webhook_backlog', { state: 'scheduled' }), 1);
    assert.equal(refused.value('evmon_webhook_backlog', { state: 'due' }), 0);

    // Past the 5-second retry (with jitter) the target is due, and its age counts from then.
    receiver.reply = () => ({ status: 200 });
    await server.ops.post('/clock', { advance_seconds: 60 });
    const due = await scrape(server.http);
    assert.equal(due.value('evmon_webhook_backlog', { state: 'due' }), 1);
    assert.ok(due.value('evmon_webhook_backlog_age_seconds') >= 50);
    await server.ops.post('/drain');
    const delivered = await scrape(server.http);
    assert.equal(moved(delivered, 'evmon_webhook_attempts_total', { outcome: 'succeeded' }), 1);
    assert.equal(moved(delivered, 'evmon_webhook_attempts_total', { outcome: 'failed' }), 0);
    assert.equal(delivered.value('evmon_webhook_backlog', {}), 0);
    assert.equal(delivered.value('evmon_webhook_backlog_age_seconds'), 0);
  });

  it('when the database is gone, then a scrape still answers, without the backlogs it cannot read', async () => {
    const alone = await startServer();
    try {
      await alone.runtime.db.close();
      const metrics = await scrape(alone.http);
      assert.ok(metrics.value('process_resident_memory_bytes') > 0);
      for (const name of ['evmon_jobs_backlog', 'evmon_jobs_backlog_age_seconds', 'evmon_webhook_backlog', 'evmon_webhook_backlog_age_seconds']) {
        assert.equal(metrics.samples.filter((sample) => sample.name === name).length, 0, name);
      }
    } finally {
      await alone.close();
    }
  });
});
