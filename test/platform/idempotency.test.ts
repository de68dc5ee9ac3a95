import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestFingerprint } from '../../src/platform/http/idempotency.js';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('idempotency keys', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let type: { id: string };
  const send = (key: string, body: unknown, idempotencyKey?: string, raw?: string): Promise<HttpResponse> =>
    server.http.request('POST', '/v1/events/search', {
      headers: {
        ...bearer(key),
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
        ...(raw ? { 'content-type': 'application/json' } : {}),
      },
      ...(raw ? { rawBody: raw } : { body }),
    });
  const query = () => ({ lookback_days: 7, event_type_id: type.id, limit: 1 });
  const problem = (response: HttpResponse, slug: string, status: number) => {
    assert.equal(response.status, status, response.text);
    assert.equal(response.json.type, `${server.docsUrl}/problems/${slug}`);
  };

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
    type = await corpus.eventType();
    const outlet = await corpus.outlet();
    for (const hours of [1, 2, 3]) {
      const at = new Date(Date.parse(NOW) - hours * 3_600_000).toISOString();
      await corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        published_at: at,
        received_at: at,
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
      });
    }
  });
  after(() => server.close());

  it('when the key is malformed, then 400 validation-failed; other methods ignore the header', async () => {
    const account = await corpus.account(10, ['EVENTS_READ', 'SENSORS_READ']);
    for (const bad of ['', 'a b', 'x'.repeat(256), 'ümlaut', 'semi;colon']) {
      problem(await send(account.key, query(), bad), 'validation-failed', 400);
    }
    assert.equal(await corpus.balance(account.id), 10);
    assert.equal((await send(account.key, query(), 'x'.repeat(255))).status, 200);
    const get = await server.http.request('GET', '/v1/sensors', { headers: { ...bearer(account.key), 'idempotency-key': 'not valid!' } });
    assert.equal(get.status, 200);
  });

  it('when the same request is sent again with the key, then the stored answer is replayed verbatim and charged once', async () => {
    const account = await corpus.account(10);
    const idem = unique();
    const first = await send(account.key, query(), idem);
    assert.equal(first.status, 200);
    assert.equal(first.headers['idempotency-replayed'], undefined);
    const again = await send(account.key, query(), idem);
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.text, first.text, 'byte for byte');
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.ok(again.headers['ratelimit-remaining'], 'a replay still counts toward the budget');
    assert.equal(again.headers['x-request-id'], first.headers['x-request-id'], 'the original request id, as in a replayed problem body');
    assert.equal(await corpus.balance(account.id), 9);

    // A continuation with a key is retryable the same way.
    const next = await send(account.key, { cursor: first.json.next_cursor }, `${idem}-page`);
    const nextAgain = await send(account.key, { cursor: first.json.next_cursor }, `${idem}-page`);
    assert.equal(nextAgain.headers['idempotency-replayed'], 'true');
    assert.equal(nextAgain.text, next.text);

    // Completed refusals replay too, with the request id their body names.
    const stranger = await corpus.account(10);
    const refused = await send(stranger.key, { cursor: first.json.next_cursor }, idem);
    problem(refused, 'not-found', 404);
    const refusedAgain = await send(stranger.key, { cursor: first.json.next_cursor }, idem);
    assert.equal(refusedAgain.headers['idempotency-replayed'], 'true');
    assert.equal(refusedAgain.text, refused.text);
    assert.equal(refusedAgain.json.request_id, refusedAgain.headers['x-request-id']);
  });

  it('when the key comes with another body, even one differing only in spacing, then 422; another API key has its own keys', async () => {
    const account = await corpus.account(10);
    const idem = unique();
    assert.equal((await send(account.key, query(), idem)).status, 200);
    problem(await send(account.key, { ...query(), limit: 2 }, idem), 'idempotency-key-conflict', 422);
    problem(await send(account.key, undefined, idem, JSON.stringify(query(), null, 1)), 'idempotency-key-conflict', 422);
    problem(await send(account.key, { cursor: 'x' }, idem), 'idempotency-key-conflict', 422);
    const sibling = (await corpus.ops('POST', `/accounts/${account.id}/api-keys`, { name: 'second', scopes: ['EVENTS_READ'] })).json.key;
    const own = await send(sibling, query(), idem);
    assert.equal(own.status, 200);
    assert.equal(own.headers['idempotency-replayed'], undefined);
    assert.equal(await corpus.balance(account.id), 8, 'two API keys, two executions');
  });

  it('when the first attempt fails validation or lacks credits, then the key is released and the retry runs', async () => {
    const account = await corpus.account(0);
    const idem = unique();
    problem(await send(account.key, { ...query(), limit: 51 }, idem), 'validation-failed', 400);
    problem(await send(account.key, query(), idem), 'insufficient-credits', 402);
    await corpus.ops('POST', `/accounts/${account.id}/credits`, { amount: 5 });
    const retry = await send(account.key, query(), idem);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers['idempotency-replayed'], undefined);
    assert.equal(await corpus.balance(account.id), 4);
  });

  it('when 24 hours have passed, then the key is forgotten and the same request runs (and charges) again', async () => {
    const account = await corpus.account(10);
    const idem = unique();
    const first = await send(account.key, query(), idem);
    await server.ops.post('/clock', { advance_seconds: 86_399 });
    assert.equal((await send(account.key, query(), idem)).headers['idempotency-replayed'], 'true');
    await server.ops.post('/clock', { advance_seconds: 2 });
    const later = await send(account.key, query(), idem);
    assert.equal(later.status, 200);
    assert.equal(later.headers['idempotency-replayed'], undefined);
    assert.notEqual(later.json.execution_id, first.json.execution_id);
    assert.equal(await corpus.balance(account.id), 8);
    await server.ops.post('/clock', { now: NOW });
  });

  it('when a claim is left in flight by a request that died, then 409; after a minute a non-billed one is taken over, a billed one never', async () => {
    const account = await corpus.account(10);
    const keyId = (await corpus.ops('GET', `/accounts/${account.id}/api-keys`)).json.data[0].id;
    const first = await send(account.key, query());
    const continuation = JSON.stringify({ cursor: first.json.next_cursor });
    const billed = JSON.stringify(query());
    // The state a process leaves when it dies holding the claims: claimed, never settled.
    const dead = async (idem: string, body: string, isBilled: boolean) =>
      assert.equal(
        (
          await server.runtime.claims.claim({
            apiKeyId: keyId,
            key: idem,
            billed: isBilled,
            owner: crypto.randomUUID(),
            fingerprint: requestFingerprint('rest', 'POST', '/v1/events/search', Buffer.from(body)),
          })
        ).kind,
        'claimed',
      );
    const free = unique();
    const charged = unique();
    await dead(free, continuation, false);
    await dead(charged, billed, true);
    problem(await send(account.key, undefined, free, continuation), 'idempotency-in-flight', 409);
    problem(await send(account.key, undefined, charged, billed), 'idempotency-in-flight', 409);
    problem(await send(account.key, undefined, free, billed), 'idempotency-key-conflict', 422);

    await server.ops.post('/clock', { advance_seconds: 61 });
    const takenOver = await send(account.key, undefined, free, continuation);
    assert.equal(takenOver.status, 200, takenOver.text);
    problem(await send(account.key, undefined, charged, billed), 'idempotency-in-flight', 409);
    await server.ops.post('/clock', { advance_seconds: 23 * 3600 });
    problem(await send(account.key, undefined, charged, billed), 'idempotency-in-flight', 409);
    const balance = await corpus.balance(account.id);
    await server.ops.post('/clock', { advance_seconds: 3600 });
    const fresh = await send(account.key, undefined, charged, billed);
    assert.equal(fresh.status, 200, 'past the 24-hour window the key is unused again');
    assert.equal(await corpus.balance(account.id), balance - 1);
    await server.ops.post('/clock', { now: NOW });
  });

  it('when the same key is sent 20 times at once, then the search runs and charges once', async () => {
    const account = await corpus.account(100);
    const idem = unique();
    const responses = await Promise.all(Array.from({ length: 20 }, () => send(account.key, query(), idem)));
    const statuses = responses.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(','),
    );
    const executed = responses.filter((r) => r.status === 200 && r.headers['idempotency-replayed'] === undefined);
    assert.equal(executed.length, 1);
    const executions = new Set(responses.filter((r) => r.status === 200).map((r) => r.json.execution_id));
    assert.equal(executions.size, 1);
    assert.equal(await corpus.balance(account.id), 99);
    assert.equal((await send(account.key, query(), idem)).headers['idempotency-replayed'], 'true');
  });
});
