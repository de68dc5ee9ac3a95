// Migration 039: a report names its values' roles by number (event_type_roles.number), not by
// uuid. Reports stored before it read the same once it has converted them: every role value as
// report_roles and event_role_values give it, and each event as the API shows it. On a
// database of its own: the migration writes the whole reports table again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/platform/db/migrate.js';
import { testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

/** The reports table and its views as migrations 033 and 037 left them: roles by uuid, no role numbers. */
const BEFORE_039 = `
  DROP VIEW event_role_values;
  DROP VIEW report_roles;
  CREATE FUNCTION test_role_ids(numbers integer[]) RETURNS uuid[] LANGUAGE sql STABLE AS $$
    SELECT array_agg(role.id ORDER BY x.n) FROM unnest(numbers) WITH ORDINALITY AS x(number, n) JOIN event_type_roles role ON role.number = x.number
  $$;
  ALTER TABLE reports ALTER COLUMN role_numbers TYPE uuid[] USING test_role_ids(role_numbers);
  ALTER TABLE reports RENAME COLUMN role_numbers TO role_ids;
  DROP FUNCTION test_role_ids(integer[]);
  ALTER TABLE event_type_roles DROP COLUMN number;
  CREATE VIEW report_roles AS
  SELECT r.id AS report_id, rr.position::integer AS position, rr.role_id, rr.entity_id, rr.date_value, rr.amount_value, rr.amount_unit, rr.text_value
    FROM reports r
   CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units, r.role_texts)
         WITH ORDINALITY AS rr(role_id, entity_id, date_value, amount_value, amount_unit, text_value, position);
  CREATE VIEW event_role_values AS
  SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
         rr.date_value, rr.amount_value,
         translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
    FROM reports r
   CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                        WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
   CROSS JOIN LATERAL unnest(r.role_ids, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_id, entity_id, date_value, amount_value, amount_unit)
    LEFT JOIN LATERAL (SELECT live.id FROM entities ent JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
                        WHERE ent.id = rr.entity_id OFFSET 0) AS live ON true
   WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL`;

describe('report roles by number (migration 039)', () => {
  let server: TestServer;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  before(async () => {
    database = await isolatedDatabase();
    server = await startServer(database.env);
    await server.ops.post('/clock', { now: NOW });
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  it('when reports name their roles by uuid, then the migration numbers them and every value reads as before', async () => {
    const corpus = testCorpus(server);
    const { key } = await corpus.account(100, ['EVENTS_READ']);
    // Two types, so role numbers of one are not the other's.
    const types = [
      await corpus.eventType(),
      await corpus.eventType({ buyer: 'NAMED_ENTITY', target: 'NAMED_ENTITY', fee: 'CURRENCY', note: null }, '{buyer} bought {target}'),
    ];
    const outlet = await corpus.outlet();
    const entities = [await corpus.entity(), await corpus.entity(), await corpus.entity()];
    const published = (hoursAgo: number) => new Date(Date.parse(NOW) - hoursAgo * 3_600_000).toISOString();
    const events = [
      await corpus.article({
        outlet_id: outlet,
        event_type_id: types[0]!.id,
        published_at: published(3),
        roles: [
          { role: 'party', entity_id: entities[0] },
          { role: 'price', amount: { value: 12.5, unit: 'USD' } },
          { role: 'closing', date: '2026-12-01' },
        ],
      }),
      ...(await corpus.articles([
        {
          outlet_id: outlet,
          event_type_id: types[1]!.id,
          published_at: published(2),
          roles: [
            { role: 'target', entity_id: entities[2] },
            { role: 'buyer', entity_id: entities[1] },
            { role: 'note', text: 'all cash' },
            { role: 'fee', amount: { value: 3, unit: 'EUR' } },
          ],
          mentioned_entity_ids: [entities[0]],
        },
        { outlet_id: outlet, event_type_id: types[0]!.id, published_at: published(1), roles: [{ role: 'party', entity_id: entities[1] }] },
      ])),
    ];
    await server.ops.post('/drain');

    const { db } = server.runtime;
    const values = () =>
      db.query(
        `SELECT rr.report_id, rr.position, rr.role_id, rr.entity_id, rr.date_value::text AS date, rr.amount_value, rr.amount_unit, rr.text_value
           FROM report_roles rr ORDER BY rr.report_id, rr.position`,
      );
    const eventValues = () =>
      db.query(
        `SELECT event_id, role_id, source_kind, seq::text AS seq, entity_id, date_value::text AS date, amount_value, amount_unit
           FROM event_role_values WHERE event_id = ANY($1::uuid[]) ORDER BY event_id, seq, role_id`,
        [events],
      );
    const read = async () =>
      Promise.all(
        events.map(async (id) => {
          const answer = await server.http.get(`/v1/events/${id}`, bearer(key));
          assert.equal(answer.status, 200, answer.text);
          return answer.json;
        }),
      );
    const numbered = { values: await values(), eventValues: await eventValues(), events: await read() };
    assert.equal(numbered.values.length, 8, 'every role value of the three reports');
    assert.equal(numbered.eventValues.length, 7, 'those holding an entity, a date or an amount');

    await db.exec(BEFORE_039);
    assert.deepEqual({ values: await values(), eventValues: await eventValues() }, { values: numbered.values, eventValues: numbered.eventValues });
    await db.query("DELETE FROM schema_migrations WHERE name = '039_report_roles_by_number.sql'");
    assert.deepEqual(await migrate(db), ['039_report_roles_by_number.sql']);

    const [column] = await db.query<{ type: string }>(
      "SELECT udt_name AS type FROM information_schema.columns WHERE table_name = 'reports' AND column_name = 'role_numbers' AND table_schema = current_schema()",
    );
    assert.equal(column?.type, '_int4');
    const [numbers] = await db.query<{ roles: number; distinct: number }>(
      'SELECT count(*)::int AS roles, count(DISTINCT number)::int AS distinct FROM event_type_roles WHERE event_type_id = ANY($1::uuid[])',
      [types.map((type) => type.id)],
    );
    assert.deepEqual(numbers, { roles: 7, distinct: 7 });
    assert.deepEqual({ values: await values(), eventValues: await eventValues(), events: await read() }, numbered);
  });
});
