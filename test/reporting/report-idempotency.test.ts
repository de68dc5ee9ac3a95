// Report filing's idempotency table (v1 document, "Report idempotency"), row by row, on the
// test clock.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { v5 as uuidv5 } from 'uuid';
import { claimAsRunning } from '../helpers/claims.js';
import { REPORT_IDEMPOTENCY } from '../../src/modules/reporting/report-idempotency.js';
import type { TestCorpus } from '../helpers/corpus.js';
import { unique } from '../helpers/corpus.js';
import { dealType, startReportingServer, type ReportingClient } from '../helpers/reporting.js';
import type { TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('report idempotency', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let reporting: ReportingClient;
  let body: Record<string, unknown>;

  before(async () => {
    ({ server, corpus, reporting } = await startReportingServer(NOW));
    const type = await dealType(corpus);
    body = {
      event_type_id: type.id,
      happened_at: '2026-11-19T08:30:00Z',
      roles: [
        { role: 'acquirer', entity_id: await corpus.entity() },
        { role: 'target', entity_id: await corpus.entity() },
      ],
    };
  });
  beforeEach(() => reporting.setClock(NOW));
  after(() => server.close());

  const withKey = (key: string) => ({ 'idempotency-key': key });
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });
  const reportsOf = async (key: string) => (await reporting.call('GET', '/reports', key)).json.data as { id: string }[];

  it('when a filed report is retried with its key within 24 hours, then the 201 is replayed and the id is UUIDv5 of the API key id and the key', async () => {
    const { key, keyId } = await reporting.account();
    const idempotencyKey = `file-${unique()}`;
    const first = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.id, uuidv5(idempotencyKey, keyId));
    assert.equal(first.headers['idempotency-replayed'], undefined);
    await advance(24 * 3600 - 1);
    const again = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.text, first.text);
    assert.deepEqual(
      (await reportsOf(key)).map((r) => r.id),
      [first.json.id],
    );
  });

  it('when no key is sent, then every request files a new report', async () => {
    const { key } = await reporting.account();
    const [a, b] = [await reporting.file(key, body), await reporting.file(key, body)];
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.json.id, b.json.id);
    assert.equal((await reportsOf(key)).length, 2);
  });

  it('when the first attempt is still running, then a retry is 409 idempotency-in-flight', async () => {
    const { key, keyId } = await reporting.account();
    const idempotencyKey = `running-${unique()}`;
    // The claim a running first attempt holds (taken before its body is even validated).
    await claimAsRunning(server.runtime, { apiKeyId: keyId, key: idempotencyKey, transport: 'rest', path: '/v1/reports', body, billed: false });
    reporting.problem(await reporting.file(key, body, withKey(idempotencyKey)), 409, 'idempotency-in-flight');
  });

  it('when the first attempt failed its schema, then the key was never used', async () => {
    const { key } = await reporting.account();
    const idempotencyKey = `schema-${unique()}`;
    const refused = await reporting.file(key, { ...body, colour: 'red' }, withKey(idempotencyKey));
    reporting.problem(refused, 400, 'validation-failed');
    assert.ok(refused.json.errors);
    const filed = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(filed.status, 201, filed.text);
  });

  it('when the first attempt was refused (403), then the key is held in flight for 60 s, a different body is 422, and after that the request runs again', async () => {
    const { id: accountId, key } = await reporting.account({ entitlements: { entity_reporting: true } });
    const idempotencyKey = `held-${unique()}`;
    reporting.problem(await reporting.file(key, body, withKey(idempotencyKey)), 403, 'not-entitled', 'FORBIDDEN');
    assert.equal((await corpus.ops('PATCH', `/accounts/${accountId}`, { entitlements: { structured_reporting: true } })).status, 200);
    reporting.problem(await reporting.file(key, body, withKey(idempotencyKey)), 409, 'idempotency-in-flight');
    reporting.problem(await reporting.file(key, { ...body, description: 'other' }, withKey(idempotencyKey)), 422, 'idempotency-key-conflict');
    await advance(59);
    reporting.problem(await reporting.file(key, body, withKey(idempotencyKey)), 409, 'idempotency-in-flight');
    await advance(2);
    const filed = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(filed.status, 201, filed.text);
  });

  it('when the first attempt was a content refusal, then the key is held for 60 s and the same request then runs again', async () => {
    const { key } = await reporting.account();
    const idempotencyKey = `content-${unique()}`;
    const future = { ...body, happened_at: '2026-11-20T12:00:30Z' };
    reporting.problem(await reporting.file(key, future, withKey(idempotencyKey)), 400, 'validation-failed', 'HAPPENED_AT_IN_FUTURE');
    reporting.problem(await reporting.file(key, future, withKey(idempotencyKey)), 409, 'idempotency-in-flight');
    await advance(61);
    // Time has caught up with happened_at: the same request now files.
    const filed = await reporting.file(key, future, withKey(idempotencyKey));
    assert.equal(filed.status, 201, filed.text);
  });

  it('when a key that filed is used after the replay window, then 409 report-already-submitted without the report id, for any body', async () => {
    const { key } = await reporting.account();
    const idempotencyKey = `window-${unique()}`;
    const filed = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(filed.status, 201);
    await advance(24 * 3600 + 1);
    for (const sent of [body, { ...body, description: 'another body' }]) {
      const answer = await reporting.file(key, sent, withKey(idempotencyKey));
      reporting.problem(answer, 409, 'report-already-submitted');
      assert.ok(!answer.text.includes(filed.json.id), answer.text);
      await advance(24 * 3600 + 1);
    }
    assert.equal((await reportsOf(key)).length, 1);
  });

  it('when the answer was lost but the report was filed, then a retry is in flight for a minute, then 409 report-already-submitted', async () => {
    const { key, keyId } = await reporting.account();
    const idempotencyKey = `lost-${unique()}`;
    const filed = await reporting.file(key, body, withKey(idempotencyKey));
    assert.equal(filed.status, 201);
    // The process died after the report committed and before the answer was stored.
    await server.runtime.db.query(
      'UPDATE idempotency_claims SET completed_at = NULL, response_status = NULL, response_body = NULL WHERE api_key_id = $1 AND idempotency_key = $2',
      [keyId, idempotencyKey],
    );
    reporting.problem(await reporting.file(key, body, withKey(idempotencyKey)), 409, 'idempotency-in-flight');
    await advance(61);
    const answer = await reporting.file(key, body, withKey(idempotencyKey));
    reporting.problem(answer, 409, 'report-already-submitted');
    assert.ok(!answer.text.includes(filed.json.id));
    // The report's existence answers every later retry alike, whatever its body.
    for (const sent of [body, { ...body, description: 'changed' }])
      reporting.problem(await reporting.file(key, sent, withKey(idempotencyKey)), 409, 'report-already-submitted');
    assert.equal((await reportsOf(key)).length, 1);
  });

  it('when a filed key is retried after its grant was revoked and its window passed, then 409 report-already-submitted, not 403', async () => {
    const { id: accountId, key } = await reporting.account();
    const grant = await reporting.grant({ account_id: accountId, event_type_id: body.event_type_id as string });
    const idempotencyKey = `revoked-${unique()}`;
    const underGrant = { ...body, grant_id: grant.id };
    assert.equal((await reporting.file(key, underGrant, withKey(idempotencyKey))).status, 201);
    await corpus.ops('POST', `/reporting-grants/${grant.id}/revoke`);
    await advance(24 * 3600 + 1);
    reporting.problem(await reporting.file(key, underGrant, withKey(idempotencyKey)), 409, 'report-already-submitted');
  });

  it('when the policy settles answers, then server errors and refusals hold, schema failures and report-already-submitted release, filings complete', () => {
    const problem = (members: Record<string, unknown>) => Buffer.from(JSON.stringify({ type: 'x', ...members }));
    assert.equal(REPORT_IDEMPOTENCY.settle(201, Buffer.from('{}')), 'complete');
    assert.equal(REPORT_IDEMPOTENCY.settle(409, problem({})), 'release');
    assert.equal(REPORT_IDEMPOTENCY.settle(400, problem({ errors: [] })), 'release');
    assert.equal(REPORT_IDEMPOTENCY.settle(400, problem({ code: 'NO_ROLES', detail: '"errors":[]' })), 'hold');
    assert.equal(REPORT_IDEMPOTENCY.settle(403, problem({ code: 'FORBIDDEN' })), 'hold');
    assert.equal(REPORT_IDEMPOTENCY.settle(500, problem({})), 'hold');
    assert.equal(REPORT_IDEMPOTENCY.settle(502, Buffer.from('not json')), 'hold');
  });
});
