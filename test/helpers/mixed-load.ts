// A mixed load for fault tests (a database that goes away, processes killed), and the
// invariants checked after it: billed searches, articles, reports, beat polls and sensor edits
// from several clients at once against whichever servers are up; then, after a drain, every
// balance equals its ledger, each execution a client saw is charged once, every acknowledged
// article and report exists, every matching event is delivered signed, and beat entries equal
// their charges (the opening grant is in the ledger too). Seeded, so a failing run can be repeated.
import assert from 'node:assert/strict';
import { testCorpus, unique } from './corpus.js';
import { bearer, type HttpClient, type HttpResponse } from './http.js';
import { dealType, REPORT_SCOPES } from './reporting.js';
import { OPS_TOKEN, type SpawnedServer } from './server.js';
import { verifyWebhook, type WebhookReceiver } from './webhook-receiver.js';

/** mulberry32: a small seeded generator; the same seed gives the same run of choices. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CREDITS = 1_000_000;
const ENTITIES = 30;

export interface World {
  plan: string;
  typeId: string;
  dealTypeId: string;
  outlet: string;
  entities: string[];
  searcher: { id: string; key: string };
  reporter: { id: string; key: string };
  watcher: { id: string; key: string };
  sensor: { id: string; secret: string; path: string };
  beatId: string;
}

/** An event type watched by one sensor (to `receiver`) and one beat, and the accounts that load it. */
export async function buildWorld(server: SpawnedServer, receiver: WebhookReceiver): Promise<World> {
  const corpus = testCorpus(server);
  // A plan like the standard one without its per-key request budget, which the load would spend.
  const standard = (await server.ops.get('/plans')).data.find((plan: { name: string }) => plan.name === 'standard');
  const { object: _object, name: _name, ...fields } = standard;
  const plan = `load_${unique()}`;
  const put = await corpus.ops('PUT', `/plans/${plan}`, { ...fields, rest_requests_per_minute: 1_000_000 });
  assert.equal(put.status, 200, put.text);
  const type = await corpus.eventType();
  const deal = await dealType(corpus);
  const outlet = await corpus.outlet();
  const entities: string[] = [];
  for (let i = 0; i < ENTITIES; i++) entities.push(await corpus.entity());
  const searcher = await corpus.account(CREDITS, ['EVENTS_READ'], plan);
  const reporterAccount = await corpus.ops('POST', '/accounts', { display_name: 'Load reporter', plan, entitlements: { structured_reporting: true } });
  assert.equal(reporterAccount.status, 201, reporterAccount.text);
  const reporterKey = await corpus.ops('POST', `/accounts/${reporterAccount.json.id}/api-keys`, { name: 'load', scopes: REPORT_SCOPES });
  assert.equal(reporterKey.status, 201, reporterKey.text);
  const reporter = { id: reporterAccount.json.id as string, key: reporterKey.json.key as string };
  const watcher = await corpus.account(CREDITS, ['SENSORS_READ', 'SENSORS_WRITE', 'BEATS_READ', 'BEATS_WRITE'], plan, { beats: true });
  const path = `/load-${unique()}`;
  const sensor = await server.http.post(
    '/v1/sensors',
    { name: 'Load', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: receiver.url(path) }] },
    bearer(watcher.key),
  );
  assert.equal(sensor.status, 201, sensor.text);
  const beat = await server.http.post('/v1/beats', { name: 'Load', clauses: [{ event_type_id: type.id }], spend_cap_credits: CREDITS }, bearer(watcher.key));
  assert.equal(beat.status, 201, beat.text);
  return {
    plan,
    typeId: type.id,
    dealTypeId: deal.id,
    outlet,
    entities,
    searcher,
    reporter,
    watcher,
    sensor: { id: sensor.json.id, secret: sensor.json.signing_secret, path },
    beatId: beat.json.id,
  };
}

