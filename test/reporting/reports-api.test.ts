import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCorpus } from '../helpers/corpus.js';
import { dealType, startReportingServer, type ReportingClient } from '../helpers/reporting.js';
import type { TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const MISSING = '01900000-0000-7000-8000-000000000000';
const REPORT_FIELDS = [
  'created_at',
  'description',
  'event_type_id',
  'grant_id',
  'happened_at',
  'id',
  'incident_id',
  'incident_report_id',
  'object',
  'published_as',
  'roles',
  'status',
];

describe('structured reports API', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let reporting: ReportingClient;
  let type: Awaited<ReturnType<typeof dealType>>;
  let acme: string;
  let globex: string;

  before(async () => {
    ({ server, corpus, reporting } = await startReportingServer(NOW));
    type = await dealType(corpus, { weight: 'WEIGHT', duration: 'DURATION', note: 'NONE', misc: null, category: 'CATEGORICAL' });
    acme = await corpus.entity('Acme Corp');
    globex = await corpus.entity('Globex');
  });
  after(() => server.close());

  /** A report that files: both entity roles of the sentence. */
  const valid = (extra: Record<string, unknown> = {}) => ({
    event_type_id: type.id,
    happened_at: '2026-11-19T08:30:00Z',
    roles: [
      { role: 'acquirer', entity_id: acme },
      { role: 'target', entity_id: globex },
    ],
    ...extra,
  });
  const withRoles = (...roles: Record<string, unknown>[]) =>
    valid({ roles: [{ role: 'acquirer', entity_id: acme }, { role: 'target', entity_id: globex }, ...roles] });
  const listOf = async (key: string) => (await reporting.call('GET', '/reports', key)).json.data as { id: string }[];

  it('when a report is filed, then 201 with every field, roles as sent (entities with their names), published under the account; processing sets its event', async () => {
    const { key } = await reporting.account({ display_name: 'Jane Roe', kind: 'INDIVIDUAL' });
    const roles = [
      { role: 'acquirer', entity_id: acme },
      { role: 'target', entity_id: globex },
      { role: 'price', amount: { value: 12.5, unit: 'EUR' } },
      { role: 'weight', amount: { value: 3, unit: '' } },
      { role: 'closing', date: '2026-12-01' },
      { role: 'duration', text: '2 hours 30 minutes' },
      { role: 'note', text: '  first-hand  ' },
      { role: 'misc', text: 'x' },
    ];
    const filed = await reporting.file(key, valid({ roles, description: '  Seen at the signing.  ', grant_id: null }));
    assert.equal(filed.status, 201, filed.text);
    const report = filed.json;
    assert.deepEqual(Object.keys(report).sort(), REPORT_FIELDS);
    assert.equal(report.object, 'report');
    assert.equal(report.status, 'CONFIRMED');
    assert.equal(report.event_type_id, type.id);
    assert.equal(report.happened_at, '2026-11-19T08:30:00.000Z');
    assert.equal(report.description, 'Seen at the signing.');
    assert.equal(report.grant_id, null);
    assert.deepEqual(report.published_as, { name: 'Jane Roe', kind: 'INDIVIDUAL' });
    assert.equal(report.incident_id, null);
    assert.equal(report.incident_report_id, null);
    assert.equal(report.created_at, NOW);
    assert.deepEqual(report.roles, [
      { role: 'acquirer', entity_id: acme, name: 'Acme Corp' },
      { role: 'target', entity_id: globex, name: 'Globex' },
      ...roles.slice(2, 6),
      { role: 'note', text: 'first-hand' },
      { role: 'misc', text: 'x' },
    ]);
    // Processing runs in the background at once: a read may already see it done.
    const read = (await reporting.call('GET', `/reports/${report.id}`, key)).json;
    assert.deepEqual({ ...read, incident_id: null, incident_report_id: null }, report);

    await reporting.drain();
    const processed = (await reporting.call('GET', `/reports/${report.id}`, key)).json;
    assert.deepEqual({ ...processed, incident_id: null, incident_report_id: null }, report);
    assert.match(processed.incident_id, /^[0-9a-f-]{36}$/);
    assert.match(processed.incident_report_id, /^[0-9a-f-]{36}$/);
    const event = await corpus.ops('GET', `/events/${processed.incident_id}`);
    assert.equal(event.json.sentence, 'Acme Corp agreed to acquire Globex');
    assert.equal(event.json.happened_at, '2026-11-19T08:30:00.000Z');
    assert.equal(event.json.distinct_outlet_count, 1);
  });

  it('when a key lacks REPORTS_WRITE or REPORTS_READ, then filing is 403 missing-scope', async () => {
    for (const scopes of [['REPORTS_READ'], ['REPORTS_WRITE']]) {
      // The operator API adds REPORTS_READ to REPORTS_WRITE; a key made before that rule may lack it.
      const { key, keyId } = await reporting.account({ scopes });
      if (scopes[0] === 'REPORTS_WRITE') await server.runtime.db.query(`UPDATE api_keys SET scopes = ARRAY['REPORTS_WRITE'] WHERE id = $1`, [keyId]);
      reporting.problem(await reporting.file(key, valid()), 403, 'missing-scope');
    }
  });

  it('when the body is malformed, then 400 with errors pointing into it, before the entitlement is looked at', async () => {
    const { key } = await reporting.account({ entitlements: {} });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ event_type_id: undefined }, ['/event_type_id']],
      [{ colour: 'red' }, ['/colour']],
      [{ roles: [{ role: 'acquirer', entity_id: 'acme' }] }, ['/roles/0/entity_id']],
      [{ roles: [{ role: 'closing', date: '2026/12/01' }] }, ['/roles/0/date']],
      [{ roles: [{ role: 'price', amount: { value: '12', unit: 'EUR' } }] }, ['/roles/0/amount/value']],
      [{ roles: [{ role: 'price', amount: 12 }] }, ['/roles/0/amount']],
      [{ roles: [{ role: 'price', amount: { value: 'BEYOND_DOUBLE', unit: 'EUR' } }] }, ['/roles/0/amount/value']],
      [{ happened_at: 7 }, ['/happened_at']],
      [{ roles: 'acquirer' }, ['/roles']],
      [{ roles: [{ role: 'closing', date: '+02026-12-01' }] }, ['/roles/0/date']],
      [{ roles: [{ role: 'note', text: 'LONE_SURROGATE' }] }, ['/roles/0/text']],
      // Values the database cannot store (decisions.md, "HTTP hardening").
      [{ roles: [{ role: 'closing', date: '0000-01-01' }] }, ['/roles/0/date']],
      [{ happened_at: '0000-06-01T00:00:00Z' }, ['/happened_at']],
      [{ happened_at: '0001-01-01T00:00:00+01:00' }, ['/happened_at']],
    ];
    for (const [change, pointers] of cases) {
      // 1e309 reads as Infinity and \ud800 as a lone surrogate: only raw JSON carries them.
      const answer = await server.http.request('POST', '/v1/reports', {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        rawBody: JSON.stringify(valid(change)).replace('"BEYOND_DOUBLE"', '1e309').replace('LONE_SURROGATE', '\\ud800'),
      });
      reporting.problem(answer, 400, 'validation-failed');
      assert.equal(answer.json.code, undefined);
      assert.deepEqual(
        answer.json.errors.map((e: { pointer: string }) => e.pointer),
        pointers,
        JSON.stringify(change),
      );
    }
  });

  it('when the account lacks the entitlement, then 403 not-entitled with its code, before the content is looked at', async () => {
    const { id: accountId, key } = await reporting.account({ entitlements: { entity_reporting: true } });
    reporting.problem(await reporting.file(key, valid({ roles: [] })), 403, 'not-entitled', 'FORBIDDEN');
    const { key: noGrants } = await reporting.account({ entitlements: { structured_reporting: true } });
    reporting.problem(await reporting.file(noGrants, valid({ grant_id: MISSING, roles: [] })), 403, 'not-entitled', 'GRANT_FORBIDDEN');
    // The key keeps its scope; restoring the entitlement restores filing.
    const patched = await corpus.ops('PATCH', `/accounts/${accountId}`, { entitlements: { structured_reporting: true } });
    assert.equal(patched.status, 200);
    assert.equal((await reporting.file(key, valid())).status, 201);
  });

  it("when a grant is missing, another account's, revoked, expired or for another type, then 403 GRANT_NOT_USABLE", async () => {
    const { id: accountId, key } = await reporting.account();
    const { id: otherId } = await reporting.account();
    const otherType = await dealType(corpus);
    const others = await reporting.grant({ account_id: otherId, event_type_id: type.id });
    const revoked = await reporting.grant({ account_id: accountId, event_type_id: type.id });
    await corpus.ops('POST', `/reporting-grants/${revoked.id}/revoke`);
    const expired = await reporting.grant({ account_id: accountId, event_type_id: type.id, expires_at: '2026-11-20T12:00:01.000Z' });
    const wrongType = await reporting.grant({ account_id: accountId, event_type_id: otherType.id });
    await reporting.setClock('2026-11-20T12:00:01.000Z');
    try {
      for (const grantId of [MISSING, others.id, revoked.id, expired.id, wrongType.id]) {
        reporting.problem(await reporting.file(key, valid({ grant_id: grantId, roles: [] })), 403, 'not-entitled', 'GRANT_NOT_USABLE');
      }
    } finally {
      await reporting.setClock(NOW);
    }
    assert.deepEqual(await listOf(key), []);
  });

  it('when the content is refused, then 400 validation-failed with one code and no errors, and nothing is filed', async () => {
    const { id: accountId, key } = await reporting.account();
    const inactive = await dealType(corpus);
    await corpus.ops('PATCH', `/event-types/${inactive.id}`, { accepting_reports: false });
    const staleType = await dealType(corpus);
    const stale = await reporting.grant({ account_id: accountId, event_type_id: staleType.id, pins: [{ role: 'target', allowed_entity_ids: [globex] }] });
    await corpus.ops('PATCH', `/event-types/${staleType.id}`, {
      roles: staleType.roles.filter((r) => r.code_name !== 'target').map(({ id, code_name, name, expected_type }) => ({ id, code_name, name, expected_type })),
      sentence_template: '{acquirer} bought',
    });
    const pinned = await reporting.grant({ account_id: accountId, event_type_id: type.id, pins: [{ role: 'target', allowed_entity_ids: [globex] }] });
    const acquirerId = type.roles.find((r) => r.code_name === 'acquirer')!.id;
    const { key: nameless } = await reporting.account({ display_name: null });

    const cases: [string, Record<string, unknown>, string?][] = [
      ['TEMPLATE_NOT_FOUND', valid({ event_type_id: MISSING })],
      ['TEMPLATE_INACTIVE', valid({ event_type_id: inactive.id })],
      ['NO_ROLES', valid({ roles: [] })],
      ['TOO_MANY_ROLES', valid({ roles: Array.from({ length: 51 }, (_, i) => ({ role: `r${i}`, text: 'x' })) })],
      ['DESCRIPTION_TOO_LONG', valid({ description: ` ${'x'.repeat(5001)} ` })],
      ['UNKNOWN_ROLE_CODE_NAME', withRoles({ role: 'buyer', entity_id: acme })],
      ['ROLE_NOT_MULTI_VALUED', withRoles({ role: 'acquirer', entity_id: globex })],
      ['DUPLICATE_ROLE_ID', withRoles({ role: acquirerId, entity_id: globex })],
      ['UNSUPPORTED_ROLE_TYPE', withRoles({ role: 'category', text: 'merger' })],
      ['ROLE_VALUE_TYPE_MISMATCH', withRoles({ role: 'price', text: '12 EUR' })],
      ['ROLE_VALUE_TYPE_MISMATCH', withRoles({ role: 'price', amount: { value: 12, unit: 'EUR' }, text: '12 EUR' })],
      ['ROLE_VALUE_TYPE_MISMATCH', withRoles({ role: 'price', amount: { value: 12, unit: 'EURO' } })],
      ['ROLE_VALUE_TYPE_MISMATCH', withRoles({ role: 'duration', text: 'a while' })],
      ['ROLE_VALUE_TYPE_MISMATCH', withRoles({ role: 'closing', text: '2026-12-01' })],
      ['NAMED_ENTITY_ID_ON_NON_ENTITY_ROLE', withRoles({ role: 'note', entity_id: acme })],
      ['INVALID_DATE', withRoles({ role: 'closing', date: '2026-02-30' })],
      ['INVALID_DATE', withRoles({ role: 'closing', date: '2026-13-01' })],
      ['PARSED_DATE_TOO_LONG', withRoles({ role: 'closing', date: '2026-12-01T08:00:00Z' })],
      ['EMPTY_TEXT_VALUE', withRoles({ role: 'note', text: '   ' })],
      ['TEXT_VALUE_TOO_LONG', withRoles({ role: 'note', text: 'x'.repeat(1001) })],
      ['PARSED_AMOUNT_UNIT_TOO_LONG', withRoles({ role: 'weight', amount: { value: 1, unit: 'k'.repeat(33) } })],
      ['HAPPENED_AT_INVALID', valid({ happened_at: 'yesterday' })],
      ['HAPPENED_AT_INVALID', valid({ happened_at: '2026-11-19T08:30:00' })],
      ['HAPPENED_AT_INVALID', valid({ happened_at: '2026-02-30T08:30:00Z' })],
      ['HAPPENED_AT_INVALID', valid({ happened_at: '2026-11-19T08:30:00+24:00' })],
      ['HAPPENED_AT_INVALID', valid({ happened_at: '2026-11-19T23:59:60Z' })],
      ['PARSED_DATE_TIME_TOO_LONG', valid({ happened_at: '2026-11-19T08:30:00.000000000000+00:00' })],
      ['HAPPENED_AT_IN_FUTURE', valid({ happened_at: '2026-11-20T12:00:00.001Z' })],
      [
        'UNKNOWN_NAMED_ENTITY',
        valid({
          roles: [
            { role: 'acquirer', entity_id: acme },
            { role: 'target', entity_id: MISSING },
          ],
        }),
      ],
      ['SENTENCE_NOT_RENDERABLE', valid({ roles: [{ role: 'acquirer', entity_id: acme }] })],
      ['GRANT_STALE', valid({ event_type_id: staleType.id, grant_id: stale.id, roles: [{ role: 'acquirer', entity_id: acme }] })],
      [
        'PIN_VIOLATION',
        valid({
          grant_id: pinned.id,
          roles: [
            { role: 'acquirer', entity_id: acme },
            { role: 'target', entity_id: acme },
          ],
        }),
      ],
      ['REPORTER_NAME_MISSING', valid(), nameless],
    ];
    for (const [code, body, filer = key] of cases) {
      const answer = await reporting.file(filer, body);
      reporting.problem(answer, 400, 'validation-failed', code);
      assert.equal(answer.json.errors, undefined, code);
      assert.ok(answer.json.detail.length > 0);
    }
    assert.deepEqual(await listOf(key), []);
    assert.deepEqual(await listOf(nameless), []);
  });

  it('when durations read as ISO 8601 or plain English, then they are accepted', async () => {
    const { key } = await reporting.account();
    for (const text of ['P3D', 'PT2H30M', '3 days', '2 hours 30 minutes', 'an hour']) {
      assert.equal((await reporting.file(key, withRoles({ role: 'duration', text }))).status, 201, text);
    }
  });

  it('when filing under a grant, then pins are enforced, a lone allowed entity fills an omitted role, and the report is published under the grant label', async () => {
    const { id: accountId, key } = await reporting.account({ display_name: null });
    const initech = await corpus.entity('Initech');
    const grant = await reporting.grant({
      account_id: accountId,
      event_type_id: type.id,
      label: 'Globex newsroom',
      pins: [
        { role: 'target', allowed_entity_ids: [globex] },
        { role: 'acquirer', allowed_entity_ids: [acme, initech] },
      ],
    });
    // The single allowed target is filled in; the acquirer (several allowed) must be sent.
    const filed = await reporting.file(key, valid({ grant_id: grant.id, roles: [{ role: 'acquirer', entity_id: initech }] }));
    assert.equal(filed.status, 201, filed.text);
    assert.deepEqual(filed.json.published_as, { name: 'Globex newsroom', kind: 'ORGANIZATION' });
    assert.equal(filed.json.grant_id, grant.id);
    assert.deepEqual(filed.json.roles, [
      { role: 'acquirer', entity_id: initech, name: 'Initech' },
      { role: 'target', entity_id: globex, name: 'Globex' },
    ]);

    reporting.problem(
      await reporting.file(key, valid({ grant_id: grant.id, roles: [{ role: 'target', entity_id: globex }] })),
      400,
      'validation-failed',
      'PIN_VIOLATION',
    );
    reporting.problem(
      await reporting.file(key, valid({ grant_id: grant.id, roles: [{ role: 'acquirer', entity_id: globex }] })),
      400,
      'validation-failed',
      'PIN_VIOLATION',
    );

    // An allowed entity merged away is allowed under its survivor, and so is the merged id.
    const merged = await corpus.entity('Acme Holdings');
    assert.equal((await corpus.ops('POST', `/entities/${merged}/merge`, { into_entity_id: acme })).status, 200);
    const viaMerged = await reporting.file(key, valid({ grant_id: grant.id, roles: [{ role: 'acquirer', entity_id: merged }] }));
    assert.equal(viaMerged.status, 201, viaMerged.text);
    assert.deepEqual(viaMerged.json.roles[0], { role: 'acquirer', entity_id: merged, name: 'Acme Corp' });
  });

  it('when ids are sent in uppercase, then they name the same event type, grant, entities and roles', async () => {
    const { id: accountId, key } = await reporting.account();
    const grant = await reporting.grant({
      account_id: accountId.toUpperCase(),
      event_type_id: type.id.toUpperCase(),
      pins: [{ role: 'target', allowed_entity_ids: [globex.toUpperCase()] }],
    });
    assert.equal(grant.account_id, accountId);
    const acquirerId = type.roles.find((r) => r.code_name === 'acquirer')!.id;
    const filed = await reporting.file(key, {
      event_type_id: type.id.toUpperCase(),
      grant_id: grant.id.toUpperCase(),
      happened_at: '2026-11-19T08:30:00Z',
      roles: [{ role: acquirerId.toUpperCase(), entity_id: acme.toUpperCase() }],
    });
    assert.equal(filed.status, 201, filed.text);
    assert.equal(filed.json.event_type_id, type.id);
    assert.equal(filed.json.grant_id, grant.id);
    assert.deepEqual(filed.json.roles, [
      { role: acquirerId, entity_id: acme, name: 'Acme Corp' },
      { role: 'target', entity_id: globex, name: 'Globex' },
    ]);
    assert.equal((await reporting.call('GET', `/reports/${filed.json.id.toUpperCase()}`, key)).status, 200);
  });

  it('when an organization files as itself, then it is published under its display name and kind', async () => {
    const { key } = await reporting.account({ display_name: 'Daily Ledger', kind: 'ORGANIZATION' });
    const filed = await reporting.file(key, valid());
    assert.deepEqual(filed.json.published_as, { name: 'Daily Ledger', kind: 'ORGANIZATION' });
  });

  it("when reports are listed, then newest first, paged by starting_after; others' reports, article reports and missing ids are the same 404", async () => {
    const { key } = await reporting.account();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await reporting.file(key, valid())).json.id);
    const first = await reporting.call('GET', '/reports?limit=2', key);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.json.data.map((r: { id: string }) => r.id),
      [ids[4], ids[3]],
    );
    assert.equal(first.json.has_more, true);
    assert.equal(first.json.next_cursor, ids[3]);
    const rest = await reporting.call('GET', `/reports?limit=3&starting_after=${ids[3]}`, key);
    assert.deepEqual(
      rest.json.data.map((r: { id: string }) => r.id),
      [ids[2], ids[1], ids[0]],
    );
    assert.equal(rest.json.has_more, false);
    assert.equal(rest.json.next_cursor, null);
    reporting.problem(await reporting.call('GET', '/reports?limit=101', key), 400, 'validation-failed');

    const { key: otherKey } = await reporting.account();
    reporting.problem(await reporting.call('GET', `/reports?starting_after=${ids[0]}`, otherKey), 400, 'validation-failed');
    const notFound = [await reporting.call('GET', `/reports/${ids[0]}`, otherKey), await reporting.call('GET', `/reports/${MISSING}`, key)];
    await reporting.drain();
    const incidentReport = (await reporting.call('GET', `/reports/${ids[0]}`, key)).json.incident_report_id;
    const article = await corpus.ops('POST', '/articles', {
      outlet_id: await corpus.outlet(),
      event_type_id: type.id,
      roles: [{ role: 'acquirer', entity_id: acme }],
    });
    notFound.push(await reporting.call('GET', `/reports/${incidentReport}`, key), await reporting.call('GET', `/reports/${article.json.id}`, key));
    for (const answer of notFound) reporting.problem(answer, 404, 'not-found');
    assert.deepEqual(
      notFound.map((a) => a.json.detail.replace(/[0-9a-f-]{36}/, 'ID')),
      Array(4).fill(notFound[0]!.json.detail.replace(/[0-9a-f-]{36}/, 'ID')),
    );
  });
});
