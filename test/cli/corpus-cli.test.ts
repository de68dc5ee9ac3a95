import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { evmon } from '../helpers/evmon.js';
import { PG_URL, tempDir, timeLimit } from '../helpers/server.js';

const token = () => Math.random().toString(36).slice(2, 10);

describe('evmon corpus commands', () => {
  const dir = tempDir();
  const env = PG_URL ? { EVMON_DATABASE_URL: PG_URL, EVMON_DATA_DIR: dir } : { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dir };

  it('when reference data is made with evmon and articles imported from NDJSON, then good lines land and bad ones are reported by line', {
    timeout: timeLimit({ runs: 8 }),
  }, async (t) => {
    const outlet = await evmon(t, env, 'outlets', 'create', '--name', 'Wire', '--domain', 'wire.example');
    assert.equal(outlet.status, 0, outlet.stderr);
    const a = (await evmon(t, env, 'entities', 'create', '--name', `Maker ${token()}`, '--type', 'ORGANIZATION')).json;
    const b = (await evmon(t, env, 'entities', 'create', '--name', `Maker Inc ${token()}`, '--type', 'ORGANIZATION')).json;
    assert.equal((await evmon(t, env, 'entities', 'merge', a.id, '--into', b.id)).json.id, b.id);
    const typeFile = path.join(dir, 'type.json');
    fs.writeFileSync(
      typeFile,
      JSON.stringify({
        code_name: `launch_${token()}`,
        name: 'Launch',
        description: '',
        roles: [{ code_name: 'maker', name: 'Maker', expected_type: 'NAMED_ENTITY' }],
        sentence_template: '{maker} launched a product',
      }),
    );
    const type = await evmon(t, env, 'event-types', 'create', '--file', typeFile);
    assert.equal(type.status, 0, type.stderr);
    const list = await evmon(t, env, 'entity-lists', 'create', '--name', 'Makers', '--entities', `${a.id},${b.id}`);
    assert.equal(list.status, 0, list.stderr);

    const article = (day: string, entity: string) => ({
      outlet_id: outlet.json.id,
      event_type_id: type.json.id,
      published_at: `2026-11-${day}T08:00:00.000Z`,
      received_at: `2026-11-${day}T08:05:00.000Z`,
      roles: [{ role: 'maker', entity_id: entity }],
      url: `https://wire.example/${day}/${entity}`,
    });
    const file = path.join(dir, 'articles.ndjson');
    fs.writeFileSync(
      file,
      [
        JSON.stringify(article('10', a.id)),
        JSON.stringify(article('11', b.id)),
        '{"not json',
        JSON.stringify({ ...article('12', b.id), colour: 'red' }),
        JSON.stringify({ ...article('12', b.id), roles: [{ role: 'nobody', entity_id: b.id }] }),
        '',
        JSON.stringify(article('20', b.id)),
      ].join('\n'),
    );
    const imported = await evmon(t, env, 'import', file);
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.json.imported, 3);
    assert.equal(imported.json.refused, 3);
    assert.match(imported.stderr, /line 3: not valid JSON/);
    assert.match(imported.stderr, /line 4: \/colour is not a recognized field/);
    assert.match(imported.stderr, /line 5: UNKNOWN_ROLE_CODE_NAME/);
    // Run again (after a crash, say): each article is identified by its outlet and url.
    const again = await evmon(t, env, 'import', file, '--batch-size', '2');
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual([again.json.imported, again.json.existing, again.json.refused], [0, 3, 3]);
    assert.deepEqual(again.stderr.match(/lines 1 to \d+ done/g), ['lines 1 to 2 done', 'lines 1 to 4 done', 'lines 1 to 6 done', 'lines 1 to 7 done']);
    const refused = await evmon(t, env, 'import', file, '--batch-size', '10001');
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /--batch-size must be a whole number from 1 to 10000/);
  });

  it('when a reporting grant is made and revoked with evmon, then pins read back by role and a refused pin names its field', {
    timeout: timeLimit({ runs: 6 }),
  }, async (t) => {
    const account = (await evmon(t, env, 'accounts', 'create', '--display-name', 'Newsroom', '--entitlements', 'entity_reporting')).json;
    const entity = (await evmon(t, env, 'entities', 'create', '--name', `Maker ${token()}`)).json;
    const typeFile = path.join(dir, 'grant-type.json');
    fs.writeFileSync(
      typeFile,
      JSON.stringify({
        code_name: `recall_${token()}`,
        name: 'Recall',
        description: '',
        roles: [{ code_name: 'maker', name: 'Maker', expected_type: 'NAMED_ENTITY' }],
        sentence_template: '{maker} recalled a product',
      }),
    );
    const type = (await evmon(t, env, 'event-types', 'create', '--file', typeFile)).json;
    const grantFile = path.join(dir, 'grant.json');
    fs.writeFileSync(
      grantFile,
      JSON.stringify({
        account_id: account.id,
        label: 'Maker press office',
        event_type_id: type.id,
        expires_at: '2099-01-01T00:00:00Z',
        pins: [{ role: 'maker', allowed_entity_ids: [entity.id] }],
      }),
    );
    const grant = await evmon(t, env, 'grants', 'create', '--file', grantFile);
    assert.equal(grant.status, 0, grant.stderr);
    assert.equal(grant.json.object, 'reporting_grant');
    assert.deepEqual(grant.json.pins, [
      { role_definition_id: type.roles[0].id, role: 'maker', allowed_entities: [{ object: 'entity', id: entity.id, name: entity.name, type: null }] },
    ]);
    const revoked = await evmon(t, env, 'grants', 'revoke', grant.json.id);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(revoked.json.status, 'REVOKED');
    fs.writeFileSync(
      grantFile,
      JSON.stringify({
        account_id: account.id,
        label: 'x',
        event_type_id: type.id,
        expires_at: '2099-01-01T00:00:00Z',
        pins: [{ role: 'nobody', allowed_entity_ids: [entity.id] }],
      }),
    );
    const refused = await evmon(t, env, 'grants', 'create', '--file', grantFile);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /\/pins\/0\/role/);
  });

  it('when evmon demo runs, then it generates the requested corpus and reports it', { timeout: timeLimit({ runs: 2 }) }, async (t) => {
    const demo = await evmon(t, env, 'demo', '--events', '100', '--seed', '7');
    assert.equal(demo.status, 0, demo.stderr);
    assert.equal(demo.json.events, 100);
    assert.ok(demo.json.reports > 100, 'several articles per event');
    assert.ok(demo.json.stored_events >= 90, `${demo.json.stored_events} events formed`);
    for (const field of ['bcubed_precision', 'bcubed_recall']) assert.ok(demo.json[field] > 0.9 && demo.json[field] <= 1, `${field} ${demo.json[field]}`);
    assert.match(demo.stderr, /100 \/ 100 events/);
    assert.equal((await evmon(t, env, 'demo', '--events', 'many')).status, 2);
  });
});