export interface LoadLog {
  /** "search 200", "article 503", "report network error"…: how each request ended. */
  outcomes: Record<string, number>;
  /** Answers no fault allows (a 500, an answer of the wrong kind), described. */
  unexpected: string[];
  /** Execution ids of searches answered 200. */
  executions: string[];
  /** Event ids of articles answered 201. */
  events: string[];
  /** Ids of reports answered 201. */
  reports: string[];
}

type Op = (client: HttpClient) => Promise<{
  response: HttpResponse;
  allowed: number[];
  onSuccess?: (json: any) => void;
  /** What was made or changed, read at once through `other`: null when there is nothing to read. */
  readBack?: (json: any, other: HttpClient) => Promise<HttpResponse> | null;
  /** Whether what was read back is at least as new as what was answered (when the read alone cannot tell). */
  fresh?: (answered: any, read: any) => boolean;
}>;

export interface LoadOptions {
  workers: number;
  /** Whether a request may end without an answer (its process killed). */
  networkErrorsAllowed: boolean;
  /**
   * Each create or change answered is read back at once through `other(client)` (another
   * process than the one that made it), and must be found (200); its outcome is counted as
   * "<op> read back <status>". Only 2xx is allowed then: no fault of the database is expected.
   */
  readBack?: (client: HttpClient) => HttpClient;
}

/**
 * Sends the mix from `workers` clients until stopped, each request to the server `pick` gives
 * (null: none is up now; the client waits). 503 is allowed everywhere (the database went
 * away before anything was done), 502 on the billed search (its commit in doubt).
 */
