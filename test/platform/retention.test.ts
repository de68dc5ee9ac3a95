// Retention (docs/api-reference.md, "Retention"): weeks of traffic on the test clock leave
// every table that grows with traffic level, nothing past its retention, and what must stay
// (deliveries within the log's 30 days, pending work) in place.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_PASSWORD, consoleClient } from '../helpers/console.js';
import { unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const START = '2026-12-01T00:00:00.000Z';
const HOUR = 3_600;
const DAY = 24 * HOUR;
/** Days of traffic: the longest retention (deliveries, 30 days after their latest attempt) and a week more. */
const DAYS = 40;
const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE', 'EVENTS_READ'];

/** Tables that traffic fills and a sweep empties, with how many days a row may stay at most. */
const SWEPT: Record<string, { days: number; overdue: string }> = {
  jobs: {
    days: 7,
    overdue: `SELECT count(*)::int AS n FROM jobs WHERE dedupe_key IS NULL
                AND ((status = 'done' AND finished_at < $1::timestamptz - interval '24 hours')
                  OR (status = 'failed' AND finished_at < $1::timestamptz - interval '168 hours'))`,
  },
  sensor_deliveries: {
    days: 32, // 30 after the latest attempt, which comes up to a day and a half after creation
    overdue: `SELECT count(*)::int AS n FROM sensor_deliveries d
               WHERE NOT EXISTS (SELECT 1 FROM sensor_delivery_targets t WHERE t.delivery_id = d.id AND t.status = 'PENDING')
                 AND GREATEST(d.created_at, (SELECT max(last_attempt_at) FROM sensor_delivery_targets t WHERE t.delivery_id = d.id))
                     < $1::timestamptz - interval '720 hours'`,
  },
  sensor_delivery_targets: {
    days: 32,
    overdue: `SELECT count(*)::int AS n FROM sensor_delivery_targets t WHERE NOT EXISTS (SELECT 1 FROM sensor_deliveries d WHERE d.id = t.delivery_id)`,
  },
  idempotency_claims: { days: 1, overdue: `SELECT count(*)::int AS n FROM idempotency_claims WHERE claimed_at <= $1::timestamptz - interval '24 hours'` },
  search_executions: { days: 8, overdue: `SELECT count(*)::int AS n FROM search_executions WHERE expires_at < $1::timestamptz - interval '168 hours'` },
  console_sessions: {
    days: 1,
    overdue: `SELECT count(*)::int AS n FROM console_sessions
               WHERE last_seen_at <= $1::timestamptz - interval '13 hours' OR created_at <= $1::timestamptz - interval '169 hours'`,
  },
  console_sign_in_failures: {
    days: 1,
    overdue: `SELECT count(*)::int AS n FROM console_sign_in_failures WHERE last_failure_at <= $1::timestamptz - interval '75 minutes'`,
  },
  // Kept 90 days but an event's latest (longer than this test's days: the next test shows them level off).
  event_revisions: {
    days: 90,
    overdue: `SELECT count(*)::int AS n FROM event_revisions o WHERE o.created_at < $1::timestamptz - interval '2160 hours'
                AND EXISTS (SELECT 1 FROM event_revisions n WHERE n.event_id = o.event_id AND n.revision > o.revision)`,
  },
  // Filled only on PostgreSQL, by budgets and the edge policy (off here); swept each minute.
  rate_counters: { days: 1, overdue: 'SELECT 0 AS n' },
  edge_bans: { days: 1, overdue: 'SELECT count(*)::int AS n FROM edge_bans WHERE banned_until <= $1::timestamptz' },
};

/** Tables kept whole, and why: none of them grows with traffic alone. */
const KEPT: Record<string, string> = {
  schema_migrations: 'one row per migration',
  settings: 'a few settings',
  plans: 'set by the operator',
  filter_versions: 'one row per kind of filter',
  accounts: 'customers',
  api_keys: 'customers, at most 10 active each',
  console_users: 'customers',
  sensors: 'customers',
  beats: 'customers',
  reporting_grants: 'customers',
  reporting_grant_pins: 'customers',
  reporting_grant_entities: 'customers',
  entity_lists: 'customers and the operator',
  entity_list_members: 'customers and the operator',
  credit_ledger: "the billing record: an account's balance is the sum of its rows",
  beat_entries: 'customer data: one row per (beat, event) ever, read within the plan retention',
  structured_reports: 'customer data: filed reports',
  sensor_sent_events: 'one small row per (sensor, event, kind) ever sent: what keeps event.matched to once',
  news_outlets: 'the corpus',
  entities: 'the corpus',
  event_types: 'the corpus',
  event_type_roles: 'the corpus',
  events: 'the corpus',
  reports: 'the corpus',
  event_participants: "the corpus: one row per event and participant, for clustering's look-up by entity and window",
  event_revision_heads: "the corpus: one row per event, its latest revision's number and counts",
  event_revision_states_kept:
    "an event row's columns as its latest revision left them, kept only within the transaction that changes the row (deleted when its revision is recorded)",
  event_day_counts: 'the corpus (search counts): folded each minute to one row per type, day and source count (search-counts.test.ts)',
  event_search_log_horizon: "one row: where the search index's change log was purged",
  event_search_log:
    "the search index's change log: swept an hour after the fact by the database's own clock (a margin for processes catching up in real time), which the test clock does not move; search-index.test.ts sweeps it",
};

describe('retention', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;
  let outlet: string;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(START));
    receiver.reply = (webhook) => ({ status: webhook.path.startsWith('/fail') ? 500 : 200 });
    outlet = await corpus.outlet();
  });
  after(() => close());

  const drain = () => server.ops.post('/drain');
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });
  const now = async () => (await server.ops.get('/clock')).now as string;
  const sql = <T = any>(text: string, params: unknown[] = []) => server.runtime.db.query<T>(text, params);

  async function sensor(key: string, filter: Record<string, unknown>, path: string) {
    const created = await server.http.post('/v1/sensors', { name: 'watch', filter, actions: [{ type: 'webhook', url: receiver.url(path) }] }, bearer(key));
    assert.equal(created.status, 201, created.text);
    return created.json as { id: string };
  }
  /** Every delivery in a sensor's log, through the API, newest first. */
  async function deliveryLog(key: string, sensorId: string): Promise<any[]> {
    const all: any[] = [];
    for (let after: string | null = null; ; ) {
      const page = await server.http.get(`/v1/sensors/${sensorId}/deliveries?limit=100${after ? `&starting_after=${after}` : ''}`, bearer(key));
      assert.equal(page.status, 200, page.text);
      all.push(...page.json.data);
      if (!page.json.has_more) return all;
      after = page.json.next_cursor;
    }
  }
  const article = (typeId: string, extra: Record<string, unknown> = {}) =>
    corpus.entity().then((entity) => corpus.article({ outlet_id: outlet, event_type_id: typeId, roles: [{ role: 'party', entity_id: entity }], ...extra }));
  const webhookIds = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id']!);

  async function tableCounts(): Promise<Record<string, number>> {
    const tables = await sql<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`);
    const rows = await sql<{ name: string; n: number }>(
      tables.map(({ name }) => `SELECT '${name}' AS name, count(*)::int AS n FROM ${name}`).join(' UNION ALL '),
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.n]));
  }
  /** Each table's size on disk with its indexes. */
  async function tableBytes(): Promise<Record<string, number>> {
    const rows = await sql<{ name: string; bytes: string }>(
      `SELECT tablename AS name, pg_total_relation_size(quote_ident(tablename))::text AS bytes FROM pg_tables WHERE schemaname = current_schema()`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
  }

  it(`when ${DAYS} days of traffic run on the test clock, then every table traffic fills levels off and nothing outlives its retention`, async (t) => {
    const account = await corpus.account(1_000, SCOPES);
    const type = await corpus.eventType();
    const ok = await sensor(account.key, { event_type_id: type.id }, '/ok');
    await sensor(account.key, { event_type_id: type.id }, '/fail');
    const receivedOn: string[][] = []; // webhook-ids that reached /ok, by day

    const daily: Record<string, number>[] = [];
    const dailyBytes: Record<string, number>[] = [];
    for (let day = 0; day < DAYS; day++) {
      const seenBefore = new Set(webhookIds('/ok'));
      // Two events, each delivered to both sensors: one receiver answers, the other fails
      // through its whole retry schedule (a day and a half).
      await article(type.id);
      await article(type.id);
      // Idempotent POSTs: a test delivery and a charged search.
      const test = await server.http.request('POST', `/v1/sensors/${ok.id}/test`, { headers: { ...bearer(account.key), 'idempotency-key': unique() } });
      assert.equal(test.status, 201, test.text);
      const search = await server.http.request('POST', '/v1/events/search', {
        headers: { ...bearer(account.key), 'idempotency-key': unique() },
        body: { lookback_days: 7 },
      });
      assert.equal(search.status, 200, search.text);
      // The console: two failed sign-ins for emails nobody has, one user who signs out, one
      // who leaves a session to expire.
      const stranger = consoleClient(server.http);
      for (let i = 0; i < 2; i++) assert.equal((await stranger.signIn(`nobody.${unique()}@example.com`, 'not the password')).status, 400);
      for (const signsOut of [true, false]) {
        const email = `user.${unique()}@example.com`;
        await server.ops.post(`/accounts/${account.id}/console-users`, { email, password: CONSOLE_PASSWORD });
        const browser = consoleClient(server.http);
        assert.equal((await browser.signIn(email)).status, 303);
        assert.equal((await browser.get('/console/credits')).status, 200);
        if (signsOut) assert.equal((await browser.post('/console/sign-out')).status, 303);
      }
      await drain();
      receivedOn.push(webhookIds('/ok').filter((id) => !seenBefore.has(id)));

      const counts = await tableCounts();
      daily.push(counts);
      dailyBytes.push(await tableBytes());
      const at = await now();
      for (const [table, { overdue }] of Object.entries(SWEPT)) {
        const [row] = await sql<{ n: number }>(overdue, overdue.includes('$1') ? [at] : []);
        assert.equal(row!.n, 0, `day ${day}: ${table} holds ${row!.n} rows past retention`);
      }
      // The rest of the day, three hours at a time: retries come due, and sweeps run.
      for (let step = 0; step < 8; step++) {
        await advance(3 * HOUR);
        await drain();
      }
    }

    const last = daily.at(-1)!;
    const unclassified = Object.keys(last).filter((table) => !(table in SWEPT) && !(table in KEPT));
    assert.deepEqual(unclassified, [], 'every table is either swept or kept on purpose');
    for (const [table, { days }] of Object.entries(SWEPT)) {
      if (!(table in last)) continue;
      const first = daily[0]![table]!; // one day of traffic (and the set-up)
      const settled = Math.min(DAYS - 1, days + 1);
      for (const [day, counts] of daily.entries()) {
        assert.ok(
          counts[table]! <= Math.max(first, 3) * (days + 2),
          `day ${day}: ${table} has ${counts[table]} rows, over ${days + 2} days of traffic (${first} a day)`,
        );
      }
      assert.ok(
        last[table]! <= daily[settled]![table]! + first,
        `${table} kept growing: ${daily[settled]![table]} on day ${settled}, ${last[table]} on day ${DAYS - 1}`,
      );
    }
    for (const table of [
      'jobs',
      'sensor_deliveries',
      'sensor_delivery_targets',
      'idempotency_claims',
      'search_executions',
      'console_sessions',
      'console_sign_in_failures',
    ]) {
      assert.ok(last[table]! > 0, `${table} had traffic`);
    }
    // Rows the log no longer holds did exist: 40 days of deliveries were made, 30 are kept.
    assert.ok(last.sensor_deliveries! < 5 * DAYS - 5 * 5, `deliveries were swept: ${last.sensor_deliveries}`);

    // The delivery log, through the API: the last 30 days' deliveries are all there, older ones gone.
    const log = new Set((await deliveryLog(account.key, ok.id)).map((d) => d.id));
    for (const [day, ids] of receivedOn.entries()) {
      assert.equal(ids.length, 3, `day ${day}: two events and a test reached /ok`);
      const age = DAYS - day; // days since, at the end
      for (const id of ids) {
        if (age <= 30) assert.ok(log.has(id), `a delivery of day ${day} (${age} days ago) is listed`);
        else assert.ok(!log.has(id), `a delivery of day ${day} (${age} days ago) has left the log`);
      }
    }

    // The embedded database has no autovacuum: the sweeper's VACUUM is what lets the space of
    // deleted rows be used again, so the files stop growing too (within a page or two).
    // PostgreSQL's autovacuum runs on its own schedule, so its sizes are only reported.
    const lastBytes = dailyBytes.at(-1)!;
    if (server.runtime.db.kind === 'pglite') {
      for (const [table, { days }] of Object.entries(SWEPT)) {
        const settled = Math.min(DAYS - 1, days + 1);
        assert.ok(
          lastBytes[table]! <= dailyBytes[settled]![table]! + 16_384,
          `${table}: ${dailyBytes[settled]![table]} bytes on day ${settled}, ${lastBytes[table]} at the end`,
        );
      }
    }

    // The figure for bench/RESULTS.md: rows per table on days 1, 11, 21, 31 and 40 of traffic,
    // and its size with its indexes on the same days.
    const shown = [0, 10, 20, 30, DAYS - 1];
    t.diagnostic(`${server.runtime.db.kind}: table | rows on days ${shown.map((d) => d + 1).join(', ')} | kB on the same days`);
    for (const name of Object.keys(last)) {
      t.diagnostic(`${name} | ${shown.map((d) => daily[d]![name]).join(', ')} | ${shown.map((d) => dailyBytes[d]![name]! / 1024).join(', ')}`);
    }
  });

  it('when an event gains a report every five days for 150 days, then its revisions level off at 90 days of them, the latest always kept', async () => {
    const type = await corpus.eventType();
    const party = await corpus.entity();
    const body = () => ({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: party }] });
    const eventId = await corpus.article(body());
    const kept: number[] = [];
    for (let day = 5; day <= 150; day += 5) {
      await advance(5 * DAY);
      assert.equal(await corpus.article({ ...body(), published_at: await now(), incident_id: eventId }), eventId);
      await drain();
      const [row] = await sql<{ n: number; latest: number }>(
        'SELECT count(*)::int AS n, max(revision)::int AS latest FROM event_revisions WHERE event_id = $1',
        [eventId],
      );
      assert.equal(row!.latest, day / 5 + 1, 'every report made a revision');
      kept.push(row!.n);
    }
    // Revisions of the last 90 days (18 or 19 of them, at five-day steps) and never more.
    assert.ok(Math.max(...kept) <= 19, `revisions kept: ${kept.join(', ')}`);
    assert.deepEqual(kept.slice(-10), Array(10).fill(kept.at(-1)), `level after 90 days: ${kept.join(', ')}`);
  });

  it('when a delivery was last attempted under 30 days ago, then it is listed and redeliverable, and a redelivery starts its 30 days again; after them it is gone', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const path = `/kept-${unique()}`;
    const watching = await sensor(account.key, { event_type_id: type.id }, path);
    await article(type.id);
    await drain();
    const [delivery] = await deliveryLog(account.key, watching.id);
    assert.equal(delivery.status, 'SUCCEEDED');

    await advance(30 * DAY - 1);
    await drain();
    assert.deepEqual(
      (await deliveryLog(account.key, watching.id)).map((d) => d.id),
      [delivery.id],
    );
    const redeliver = () => server.http.request('POST', `/v1/sensors/${watching.id}/deliveries/${delivery.id}/redeliver`, { headers: bearer(account.key) });
    assert.equal((await redeliver()).status, 200);
    await drain();
    assert.equal(webhookIds(path).length, 2, 'delivered again');

    await advance(30 * DAY - 1); // 60 days after it was made, 30 days less a second after its latest attempt
    await drain();
    const [kept] = await deliveryLog(account.key, watching.id);
    assert.equal(kept?.id, delivery.id);
    assert.equal(kept.status, 'SUCCEEDED');

    await advance(2);
    await drain();
    assert.deepEqual(await deliveryLog(account.key, watching.id), []);
    assert.equal((await redeliver()).status, 404);
  });

  it('when a delivery has left the log, then its event still never brings a second event.matched, and a merge of it still brings event.merged', async () => {
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const path = `/once-${unique()}`;
    const watching = await sensor(account.key, { event_type_id: type.id }, path);
    const eventId = await article(type.id);
    await drain();
    await advance(31 * DAY);
    await drain();
    assert.deepEqual(await deliveryLog(account.key, watching.id), [], 'the delivery has left the log');

    await article(type.id, { incident_id: eventId }); // the event changes: matching runs again
    const survivor = await article(type.id);
    await drain();
    const merged = await corpus.ops('POST', `/events/${eventId}/merge`, { into_event_id: survivor });
    assert.equal(merged.status, 200, merged.text);
    await drain();
    const sent = receiver.received.filter((r) => r.path === path).map((r) => [r.json.type, r.json.data.event?.id ?? null, r.json.data.event_id ?? null]);
    assert.deepEqual(sent, [
      ['event.matched', eventId, null],
      ['event.matched', survivor, null],
      ['event.merged', survivor, eventId],
    ]);
  });

  it('when work is still pending, then no sweep removes it however old; a job is removed a day after it is done, a week after it failed for good', async () => {
    const { jobs, db } = server.runtime;
    const kind = (name: string) => `test.retention-${name}-${unique()}`;
    const [later, done, failed] = [kind('later'), kind('done'), kind('failed')];
    jobs.register(later, async () => {});
    jobs.register(done, async () => {});
    jobs.register(failed, async () => Promise.reject(new Error('never works')), { maxAttempts: 1 });
    await jobs.enqueue(db, later, {}, { runAt: new Date(Date.parse(await now()) + 365 * DAY * 1000) });
    await jobs.enqueue(db, done, {});
    await jobs.enqueue(db, failed, {});
    await drain();
    assert.deepEqual([await jobs.counts(later), await jobs.counts(done), await jobs.counts(failed)], [{ pending: 1 }, { done: 1 }, { failed: 1 }]);
    await advance(DAY + 1);
    await drain();
    assert.deepEqual([await jobs.counts(later), await jobs.counts(done), await jobs.counts(failed)], [{ pending: 1 }, {}, { failed: 1 }]);
    await advance(6 * DAY);
    await drain();
    assert.deepEqual([await jobs.counts(later), await jobs.counts(failed)], [{ pending: 1 }, {}]);

    // A delivery still on its retry schedule, 31 days on: the sweep alone (a drain would
    // attempt it first) leaves it pending.
    const account = await corpus.account(0, SCOPES);
    const type = await corpus.eventType();
    const watching = await sensor(account.key, { event_type_id: type.id }, `/fail-${unique()}`);
    await article(type.id);
    await drain();
    await advance(31 * DAY);
    await server.runtime.retention.sweep();
    const [pending] = await deliveryLog(account.key, watching.id);
    assert.equal(pending?.status, 'PENDING');
    assert.equal(pending.attempts, 1);
    assert.deepEqual(await jobs.counts(later), { pending: 1 });
  });
});
