// Exactly once across a crash (architecture habit 13): every POST that creates or changes
// something stores its answer in the transaction of its effect. The process is killed after
// that commit and before the answer leaves (EVMON_TEST_ANSWER_PAUSE); a same-key retry on a
// new process, past the minute after which a stale claim may be taken over, replays the answer
// and the effect is there once. Report filing keeps its own table: a lost answer is 409
// report-already-submitted, the report filed once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, unique } from '../helpers/corpus.js';
import { bearer, httpClient, type HttpResponse } from '../helpers/http.js';
import { MCP_HEADERS } from '../helpers/mcp.js';
import { dealType, REPORT_SCOPES, reportingClient } from '../helpers/reporting.js';
import { PG_URL, spawnServer, tempDir, timeLimit, type SpawnedServer } from '../helpers/server.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE', 'BEATS_READ', 'BEATS_WRITE', 'EVENTS_READ', ...REPORT_SCOPES];

/** One POST sent with a key, its answer lost to the kill, then retried. */
interface Case {
  name: string;
  /** The API key it is sent with, when not the set-up's owner (an account whose creates it counts). */
  key?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** What the retry must answer. */
  retried(response: HttpResponse): void;
  /** The effect, read after the retry: there exactly once. */
  effect?(): Promise<void>;
}

