import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { roleList } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const token = () => Math.random().toString(36).slice(2, 10);

describe('corpus reference data', () => {
  let server: TestServer;
  let readKey: string;
  const opsCall = (method: string, path: string, body?: unknown) =>
    server.http.request(method, `/ops/v1${path}`, { headers: bearer(OPS_TOKEN), ...(body === undefined ? {} : { body }) });

  before(async () => {
    server = await startServer();
    const account = await server.ops.createAccount();
    readKey = await server.ops.createKey(account.id, ['REPORTS_READ']);
  });
  after(() => server.close());

  it('when an outlet is created, then 201 news_outlet with its domain', async () => {
    const response = await opsCall('POST', '/outlets', { name: 'Daily Wire Service', domain: 'dws.example' });
    assert.equal(response.status, 201);
    assert.equal(response.json.object, 'news_outlet');
    assert.equal(response.json.domain, 'dws.example');
    assert.equal((await opsCall('POST', '/outlets', { name: 'No Domain' })).json.domain, null);
  });

  it('when outlets are listed, then newest first in pages that follow starting_after, and query keeps those whose name or domain holds it', async () => {
    const tag = token();
    const made = [];
    for (const [name, domain] of [
      [`Morning ${tag}`, null],
      [`Evening Post`, `${tag}.example`],
      [`Noon 100%_${tag}`, null],
    ] as const)
      made.push((await opsCall('POST', '/outlets', { name, domain })).json);
    const first = await opsCall('GET', `/outlets?query=${tag.toUpperCase()}&limit=2`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.data, [made[2], made[1]]);
    assert.equal(first.json.has_more, true);
    assert.equal(first.json.next_cursor, made[1].id);
    const second = await opsCall('GET', `/outlets?query=${tag}&limit=2&starting_after=${first.json.next_cursor}`);
    assert.deepEqual(
      { data: second.json.data, has_more: second.json.has_more, next_cursor: second.json.next_cursor },
      { data: [made[0]], has_more: false, next_cursor: null },
    );
    // LIKE's wildcards in a query are plain characters.
    assert.deepEqual((await opsCall('GET', `/outlets?query=${encodeURIComponent('100%_')}${tag}`)).json.data, [made[2]]);
    assert.deepEqual((await opsCall('GET', `/outlets?query=${encodeURIComponent('%')}${tag}`)).json.data, []);
    // Without a query every outlet is listed, the newest first; 20 a page.
    const all = await opsCall('GET', '/outlets');
    assert.equal(all.json.data[0].id, made[2].id);
    assert.ok(all.json.data.length <= 20);
    for (const bad of ['limit=0', 'limit=101', 'starting_after=nope', 'query=', 'colour=red'])
      assert.equal((await opsCall('GET', `/outlets?${bad}`)).status, 400, bad);
    const keyed = await server.http.get('/ops/v1/outlets', bearer(readKey));
    assert.equal(keyed.status, 401, 'an API key is not the operator token');
  });

  it('when entities are merged in a chain, then search finds only the survivor and merging again is a conflict', async () => {
    const tag = token();
    const a = (await opsCall('POST', '/entities', { name: `Acme ${tag}`, type: 'ORGANIZATION' })).json;
    const b = (await opsCall('POST', '/entities', { name: `Acme Corp ${tag}`, type: 'ORGANIZATION' })).json;
    const c = (await opsCall('POST', '/entities', { name: `Acme Corporation ${tag}`, type: 'ORGANIZATION' })).json;
    assert.equal((await opsCall('POST', `/entities/${a.id}/merge`, { into_entity_id: b.id })).json.id, b.id);
    const survivor = await opsCall('POST', `/entities/${b.id}/merge`, { into_entity_id: c.id });
    assert.equal(survivor.status, 200);
    assert.equal(survivor.json.id, c.id);
    const found = await server.http.get(`/v1/entities/search?query=${tag}`, bearer(readKey));
    assert.deepEqual(
      found.json.data.map((e: { id: string }) => e.id),
      [c.id],
    );

    const again = await opsCall('POST', `/entities/${a.id}/merge`, { into_entity_id: c.id });
    assert.equal(again.status, 409);
    const intoMergedAway = await opsCall('POST', `/entities/${c.id}/merge`, { into_entity_id: a.id });
    assert.equal(intoMergedAway.status, 400, 'a resolves to c itself');
    const d = (await opsCall('POST', '/entities', { name: `Delta ${tag}` })).json;
    const viaChain = await opsCall('POST', `/entities/${d.id}/merge`, { into_entity_id: a.id });
    assert.equal(viaChain.json.id, c.id, 'merging into a merged-away id merges into its survivor');
  });

  it('when an entity is deleted, then search leaves it out and a second delete is 404', async () => {
    const tag = token();
    const e = (await opsCall('POST', '/entities', { name: `Gone ${tag}` })).json;
    assert.equal((await opsCall('DELETE', `/entities/${e.id}`)).status, 204);
    assert.deepEqual((await server.http.get(`/v1/entities/search?query=${tag}`, bearer(readKey))).json.data, []);
    assert.equal((await opsCall('DELETE', `/entities/${e.id}`)).status, 404);
  });

  it('when entities are searched, then prefix matches come first, then shorter names, then id; pages follow starting_after', async () => {
    const tag = token();
    const names = [`x ${tag} long name`, `${tag} b`, `${tag} abc`, `y ${tag}`, `${tag.toUpperCase()} a`];
    for (const name of names) await opsCall('POST', '/entities', { name });
    const all = await server.http.get(`/v1/entities/search?query=${tag}&limit=100`, bearer(readKey));
    assert.equal(all.status, 200);
    const ordered = all.json.data.map((e: { name: string }) => e.name);
    assert.deepEqual(
      ordered.slice(0, 3).map((n: string) => n.toLowerCase().startsWith(tag)),
      [true, true, true],
    );
    assert.deepEqual(ordered.slice(3), [`y ${tag}`, `x ${tag} long name`]);
    assert.ok(ordered[0].length <= ordered[1].length && ordered[1].length <= ordered[2].length);

    const pages: string[] = [];
    let after: string | null = null;
    do {
      const page: any = await server.http.get(`/v1/entities/search?query=${tag}&limit=2${after ? `&starting_after=${after}` : ''}`, bearer(readKey));
      pages.push(...page.json.data.map((e: { name: string }) => e.name));
      after = page.json.next_cursor;
      assert.equal(page.json.has_more, after !== null);
    } while (after);
    assert.deepEqual(pages, ordered);
  });

  it('when the query is missing, empty, too long or the key lacks REPORTS_READ, then 400 or 403', async () => {
    for (const query of ['', 'query=', `query=${'q'.repeat(201)}`, 'query=a&limit=101']) {
      assert.equal((await server.http.get(`/v1/entities/search?${query}`, bearer(readKey))).status, 400, query);
    }
    const wildcard = await server.http.get('/v1/entities/search?query=%25', bearer(readKey));
    assert.equal(wildcard.status, 200, 'LIKE wildcards are matched literally');
    assert.ok(wildcard.json.data.every((e: { name: string }) => e.name.includes('%')));
  });

  it('when an entity list names unknown or deleted entities or owner, then 400 naming the field', async () => {
    const e = (await opsCall('POST', '/entities', { name: `Listed ${token()}` })).json;
    const ok = await opsCall('POST', '/entity-lists', { name: 'Watch', entity_ids: [e.id, e.id] });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.json, { object: 'entity_list', id: ok.json.id, name: 'Watch', owner_account_id: null, entity_ids: [e.id] });
    const unknown = await opsCall('POST', '/entity-lists', { name: 'Bad', entity_ids: [e.id, '00000000-0000-4000-8000-000000000000'] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.errors[0].pointer, '/entity_ids/1');
    const owner = await opsCall('POST', '/entity-lists', { name: 'Bad', owner_account_id: '00000000-0000-4000-8000-000000000000', entity_ids: [] });
    assert.equal(owner.json.errors[0].pointer, '/owner_account_id');
  });

  it('when an event type is created and its roles changed, then echoed role ids are kept and the public list shows accepting types', async () => {
    const code = `acquisition_${token()}`;
    const created = await opsCall('POST', '/event-types', {
      code_name: code,
      name: 'Acquisition',
      description: 'One organization buys another.',
      roles: roleList({ acquirer: 'NAMED_ENTITY', target: 'NAMED_ENTITY', price: 'CURRENCY' }),
      sentence_template: '{acquirer} acquired {target}',
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.accepting_reports, true);
    const [acquirer, target] = created.json.roles;
    const patched = await opsCall('PATCH', `/event-types/${created.json.id}`, {
      roles: [
        { id: target.id, code_name: 'acquired', name: 'Acquired company', expected_type: 'NAMED_ENTITY' },
        { id: acquirer.id, code_name: 'acquirer', name: 'Acquirer', expected_type: 'NAMED_ENTITY' },
        { code_name: 'closed_on', name: 'Closing date', expected_type: 'DATE' },
      ],
      sentence_template: '{acquirer} acquired {acquired}',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.roles.map((r: { id: string }) => r.id).slice(0, 2), [target.id, acquirer.id]);
    assert.equal(patched.json.roles[0].code_name, 'acquired');
    assert.equal(patched.json.roles.length, 3);

    const list = await server.http.get('/v1/event-types', bearer(readKey));
    assert.equal(list.status, 200);
    assert.equal(list.json.has_more, false);
    const listed = list.json.data.find((t: { id: string }) => t.id === created.json.id);
    assert.deepEqual(Object.keys(listed).sort(), ['code_name', 'description', 'id', 'name', 'object', 'roles']);
    await opsCall('PATCH', `/event-types/${created.json.id}`, { accepting_reports: false });
    const after = await server.http.get('/v1/event-types', bearer(readKey));
    assert.equal(
      after.json.data.find((t: { id: string }) => t.id === created.json.id),
      undefined,
    );
  });

  it('when an event type is malformed, then 400 naming the field', async () => {
    const base = {
      code_name: `t_${token()}`,
      name: 'T',
      description: '',
      roles: [{ code_name: 'who', name: 'Who', expected_type: 'NAMED_ENTITY' }],
      sentence_template: '{who} did it',
    };
    const cases: [unknown, string][] = [
      [{ ...base, sentence_template: '{whom} did it' }, '/sentence_template'],
      [{ ...base, sentence_template: '{who did it' }, '/sentence_template'],
      [{ ...base, roles: [...base.roles, { code_name: 'who', name: 'Again', expected_type: null }] }, '/roles/1/code_name'],
      [{ ...base, roles: [{ ...base.roles[0], expected_type: 'COLOUR' }] }, '/roles/0/expected_type'],
      [{ ...base, roles: [{ ...base.roles[0], id: '00000000-0000-4000-8000-000000000000' }] }, '/roles/0/id'],
      [{ ...base, code_name: 'Bad Name' }, '/code_name'],
    ];
    for (const [body, pointer] of cases) {
      const response = await opsCall('POST', '/event-types', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.json.errors[0].pointer, pointer, JSON.stringify(response.json));
    }
    assert.equal((await opsCall('POST', '/event-types', base)).status, 201);
    const duplicate = await opsCall('POST', '/event-types', base);
    assert.equal(duplicate.json.errors[0].pointer, '/code_name');
    const unknownRole = await opsCall('PATCH', `/event-types/00000000-0000-4000-8000-000000000000`, { name: 'x' });
    assert.equal(unknownRole.status, 404);
  });
});
