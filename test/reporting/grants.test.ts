import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCorpus } from '../helpers/corpus.js';
import { dealType, startReportingServer, type ReportingClient } from '../helpers/reporting.js';
import type { TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const GRANT_FIELDS = ['event_type_id', 'expires_at', 'id', 'is_stale', 'label', 'object', 'pins', 'status'];
const MISSING = '01900000-0000-7000-8000-000000000000';

describe('reporting grants', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let reporting: ReportingClient;

  before(async () => {
    ({ server, corpus, reporting } = await startReportingServer(NOW));
  });
  after(() => server.close());

  it('when the operator creates a grant, then pins name role definition ids and allowed entities, and the account lists it', async () => {
    const type = await dealType(corpus);
    const [acme, globex] = [await corpus.entity('Acme Corp'), await corpus.entity('Globex')];
    const { id: accountId, key } = await reporting.account();
    const created = await corpus.ops('POST', '/reporting-grants', {
      account_id: accountId,
      label: 'Acme press office',
      event_type_id: type.id,
      expires_at: '2027-01-01T00:00:00Z',
      pins: [{ role: 'acquirer', allowed_entity_ids: [acme, globex, acme] }],
    });
    assert.equal(created.status, 201, created.text);
    const acquirer = type.roles.find((r) => r.code_name === 'acquirer')!;
    const expectedPins = [
      {
        role_definition_id: acquirer.id,
        role: 'acquirer',
        allowed_entities: [
          { object: 'entity', id: acme, name: 'Acme Corp', type: 'ORGANIZATION' },
          { object: 'entity', id: globex, name: 'Globex', type: 'ORGANIZATION' },
        ],
      },
    ];
    assert.deepEqual(created.json, {
      id: created.json.id,
      object: 'reporting_grant',
      label: 'Acme press office',
      status: 'ACTIVE',
      is_stale: false,
      expires_at: '2027-01-01T00:00:00.000Z',
      event_type_id: type.id,
      pins: expectedPins,
      account_id: accountId,
      revoked_at: null,
      created_at: NOW,
    });

    const listed = await reporting.call('GET', '/reporting-grants', key);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.json.object, 'list');
    assert.equal(listed.json.has_more, false);
    assert.equal(listed.json.next_cursor, null);
    assert.equal(listed.json.data.length, 1);
    assert.deepEqual(Object.keys(listed.json.data[0]).sort(), GRANT_FIELDS);
    assert.deepEqual(listed.json.data[0].pins, expectedPins);
  });

  it('when a grant names what does not exist or cannot be pinned, then 400 points at the field', async () => {
    const type = await dealType(corpus);
    const entity = await corpus.entity();
    const { id: accountId } = await reporting.account();
    const valid = {
      account_id: accountId,
      label: 'L',
      event_type_id: type.id,
      expires_at: '2027-01-01T00:00:00Z',
      pins: [{ role: 'acquirer', allowed_entity_ids: [entity] }],
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ account_id: MISSING }, '/account_id'],
      [{ label: '   ' }, '/label'],
      [{ event_type_id: MISSING }, '/event_type_id'],
      [{ expires_at: '2026-11-19T00:00:00Z' }, '/expires_at'],
      [{ pins: [{ role: 'buyer', allowed_entity_ids: [entity] }] }, '/pins/0/role'],
      [{ pins: [{ role: 'price', allowed_entity_ids: [entity] }] }, '/pins/0/role'],
      [
        {
          pins: [
            { role: 'acquirer', allowed_entity_ids: [entity] },
            { role: 'acquirer', allowed_entity_ids: [entity] },
          ],
        },
        '/pins/1/role',
      ],
      [{ pins: [{ role: 'acquirer', allowed_entity_ids: [entity, MISSING] }] }, '/pins/0/allowed_entity_ids/1'],
      [{ pins: [{ role: 'acquirer', allowed_entity_ids: [] }] }, '/pins/0/allowed_entity_ids'],
      [{ pins: [{ role: 'acquirer', entity_ids: [entity] }] }, '/pins/0/allowed_entity_ids /pins/0/entity_ids'],
    ];
    for (const [change, pointers] of cases) {
      const answer = await corpus.ops('POST', '/reporting-grants', { ...valid, ...change });
      reporting.problem(answer, 400, 'validation-failed');
      assert.deepEqual(
        answer.json.errors.map((e: { pointer: string }) => e.pointer),
        pointers.split(' '),
        JSON.stringify(change),
      );
    }
  });

  it('when a grant is revoked or expires, then its status says so; revoking twice changes nothing', async () => {
    const type = await dealType(corpus);
    const { id: accountId, key } = await reporting.account();
    const revoked = await reporting.grant({ account_id: accountId, event_type_id: type.id });
    const expiring = await reporting.grant({ account_id: accountId, event_type_id: type.id, expires_at: '2026-11-21T00:00:00.000Z' });
    const answer = await corpus.ops('POST', `/reporting-grants/${revoked.id}/revoke`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.status, 'REVOKED');
    assert.equal(answer.json.revoked_at, NOW);
    await reporting.setClock('2026-11-20T13:00:00.000Z');
    assert.deepEqual((await corpus.ops('POST', `/reporting-grants/${revoked.id}/revoke`)).json, answer.json);
    await reporting.setClock(NOW);
    reporting.problem(await corpus.ops('POST', `/reporting-grants/${MISSING}/revoke`), 404, 'not-found');

    await reporting.setClock('2026-11-21T00:00:00.000Z');
    try {
      const listed = await reporting.call('GET', '/reporting-grants', key);
      // Newest first.
      assert.deepEqual(
        listed.json.data.map((g: { id: string; status: string }) => [g.id, g.status]),
        [
          [expiring.id, 'EXPIRED'],
          [revoked.id, 'REVOKED'],
        ],
      );
    } finally {
      await reporting.setClock(NOW);
    }
  });

  it("when a pinned role is removed from the event type, then the grant reads stale with that pin's role null", async () => {
    const type = await dealType(corpus);
    const entity = await corpus.entity();
    const { id: accountId, key } = await reporting.account();
    const grant = await reporting.grant({ account_id: accountId, event_type_id: type.id, pins: [{ role: 'target', allowed_entity_ids: [entity] }] });
    const kept = type.roles.filter((r) => r.code_name !== 'target').map(({ id, code_name, name, expected_type }) => ({ id, code_name, name, expected_type }));
    const patched = await corpus.ops('PATCH', `/event-types/${type.id}`, { roles: kept, sentence_template: '{acquirer} bought something' });
    assert.equal(patched.status, 200, patched.text);
    const [listed] = (await reporting.call('GET', '/reporting-grants', key)).json.data;
    assert.equal(listed.id, grant.id);
    assert.equal(listed.is_stale, true);
    assert.equal(listed.status, 'ACTIVE');
    assert.equal(listed.pins[0].role, null);
    assert.equal(listed.pins[0].role_definition_id, grant.pins[0].role_definition_id);
  });

  it('when an account lacks entity reporting, then its grant list is empty; without REPORTS_READ it is 403', async () => {
    const type = await dealType(corpus);
    const { id: accountId, key } = await reporting.account({ entitlements: { structured_reporting: true } });
    await reporting.grant({ account_id: accountId, event_type_id: type.id });
    const listed = await reporting.call('GET', '/reporting-grants', key);
    assert.deepEqual(listed.json, { object: 'list', data: [], has_more: false, next_cursor: null });
    const { key: sensorKey } = await corpus.account(0, ['SENSORS_READ']);
    reporting.problem(await reporting.call('GET', '/reporting-grants', sensorKey), 403, 'missing-scope');
  });

  it('when an allowed entity is merged, then the pin lists its survivor once; a deleted one is gone', async () => {
    const type = await dealType(corpus);
    const [a, b, c] = [await corpus.entity('Alpha'), await corpus.entity('Beta'), await corpus.entity('Gamma')];
    const { id: accountId, key } = await reporting.account();
    await reporting.grant({ account_id: accountId, event_type_id: type.id, pins: [{ role: 'acquirer', allowed_entity_ids: [a, b, c] }] });
    assert.equal((await corpus.ops('POST', `/entities/${a}/merge`, { into_entity_id: b })).status, 200);
    assert.equal((await corpus.ops('DELETE', `/entities/${c}`)).status, 204);
    const [listed] = (await reporting.call('GET', '/reporting-grants', key)).json.data;
    assert.deepEqual(
      listed.pins[0].allowed_entities.map((e: { id: string }) => e.id),
      [b],
    );
  });
});
