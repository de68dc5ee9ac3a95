// The OpenAPI document as clients use it: Redocly's recommended rules (redocly.yaml) find
// nothing, every operation has a stable operationId, and each lists its problem responses.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { operationIdsWithServiceProblems } from '../../src/platform/http/openapi-problems.js';
import { runOwned } from '../helpers/processes.js';
import { ROOT, startServer, tempDir, type TestServer, timeLimit } from '../helpers/server.js';

const REDOCLY = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

// Client generators name methods after these: renaming one breaks every generated client.
const OPERATION_IDS = [
  'createBeat',
  'createSensor',
  'deleteBeat',
  'deleteSensor',
  'disableBeat',
  'disableSensor',
  'enableBeat',
  'enableSensor',
  'fileReport',
  'getAccount',
  'getBeat',
  'getEvent',
  'getReport',
  'getSensor',
  'listBeats',
  'listCreditTransactions',
  'listEventRevisions',
  'listEventTypes',
  'listReportingGrants',
  'listReports',
  'listSensorDeliveries',
  'listSensors',
  'opsAdjustCredits',
  'opsCreateAccount',
  'opsCreateApiKey',
  'opsCreateConsoleUser',
  'opsCreateEntity',
  'opsCreateEntityList',
  'opsCreateEventType',
  'opsCreateOutlet',
  'opsCreateReportingGrant',
  'opsDeleteConsoleUser',
  'opsDeleteEntity',
  'opsDeleteEvent',
  'opsDrain',
  'opsGetAccount',
  'opsGetClock',
  'opsGetEvent',
  'opsGetEventType',
  'opsIngestArticle',
  'opsIngestArticlesBulk',
  'opsListApiKeys',
  'opsListOutlets',
  'opsListPlans',
  'opsMergeEntity',
  'opsMergeEvent',
  'opsMetrics',
  'opsPutPlan',
  'opsRevokeApiKey',
  'opsRevokeReportingGrant',
  'opsSetClock',
  'opsUpdateAccount',
  'opsUpdateEventType',
  'readBeatEntries',
  'redeliverSensorDelivery',
  'replaceBeat',
  'resumeBeat',
  'rotateSensorSecret',
  'searchEntities',
  'searchEvents',
  'sendSensorTestDelivery',
  'setBeatSpendCap',
  'updateSensor',
];

describe('the OpenAPI document', () => {
  let server: TestServer;
  let doc: any;
  const operations = () => Object.values<Record<string, any>>(doc.paths).flatMap((item) => Object.values<any>(item));
  before(async () => {
    // A deployment's own address: Redocly warns of a localhost server URL, rightly.
    server = await startServer({ EVMON_PUBLIC_BASE_URL: 'https://api.event-monitoring.test' });
    doc = (await server.http.get('/v1/openapi.json')).json;
  });
  after(() => server.close());

  it('when Redocly lints it with the recommended rules, then it finds no error and no warning', { timeout: timeLimit({ runs: 1 }) }, async (t) => {
    const file = path.join(tempDir(), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const lint = await runOwned(t, process.execPath, [REDOCLY, 'lint', file, '--format=json', `--config=${path.join(ROOT, 'redocly.yaml')}`], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(lint.stdout || '{}');
    const problems = (report.problems ?? []).map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    assert.deepEqual(problems, [], lint.stderr);
    assert.deepEqual({ errors: report.totals?.errors, warnings: report.totals?.warnings }, { errors: 0, warnings: 0 });
  });

  it('when its operations are listed, then each has its stable operationId, once', () => {
    const ids = operations().map((operation) => operation.operationId);
    assert.deepEqual([...ids].sort(), OPERATION_IDS);
    // The per-operation problem lists name operations that exist (a typo would drop a list).
    for (const id of operationIdsWithServiceProblems()) assert.ok(OPERATION_IDS.includes(id), id);
  });

  it('when an operation is read, then it lists its problem types and a shared problem response for each of their statuses', () => {
    for (const operation of operations()) {
      const types: string[] = operation['x-problem-types'];
      assert.ok(types.includes('internal-error'), operation.operationId);
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        assert.match(response.$ref, /^#\/components\/responses\/\w+$/, `${operation.operationId} ${status}`);
        const shared = doc.components.responses[response.$ref.split('/').pop()];
        assert.ok(shared.content['application/problem+json'], `${operation.operationId} ${status}`);
      }
    }
    const search = doc.paths['/v1/events/search'].post;
    for (const slug of ['validation-failed', 'invalid-api-key', 'missing-scope', 'insufficient-credits', 'idempotency-key-conflict', 'rate-limited']) {
      assert.ok(search['x-problem-types'].includes(slug), slug);
    }
    assert.deepEqual(Object.keys(search.responses).sort(), [
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '408',
      '409',
      '410',
      '413',
      '415',
      '422',
      '429',
      '431',
      '500',
      '502',
      '503',
    ]);
    assert.match(doc.components.responses.PaymentRequired.description, /insufficient-credits/);
    const sensor = doc.paths['/v1/sensors/{id}'].get;
    assert.ok(sensor['x-problem-types'].includes('not-found'));
    assert.ok(!sensor['x-problem-types'].includes('payload-too-large'), 'a GET has no body to be too large');
    const debit = doc.paths['/ops/v1/accounts/{id}/credits'].post;
    assert.ok(debit['x-problem-types'].includes('insufficient-credits'), 'a debit below zero is 402');
    assert.ok(!debit['x-problem-types'].includes('rate-limited'), 'operator calls have no key budget; the edge ban is a bare 429');
  });

  it('when a query parameter has a default, then it is optional (a client may leave it out)', async () => {
    const entities = doc.paths['/v1/entities/search'].get.parameters;
    assert.deepEqual(
      entities.filter((p: any) => p.in === 'query' && p.name === 'limit').map((p: any) => ({ required: p.required, default: p.schema.default })),
      [{ required: false, default: 20 }],
    );
    for (const operation of operations())
      for (const parameter of operation.parameters ?? [])
        if (parameter.in === 'query' && parameter.schema.default !== undefined)
          assert.notEqual(parameter.required, true, `${operation.operationId} ${parameter.name}`);
    // And the service takes the request without it.
    const { id } = await server.ops.createAccount();
    const key = await server.ops.createKey(id, ['REPORTS_READ']);
    const left = await server.http.request('GET', '/v1/entities/search?query=a', { headers: { authorization: `Bearer ${key}` } });
    assert.equal(left.status, 200, left.text);
  });
});