describe('exactly once across a crash between commit and answer', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('when the process is killed after each POST committed and before it answered, then a same-key retry replays the answer and nothing is done twice', {
    timeout: timeLimit({ starts: 2, otherMs: 120_000 }),
  }, async (t) => {
    // On disk (or PostgreSQL), so the second process sees what the killed one committed.
    const env = { EVMON_DATABASE_URL: PG_URL ?? '', EVMON_DATA_DIR: tempDir(), EVMON_WEBHOOK_ALLOW_PRIVATE: '1' };
    const first = await spawnServer(t, { ...env, EVMON_TEST_ANSWER_PAUSE: '1' });
    const corpus = testCorpus(first);
    let server: SpawnedServer = first;
    const call = (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
      server.http.request(method, path, { headers: { ...bearer(key), ...headers }, ...(body === undefined ? {} : { body }) });
    const ok = async (response: Promise<HttpResponse>) => {
      const answer = await response;
      assert.ok(answer.status < 300, `${answer.status} ${answer.text}`);
      return answer.json;
    };
    const account = () => corpus.account(100, SCOPES, 'standard', { beats: true, structured_reporting: true });

    // Set-up, without keys (the pause holds only requests that carry one).
    const type = await corpus.eventType();
    const quiet = await corpus.eventType(); // sensors watch it: no event deliveries beside the tests
    const deal = await dealType(corpus);
    const outlet = await corpus.outlet();
    const sensorBody = (enabled = true) => ({
      name: 'Watch',
      enabled,
      filter: { event_type_id: quiet.id },
      actions: [{ type: 'webhook', url: receiver.url(`/exactly-once-${unique()}`) }],
    });
    const beatBody = { name: 'Watch', clauses: [{ event_type_id: type.id }] };
    const owner = await account();
    const sensorOf = async (enabled = true) => (await ok(call('POST', '/v1/sensors', owner.key, sensorBody(enabled)))).id as string;
    const [enabledSensor, disabledSensor, rotatedSensor, testedSensor, redelivered] = [
      await sensorOf(),
      await sensorOf(false),
      await sensorOf(),
      await sensorOf(),
      await sensorOf(),
    ];
    const delivery = (await ok(call('POST', `/v1/sensors/${redelivered}/test`, owner.key))).id as string;
    const deliveriesOf = async (sensorId: string) => (await ok(call('GET', `/v1/sensors/${sensorId}/deliveries`, owner.key))).data as any[];
    for (let i = 0; (await deliveriesOf(redelivered))[0].status !== 'SUCCEEDED'; i++) {
      assert.ok(i < 100, 'the test delivery finished');
      await first.ops.post('/drain');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const beatOf = async (extra: Record<string, unknown> = {}) => (await ok(call('POST', '/v1/beats', owner.key, { ...beatBody, ...extra }))).id as string;
    const enabledBeat = await beatOf();
    const disabledBeat = await beatOf();
    await ok(call('POST', `/v1/beats/${disabledBeat}/disable`, owner.key));
    // Paused by its cap: two matching events, one credit.
    const pausedBeat = await beatOf({ spend_cap_credits: 1 });
    await first.ops.post('/drain');
    for (let i = 0; i < 2; i++)
      await corpus.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    await first.ops.post('/drain');
    assert.equal((await ok(call('GET', `/v1/beats/${pausedBeat}`, owner.key))).status, 'PAUSED_SPEND_CAP');

    const creator = await account(); // counts what its creates made
    const mcpCreator = await account();
    const reporter = await reportingClient({ ...first, docsUrl: '' }, corpus).account(); // docsUrl: for its problem checks, unused here
    const sensorsOf = async (key: string) => (await ok(call('GET', '/v1/sensors', key))).data as any[];
    const beatsOf = async (key: string) => (await ok(call('GET', '/v1/beats', key))).data as any[];
    const replayed = (status: number) => (response: HttpResponse) => {
      assert.equal(response.status, status, response.text);
      assert.equal(response.headers['idempotency-replayed'], 'true', 'the stored answer, not a second run');
    };
    const state = (path: string, key: string, field: string, value: unknown) => async () => assert.equal((await ok(call('GET', path, key)))[field], value);

    const cases: Case[] = [
      {
        name: 'create a sensor',
        key: creator.key,
        path: '/v1/sensors',
        body: sensorBody(),
        retried: replayed(201),
        effect: async () => assert.equal((await sensorsOf(creator.key)).length, 1),
      },
      {
        name: 'disable a sensor',
        path: `/v1/sensors/${enabledSensor}/disable`,
        retried: replayed(200),
        effect: state(`/v1/sensors/${enabledSensor}`, owner.key, 'enabled', false),
      },
      {
        name: 'enable a sensor',
        path: `/v1/sensors/${disabledSensor}/enable`,
        retried: replayed(200),
        effect: state(`/v1/sensors/${disabledSensor}`, owner.key, 'enabled', true),
      },
      {
        name: "rotate a sensor's secret",
        path: `/v1/sensors/${rotatedSensor}/rotate-secret`,
        retried: (response) => {
          replayed(200)(response);
          assert.equal(response.json.signing_secret, undefined, 'the one-time secret is never stored');
        },
      },
      {
        name: 'send a test delivery',
        path: `/v1/sensors/${testedSensor}/test`,
        retried: replayed(201),
        effect: async () => assert.equal((await deliveriesOf(testedSensor)).length, 1),
      },
      {
        name: 'redeliver',
        path: `/v1/sensors/${redelivered}/deliveries/${delivery}/redeliver`,
        retried: (response) => {
          replayed(200)(response);
          assert.equal(response.json.id, delivery);
        },
        effect: async () => assert.equal((await deliveriesOf(redelivered)).length, 1),
      },
      {
        name: 'create a beat',
        key: creator.key,
        path: '/v1/beats',
        body: beatBody,
        retried: replayed(201),
        effect: async () => assert.equal((await beatsOf(creator.key)).length, 1),
      },
      {
        name: 'disable a beat',
        path: `/v1/beats/${enabledBeat}/disable`,
        retried: replayed(200),
        effect: state(`/v1/beats/${enabledBeat}`, owner.key, 'enabled', false),
      },
      {
        name: 'enable a beat',
        path: `/v1/beats/${disabledBeat}/enable`,
        retried: replayed(200),
        effect: state(`/v1/beats/${disabledBeat}`, owner.key, 'enabled', true),
      },
      {
        name: 'resume a beat',
        path: `/v1/beats/${pausedBeat}/resume`,
        retried: replayed(200),
        effect: state(`/v1/beats/${pausedBeat}`, owner.key, 'status', 'ACTIVE'),
      },
      {
        name: 'create a beat over MCP',
        key: mcpCreator.key,
        path: '/mcp',
        headers: MCP_HEADERS,
        body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_beat', arguments: beatBody } },
        retried: (response) => {
          replayed(200)(response);
          assert.equal(response.json.id, 7);
          assert.equal(JSON.parse(response.json.result.content[0].text).object, 'beat');
        },
        effect: async () => assert.equal((await beatsOf(mcpCreator.key)).length, 1),
      },
      {
        name: 'file a report',
        key: reporter.key,
        path: '/v1/reports',
        body: {
          event_type_id: deal.id,
          happened_at: '2026-11-19T08:30:00Z',
          roles: [
            { role: 'acquirer', entity_id: await corpus.entity() },
            { role: 'target', entity_id: await corpus.entity() },
          ],
        },
        retried: (response) => {
          assert.equal(response.status, 409, response.text);
          assert.match(response.json.type, /\/problems\/report-already-submitted$/);
        },
        effect: async () => assert.equal((await ok(call('GET', '/v1/reports', reporter.key))).data.length, 1),
      },
    ];
    const keyOf = (c: Case) => c.key ?? owner.key;
    const idempotencyKeys = cases.map(() => unique());
    const send = (c: Case, i: number, client = server.http) =>
      client.request('POST', c.path, { headers: { ...bearer(keyOf(c)), ...c.headers, 'idempotency-key': idempotencyKeys[i]! }, body: c.body });

    // Every POST commits, then waits before answering, each on a connection of its own; the
    // process dies there.
    const held = httpClient(first.http.baseUrl, first.ca, { connections: cases.length });
    const lost = cases.map((c, i) => send(c, i, held).catch((error: Error) => error));
    await first.waitForOutput(new RegExp(`("point":"before-answer".*){${cases.length}}`, 's'), 60_000);
    await first.stop('SIGKILL');
    for (const [i, answer] of (await Promise.all(lost)).entries()) assert.ok(answer instanceof Error, `${cases[i]!.name}: the client never got an answer`);
    await held.close();

    server = await spawnServer(t, env);
    try {
      // Past the minute after which a claim left in flight may be taken over.
      await server.ops.post('/clock', { advance_seconds: 120 });
      for (const [i, c] of cases.entries()) {
        await t.test(c.name, async () => {
          c.retried(await send(c, i));
          await c.effect?.();
        });
      }
    } finally {
      await server.stop();
    }
  });
});