export function startLoad(
  world: World,
  pick: () => HttpClient | null,
  random: () => number,
  options: LoadOptions,
): { stop(): Promise<LoadLog>; outcomes(): Record<string, number> } {
  const log: LoadLog = { outcomes: {}, unexpected: [], executions: [], events: [], reports: [] };
  const entity = () => world.entities[Math.floor(random() * world.entities.length)]!;
  const ops: [string, number, Op][] = [
    [
      'search',
      0.3,
      async (client) => ({
        response: await client.post(
          '/v1/events/search',
          { event_type_id: world.typeId, lookback_days: 30, limit: 5 },
          { ...bearer(world.searcher.key), 'idempotency-key': unique() },
        ),
        allowed: [200, 502, 503],
        onSuccess: (json) => log.executions.push(json.execution_id),
        // Its next page: the execution, just charged, continued through another process.
        readBack: (json, other) => (json.next_cursor ? other.post('/v1/events/search', { cursor: json.next_cursor }, bearer(world.searcher.key)) : null),
      }),
    ],
    [
      'article',
      0.25,
      async (client) => ({
        response: await client.post(
          '/ops/v1/articles',
          { outlet_id: world.outlet, event_type_id: world.typeId, roles: [{ role: 'party', entity_id: entity() }] },
          bearer(OPS_TOKEN),
        ),
        allowed: [201, 503],
        onSuccess: (json) => log.events.push(json.incident_id),
        readBack: (json, other) => other.get(`/v1/events/${json.incident_id}`, bearer(world.searcher.key)),
      }),
    ],
    [
      'report',
      0.15,
      async (client) => ({
        response: await client.post(
          '/v1/reports',
          {
            event_type_id: world.dealTypeId,
            happened_at: '2026-11-19T08:30:00Z',
            roles: [
              { role: 'acquirer', entity_id: entity() },
              { role: 'target', entity_id: entity() },
            ],
          },
          { ...bearer(world.reporter.key), 'idempotency-key': unique() },
        ),
        allowed: [201, 503],
        onSuccess: (json) => log.reports.push(json.id),
        readBack: (json, other) => other.get(`/v1/reports/${json.id}`, bearer(world.reporter.key)),
      }),
    ],
    [
      'beat poll',
      0.15,
      async (client) => ({
        response: await client.post(`/v1/beats/${world.beatId}/entries`, { since: '', limit: 10 }, bearer(world.watcher.key)),
        allowed: [200, 503],
      }),
    ],
    [
      'sensor edit',
      0.15,
      async (client) => ({
        response: await client.request('PATCH', `/v1/sensors/${world.sensor.id}`, {
          headers: bearer(world.watcher.key),
          body: { description: `edit ${unique()}` },
        }),
        allowed: [200, 503],
        readBack: (_json, other) => other.get(`/v1/sensors/${world.sensor.id}`, bearer(world.watcher.key)),
        // Other clients edit it too, so a later edit may be read; never an earlier one.
        fresh: (answered, read) => read.updated_at >= answered.updated_at,
      }),
    ],
  ];
  const choose = (): [string, Op] => {
    let roll = random();
    for (const [name, share, op] of ops) {
      if (roll < share) return [name, op];
      roll -= share;
    }
    return [ops[0]![0], ops[0]![2]];
  };
  const count = (outcome: string) => (log.outcomes[outcome] = (log.outcomes[outcome] ?? 0) + 1);

  let stopped = false;
  async function worker(): Promise<void> {
    while (!stopped) {
      const client = pick();
      if (!client) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const [name, op] = choose();
      try {
        const { response, allowed, onSuccess, readBack, fresh } = await op(client);
        count(`${name} ${response.status}`);
        const expected = options.readBack ? allowed.filter((status) => status < 300) : allowed;
        if (!expected.includes(response.status)) log.unexpected.push(`${name}: ${response.status} ${response.text.slice(0, 300)}`);
        else if (response.status < 300) {
          onSuccess?.(response.json);
          const read = options.readBack && readBack ? await readBack(response.json, options.readBack(client)) : null;
          if (read) {
            count(`${name} read back ${read.status}`);
            if (read.status !== 200) log.unexpected.push(`${name} read back through another process: ${read.status} ${read.text.slice(0, 300)}`);
            else if (fresh && !fresh(response.json, read.json))
              log.unexpected.push(`${name} read back through another process older than answered: ${read.text.slice(0, 300)}`);
          }
        }
      } catch (error) {
        count(`${name} no answer: ${(error as Error).message.slice(0, 60)}`);
        if (!options.networkErrorsAllowed) log.unexpected.push(`${name}: no answer (${(error as Error).message})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
  const running = Array.from({ length: options.workers }, () => worker());
  return {
    outcomes: () => ({ ...log.outcomes }),
    async stop() {
      stopped = true;
      await Promise.all(running);
      return log;
    },
  };
}

async function pages(fetchPage: (after: string | null) => Promise<HttpResponse>): Promise<any[]> {
  const all: any[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await fetchPage(after);
    assert.equal(page.status, 200, page.text);
    all.push(...page.json.data);
    if (!page.json.has_more) return all;
    after = page.json.data.at(-1).id;
  }
}

export interface Figures {
  events: number;
  deliveries: number;
  entries: number;
  charges: number;
  drainSeconds: number;
}

/**
 * After the load: waits (calling the drain) until every event of the world's type has its
 * delivery and its beat entry, up to `drainMs` (work a killed process held waits for its lease),
 * then checks every invariant.
 */
export async function checkInvariants(server: SpawnedServer, world: World, log: LoadLog, receiver: WebhookReceiver, drainMs: number): Promise<Figures> {
  assert.deepEqual(log.unexpected, [], 'no request was answered in a way no fault allows');
  const started = Date.now();
  const checker = await testCorpus(server).account(CREDITS, ['EVENTS_READ'], world.plan);
  // Every event of the type: one search, then its pages (free).
  const first = await server.http.post('/v1/events/search', { event_type_id: world.typeId, lookback_days: 30, limit: 50 }, bearer(checker.key));
  assert.equal(first.status, 200, first.text);
  const events = new Set<string>(first.json.data.map((event: any) => event.id));
  for (let cursor = first.json.next_cursor; cursor; ) {
    const page = await server.http.post('/v1/events/search', { cursor }, bearer(checker.key));
    assert.equal(page.status, 200, page.text);
    for (const event of page.json.data) events.add(event.id);
    cursor = page.json.next_cursor;
  }
  assert.equal(events.size, first.json.total_count);
  for (const id of log.events) assert.ok(events.has(id), `acknowledged article's event ${id} exists`);
  for (const id of log.reports) {
    const report = await server.http.get(`/v1/reports/${id}`, bearer(world.reporter.key));
    assert.equal(report.status, 200, `acknowledged report ${id} exists: ${report.text}`);
  }

  // Deliveries and entries: each event once, after the drain.
  const delivered = () => {
    const byEvent = new Map<string, number>();
    for (const webhook of receiver.received.filter((w) => w.path === world.sensor.path)) {
      const body = JSON.parse(webhook.body);
      if (body.type === 'event.matched') byEvent.set(body.data.event.id, (byEvent.get(body.data.event.id) ?? 0) + 1);
    }
    return byEvent;
  };
  let entryList: any[] = [];
  for (;;) {
    await server.ops.post('/drain');
    entryList = await pollAll(server, world);
    const byEvent = delivered();
    if ([...events].every((id) => byEvent.has(id)) && entryList.length >= events.size) break;
    if (Date.now() - started > drainMs) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const byEvent = delivered();
  const missing = [...events].filter((id) => !byEvent.has(id));
  assert.deepEqual(missing, [], 'every matching event delivered');
  for (const webhook of receiver.received.filter((w) => w.path === world.sensor.path)) {
    verifyWebhook(world.sensor.secret, webhook, Number(webhook.headers['webhook-timestamp']) * 1000);
  }
  const entryEvents = entryList.map((entry) => entry.event.id);
  assert.equal(new Set(entryEvents).size, entryEvents.length, 'one entry per event');
  assert.deepEqual([...new Set(entryEvents)].sort(), [...events].sort(), 'an entry for every event');

  // Ledgers.
  const ledger = (key: string) =>
    pages((after) => server.http.get(`/v1/account/credit-transactions?limit=100${after ? `&starting_after=${after}` : ''}`, bearer(key)));
  const balance = async (id: string) => testCorpus(server).balance(id);
  const searches = await ledger(world.searcher.key);
  assert.equal(
    searches.reduce((sum, t) => sum + t.amount, 0),
    await balance(world.searcher.id),
    "the searcher's balance equals its ledger",
  );
  const charged = searches.filter((t) => t.kind === 'SEARCH').map((t) => t.execution_id);
  assert.equal(new Set(charged).size, charged.length, 'each execution charged once');
  for (const id of log.executions) assert.ok(charged.includes(id), `execution ${id} seen by the client was charged`);
  const watching = await ledger(world.watcher.key);
  assert.equal(
    watching.reduce((sum, t) => sum + t.amount, 0),
    await balance(world.watcher.id),
    "the watcher's balance equals its ledger",
  );
  const entryCharges = watching.filter((t) => t.kind === 'BEAT_ENTRY' && t.beat_id === world.beatId);
  assert.equal(-entryCharges.reduce((sum, t) => sum + t.amount, 0), entryList.length, 'entries equal their charges');

  return {
    events: events.size,
    deliveries: byEvent.size,
    entries: entryList.length,
    charges: charged.length,
    drainSeconds: Math.round((Date.now() - started) / 1000),
  };
}

async function pollAll(server: SpawnedServer, world: World): Promise<any[]> {
  const all: any[] = [];
  let page = await server.http.post(`/v1/beats/${world.beatId}/entries`, { since: '', limit: 50 }, bearer(world.watcher.key));
  for (;;) {
    assert.equal(page.status, 200, page.text);
    all.push(...page.json.data);
    if (!page.json.next_cursor) return all;
    page = await server.http.post(`/v1/beats/${world.beatId}/entries`, { cursor: page.json.next_cursor }, bearer(world.watcher.key));
  }
}

/** What was counted between two copies of the outcomes. */
export function outcomesBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([outcome, n]) => [outcome, n - (before[outcome] ?? 0)])
      .filter(([, n]) => (n as number) > 0),
  );
}
