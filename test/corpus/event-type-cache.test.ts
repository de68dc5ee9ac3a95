// Ingest keeps event types and their roles in memory, per process (event-type-cache.ts). A
// change made anywhere else (another process sharing the database, or a hand in the database
// itself) is seen by the very next ingest. On PostgreSQL the changes go through a second
// server with a memory of its own on the same database; the embedded database has one
// process, so there they go through the same server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { PG_URL, startServer, type TestServer } from '../helpers/server.js';

describe('event types held in memory by ingest', () => {
  let server: TestServer;
  let other: TestServer;
  let here: TestCorpus;
  let there: TestCorpus;
  let outlet: string;

  before(async () => {
    server = await startServer();
    other = PG_URL ? await startServer() : server;
    here = testCorpus(server);
    there = testCorpus(other);
    outlet = await here.outlet();
  });
  after(async () => {
    await server.close();
    if (other !== server) await other.close();
  });

  /** A type with one entity role, already ingested into here (so held in memory). */
  async function heldType() {
    const type = await here.eventType({ party: 'NAMED_ENTITY' }, '{party} did something');
    await here.article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await here.entity() }] });
    return type;
  }
  const ingest = async (type: { id: string }, roles: Record<string, unknown>[]) =>
    here.ops('POST', '/articles', { outlet_id: outlet, event_type_id: type.id, roles });
  const sentence = async (eventId: string) => (await here.ops('GET', `/events/${eventId}`)).json.sentence;
  const rolesOf = async (type: { id: string }) =>
    (await there.ops('GET', `/event-types/${type.id}`)).json.roles.map(({ id, code_name, name, expected_type }: Record<string, unknown>) => ({
      id,
      code_name,
      name,
      expected_type,
    }));

  it('when another process adds a role, then the next ingest here accepts it', async () => {
    const type = await heldType();
    const patched = await there.ops('PATCH', `/event-types/${type.id}`, {
      roles: [...(await rolesOf(type)), { code_name: 'place', name: 'Place', expected_type: null }],
    });
    assert.equal(patched.status, 200, patched.text);
    const answer = await ingest(type, [
      { role: 'party', entity_id: await here.entity() },
      { role: 'place', text: 'Lyon' },
    ]);
    assert.equal(answer.status, 201, answer.text);
  });

  it('when another process removes a role, then the next ingest here refuses it', async () => {
    const type = await heldType();
    const patched = await there.ops('PATCH', `/event-types/${type.id}`, {
      roles: [{ code_name: 'actor', name: 'Actor', expected_type: 'NAMED_ENTITY' }],
      sentence_template: '{actor} did something',
    });
    assert.equal(patched.status, 200, patched.text);
    const answer = await ingest(type, [{ role: 'party', entity_id: await here.entity() }]);
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.json.code, 'UNKNOWN_ROLE_CODE_NAME');
  });

  it('when another process changes the template, then the next event here reads the new one', async () => {
    const type = await heldType();
    const patched = await there.ops('PATCH', `/event-types/${type.id}`, { sentence_template: '{party} did something else' });
    assert.equal(patched.status, 200, patched.text);
    const party = await here.entity('Initech');
    const answer = await ingest(type, [{ role: 'party', entity_id: party }]);
    assert.equal(answer.status, 201, answer.text);
    assert.equal(await sentence(answer.json.incident_id), 'Initech did something else');
  });

  it('when a role and then a template are changed by hand in the database, then the next ingest here sees each', async () => {
    const type = await heldType();
    const db = other.runtime.db;
    await db.query(`INSERT INTO event_type_roles (id, event_type_id, code_name, name, expected_type, position) VALUES ($1, $2, 'place', 'Place', NULL, 1)`, [
      other.runtime.newId(),
      type.id,
    ]);
    const withPlace = async (name: string, place: string) => {
      const answer = await ingest(type, [
        { role: 'party', entity_id: await here.entity(name) },
        { role: 'place', text: place },
      ]);
      assert.equal(answer.status, 201, answer.text);
      return sentence(answer.json.incident_id);
    };
    assert.equal(await withPlace('Globex', 'Osaka'), 'Globex did something');
    await db.query(`UPDATE event_types SET sentence_template = '{party} was seen at {place}' WHERE id = $1`, [type.id]);
    assert.equal(await withPlace('Umbrella', 'Porto'), 'Umbrella was seen at Porto');
  });
});
