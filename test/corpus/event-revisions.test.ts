// Events by id and their revisions over HTTPS (decisions.md, "events by id, revisions and
// update deliveries"): GET /v1/events/{id} answers the event as it stands with its revision;
// each committed change of its view makes one revision listing what changed; a bulk batch that
// touches an event twice makes one; a merged-away id answers its survivor; revisions older than
// 90 days are swept, the latest kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordRevisions } from '../../src/modules/corpus/event-revisions.js';
import type { Queryable } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { startArticleServer, type TestCorpus, testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, startServer, type TestServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';
const hoursBefore = (hours: number, from = NOW) => new Date(Date.parse(from) - hours * 3_600_000).toISOString();

describe('events by id and their revisions', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let type: { id: string };
  let outlets: string[];
  let key: string;

  before(async () => {
    ({ server, corpus, type } = await startArticleServer(NOW));
    outlets = [await corpus.outlet(), await corpus.outlet(), await corpus.outlet()];
    ({ key } = await corpus.account(0, ['EVENTS_READ']));
  });
  after(() => server.close());

  const article = (party: string, outlet: number, hoursAgo: number, extra: Record<string, unknown> = {}) => ({
    outlet_id: outlets[outlet],
    event_type_id: type.id,
    published_at: hoursBefore(hoursAgo),
    roles: [{ role: 'party', entity_id: party }],
    ...extra,
  });
  const get = (id: string, as = key) => server.http.get(`/v1/events/${id}`, bearer(as));
  async function event(id: string) {
    const answer = await get(id);
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  }
  async function revisions(id: string, query = '') {
    const answer = await server.http.get(`/v1/events/${id}/revisions${query}`, bearer(key));
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  }

  it('when an event gains a report from another outlet, then it reads at revision 2 and the revision lists what changed', async () => {
    const party = await corpus.entity('Acme Ltd');
    const id = await corpus.article(article(party, 0, 5, { happened_at: '2026-11-19' }));
    const first = await event(id);
    assert.equal(first.object, 'event');
    assert.equal(first.id, id);
    assert.equal(first.revision, 1);
    assert.equal(first.updated_at, NOW);
    assert.deepEqual([first.matched_report_count, first.distinct_outlet_count, first.independent_source_count], [1, 1, 1]);
    assert.deepEqual(
      first.involved_entities.map((e: { name: string }) => e.name),
      ['Acme Ltd'],
    );

    await server.ops.post('/clock', { now: '2026-11-20T12:05:00.000Z' });
    assert.equal(await corpus.article(article(party, 1, 1)), id);
    const second = await event(id);
    assert.equal(second.revision, 2);
    assert.equal(second.updated_at, '2026-11-20T12:05:00.000Z');
    const list = await revisions(id);
    assert.equal(list.object, 'list');
    assert.deepEqual(
      list.data.map((r: { revision: number }) => r.revision),
      [2, 1],
    );
    const [latest, opening] = list.data;
    assert.deepEqual(latest, {
      object: 'event_revision',
      event_id: id,
      revision: 2,
      created_at: '2026-11-20T12:05:00.000Z',
      changes: {
        last_report_date: { from: hoursBefore(5), to: hoursBefore(1) },
        matched_report_count: { from: 1, to: 2 },
        distinct_outlet_count: { from: 1, to: 2 },
        independent_source_count: { from: 1, to: 2 },
      },
      merged_event_ids: [],
    });
    assert.deepEqual(opening.changes, {});
    assert.equal(opening.created_at, NOW);

    // Paging: newest first, next_cursor a revision number.
    const page = await revisions(id, '?limit=1');
    assert.deepEqual([page.data[0].revision, page.has_more, page.next_cursor], [2, true, '2']);
    const rest = await revisions(id, `?limit=1&starting_after=${page.next_cursor}`);
    assert.deepEqual([rest.data.map((r: { revision: number }) => r.revision), rest.has_more, rest.next_cursor], [[1], false, null]);
  });

  it('when a bulk batch adds two reports to one event, then the event gains one revision', async () => {
    const party = await corpus.entity();
    const id = await corpus.article(article(party, 0, 6));
    const ids = await corpus.articles([article(party, 1, 4), article(party, 2, 3)]);
    assert.deepEqual(ids, [id, id]);
    const read = await event(id);
    assert.equal(read.revision, 2);
    assert.equal(read.matched_report_count, 3);
    const [latest] = (await revisions(id)).data;
    assert.deepEqual(latest.changes.matched_report_count, { from: 1, to: 3 });
    assert.deepEqual(latest.changes.distinct_outlet_count, { from: 1, to: 3 });

    // A new event opened by a batch with two reports starts at revision 1.
    const other = await corpus.entity();
    const opened = await corpus.articles([article(other, 0, 4), article(other, 1, 3)]);
    assert.equal(opened[0], opened[1]);
    assert.equal((await event(opened[0]!)).revision, 1);
    assert.equal((await revisions(opened[0]!)).data.length, 1);
  });

  it('when an event is merged into another, then its id answers the survivor, whose revision names it', async () => {
    const [a, b] = [await corpus.entity(), await corpus.entity()];
    const merged = await corpus.article(article(a, 0, 8));
    const survivor = await corpus.article(article(b, 1, 7));
    assert.notEqual(merged, survivor);
    const answer = await corpus.ops('POST', `/events/${merged}/merge`, { into_event_id: survivor });
    assert.equal(answer.status, 200, answer.text);
    const read = await event(merged);
    assert.equal(read.id, survivor);
    assert.equal(read.revision, 2);
    assert.equal(read.matched_report_count, 2);
    const list = await revisions(merged);
    assert.deepEqual(
      list.data.map((r: { event_id: string; revision: number }) => [r.event_id, r.revision]),
      [
        [survivor, 2],
        [survivor, 1],
      ],
    );
    assert.deepEqual(list.data[0].merged_event_ids, [merged]);
    assert.deepEqual(list.data[0].changes.involved_entities.removed, []);
    assert.deepEqual(
      list.data[0].changes.involved_entities.added.map((e: { id: string }) => e.id),
      [a],
    );
  });

  it('when an entity the event names is merged into another, then the refresh makes a revision with the entities added and removed', async () => {
    const [alias, target] = [await corpus.entity('Alias Corp'), await corpus.entity('Target Corp')];
    const id = await corpus.article(article(alias, 0, 3));
    const merge = await corpus.ops('POST', `/entities/${alias}/merge`, { into_entity_id: target });
    assert.equal(merge.status, 200, merge.text);
    await server.ops.post('/drain');
    const read = await event(id);
    assert.equal(read.revision, 2);
    const [latest] = (await revisions(id)).data;
    assert.deepEqual(latest.changes.involved_entities, {
      added: [{ id: target, name: 'Target Corp', type: 'ORGANIZATION' }],
      removed: [{ id: alias, name: 'Alias Corp', type: 'ORGANIZATION' }],
    });
  });

  it('when an event is deleted or never was, then it is not found; a key without EVENTS_READ is refused', async () => {
    const id = await corpus.article(article(await corpus.entity(), 0, 2));
    assert.equal((await corpus.ops('DELETE', `/events/${id}`)).status, 204);
    for (const path of [`/v1/events/${id}`, `/v1/events/${id}/revisions`, '/v1/events/00000000-0000-4000-8000-000000000000']) {
      const answer = await server.http.get(path, bearer(key));
      assert.equal(answer.status, 404, answer.text);
      assert.match(answer.json.type, /not-found$/);
    }
    const bad = await server.http.get('/v1/events/not-a-uuid', bearer(key));
    assert.equal(bad.status, 400);
    const cursor = await server.http.get(`/v1/events/${id}/revisions?starting_after=0x1`, bearer(key));
    assert.equal(cursor.status, 400);
    const other = await corpus.account(0, ['SENSORS_READ']);
    assert.equal((await get(id, other.key)).status, 403);
  });

  it('when revisions are older than 90 days, then the sweep deletes them but the latest', async () => {
    const party = await corpus.entity();
    const id = await corpus.article(article(party, 0, 2));
    await server.ops.post('/clock', { now: '2026-11-20T13:00:00.000Z' });
    await corpus.article(article(party, 1, 1));
    await server.ops.post('/clock', { now: '2027-02-20T12:00:00.000Z' }); // 92 days on
    await server.ops.post('/drain');
    const kept = (await revisions(id)).data;
    assert.deepEqual(
      kept.map((r: { revision: number }) => r.revision),
      [2],
    );
    assert.equal((await event(id)).revision, 2);
    await server.ops.post('/clock', { now: NOW });
  });
});

// Migration 036 keeps a revision's changes in fewer bytes (stored-revision-changes.ts), and
// 038 as JSON text. Rows written before them in the API's form read the same once they have
// converted them. On a database of its own: the migrations write the whole table again.
describe('revisions stored before migration 036', () => {
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

  it('when rows hold the API form of their changes, then the migration converts them and they read as before', async () => {
    const corpus = testCorpus(server);
    const type = await corpus.eventType();
    const outlets = [await corpus.outlet(), await corpus.outlet()];
    const { key } = await corpus.account(0, ['EVENTS_READ']);
    const [party, mentioned, target] = [await corpus.entity('Party Co'), await corpus.entity('Mentioned Co'), await corpus.entity('Target Co')];
    const post = (outlet: number, hoursAgo: number, extra: Record<string, unknown> = {}) =>
      corpus.article({
        outlet_id: outlets[outlet],
        event_type_id: type.id,
        published_at: hoursBefore(hoursAgo),
        roles: [{ role: 'party', entity_id: party }],
        ...extra,
      });
    const id = await post(0, 5);
    // Earlier, with a day it happened and a mention: happened_at from null, an entity added.
    await server.ops.post('/clock', { now: '2026-11-20T12:05:00.000Z' });
    assert.equal(await post(1, 8, { happened_at: '2026-11-19', mentioned_entity_ids: [mentioned] }), id);
    await server.ops.post('/clock', { now: '2026-11-20T12:10:00.000Z' });
    assert.equal(await post(1, 1), id);
    // An entity merge: one added, one removed.
    assert.equal((await corpus.ops('POST', `/entities/${mentioned}/merge`, { into_entity_id: target })).status, 200);
    await server.ops.post('/drain');
    const read = async () => {
      const answer = await server.http.get(`/v1/events/${id}/revisions`, bearer(key));
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data;
    };
    const converted = await read();
    const changed = new Set(converted.flatMap((r: { changes: object }) => Object.keys(r.changes)));
    for (const field of ['first_report_date', 'last_report_date', 'happened_at', 'matched_report_count', 'involved_entities'])
      assert.ok(changed.has(field), field);

    const { db } = server.runtime;
    // The table as it was before migration 036: the changes in jsonb (migration 038 made them json), in the API's form,
    // and no merged events an empty array (migration 042 made it NULL).
    await db.query('ALTER TABLE event_revisions ALTER COLUMN changes TYPE jsonb USING changes::jsonb');
    await db.query("UPDATE event_revisions SET merged_event_ids = '{}' WHERE merged_event_ids IS NULL");
    for (const revision of converted.filter((r: { revision: number }) => r.revision > 1)) {
      await db.query('UPDATE event_revisions SET changes = $3::jsonb WHERE event_id = $1 AND revision = $2', [
        id,
        revision.revision,
        JSON.stringify(revision.changes),
      ]);
    }
    const forms = async () =>
      (
        await db.query<{ api: number; stored: number }>(
          `SELECT count(*) FILTER (WHERE changes::jsonb ? 'involved_entities')::int AS api, count(*) FILTER (WHERE changes::jsonb ? 'e')::int AS stored
             FROM event_revisions WHERE event_id = $1`,
          [id],
        )
      )[0];
    assert.deepEqual(await forms(), { api: 2, stored: 0 });
    await db.query("DELETE FROM schema_migrations WHERE name IN ('036_compact_revision_changes.sql', '038_revision_changes_as_text.sql')");
    assert.deepEqual(await migrate(db), ['036_compact_revision_changes.sql', '038_revision_changes_as_text.sql']);
    assert.deepEqual(await forms(), { api: 0, stored: 2 });
    const [column] = await db.query<{ type: string }>(
      "SELECT data_type AS type FROM information_schema.columns WHERE table_name = 'event_revisions' AND column_name = 'changes' AND table_schema = current_schema()",
    );
    assert.equal(column?.type, 'json');
    assert.deepEqual(await read(), converted);
  });
});

// Migration 041: a head keeps its number and counts; the event's row holds the rest of the
// state its latest revision left, and a trigger keeps the row's columns aside
// (event_revision_states_kept) when an update changes them, until the transaction's revision
// is recorded. On a database of its own: the
// tests write the events' rows and the heads' table directly.
describe('revision heads beside the event row (migration 041)', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let key: string;
  let type: { id: string };
  let outlets: string[];
  before(async () => {
    database = await isolatedDatabase();
    server = await startServer(database.env);
    await server.ops.post('/clock', { now: NOW });
    corpus = testCorpus(server);
    type = await corpus.eventType();
    outlets = [await corpus.outlet(), await corpus.outlet(), await corpus.outlet()];
    ({ key } = await corpus.account(0, ['EVENTS_READ']));
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  const post = async (party: string, outlet: number, hoursAgo: number) =>
    corpus.article({ outlet_id: outlets[outlet], event_type_id: type.id, published_at: hoursBefore(hoursAgo), roles: [{ role: 'party', entity_id: party }] });
  const head = async (db: Queryable, id: string) =>
    (
      await db.query<{ revision: number; counts: number | null; changed: boolean; was_sentence: string | null }>(
        `SELECT h.revision, h.matched_report_count AS counts, k.event_id IS NOT NULL AS changed, k.sentence AS was_sentence
           FROM event_revision_heads h LEFT JOIN event_revision_states_kept k ON k.event_id = h.event_id WHERE h.event_id = $1`,
        [id],
      )
    )[0];
  const latestChanges = async (id: string) => {
    const answer = await server.http.get(`/v1/events/${id}/revisions?limit=1`, bearer(key));
    assert.equal(answer.status, 200, answer.text);
    return answer.json.data[0];
  };

  it('when an event row changes and changes back in one transaction, then no revision and nothing kept aside; changed twice, the revision starts from before the first', async () => {
    const { db } = server.runtime;
    const id = await post(await corpus.entity('Aside Co'), 0, 3);
    const [{ sentence }] = (await db.query<{ sentence: string }>('SELECT sentence FROM events WHERE id = $1', [id])) as [{ sentence: string }];
    assert.deepEqual(await head(db, id), { revision: 1, counts: 1, changed: false, was_sentence: null });
    await db.transaction(async (tx) => {
      await tx.query("UPDATE events SET sentence = 'Changed for a moment.' WHERE id = $1", [id]);
      assert.deepEqual(await head(tx, id), { revision: 1, counts: 1, changed: true, was_sentence: sentence });
      await tx.query('UPDATE events SET sentence = $2 WHERE id = $1', [id, sentence]);
      await recordRevisions(tx, new Map([[id, []]]), new Date(NOW));
    });
    assert.deepEqual(await head(db, id), { revision: 1, counts: 1, changed: false, was_sentence: null });

    await db.transaction(async (tx) => {
      await tx.query("UPDATE events SET sentence = 'A new sentence.' WHERE id = $1", [id]);
      await tx.query("UPDATE events SET sentence = 'A newer sentence.' WHERE id = $1", [id]);
      await recordRevisions(tx, new Map([[id, []]]), new Date(NOW));
    });
    assert.deepEqual(await head(db, id), { revision: 2, counts: 1, changed: false, was_sentence: null });
    const latest = await latestChanges(id);
    assert.equal(latest.revision, 2);
    assert.deepEqual(latest.changes, { sentence: { from: sentence, to: 'A newer sentence.' } });
  });

  it('when heads held their state in full, then the migration keeps it aside only where the row differs, and the next revision starts from it', async () => {
    const { db } = server.runtime;
    const [known, unknown, differing] = [
      await post(await corpus.entity('Known Co'), 0, 5),
      await post(await corpus.entity('Unknown Co'), 0, 5),
      await post(await corpus.entity('Differing Co'), 0, 5),
    ];
    // The heads as migration 028 made them: the state in full; a state not known (migration 024's
    // revision 1) all null; one whose row changed since (as within a transaction).
    await db.exec(`DROP TRIGGER events_revision_state ON events;
      DROP FUNCTION event_revision_state_kept();
      DROP TABLE event_revision_states_kept;
      CREATE TABLE heads_028 AS
        SELECT h.event_id, h.revision, e.sentence, e.happened_at, e.first_report_date, e.last_report_date,
               h.matched_report_count, h.distinct_outlet_count, h.independent_source_count, e.involved_entity_ids AS entity_ids
          FROM event_revision_heads h JOIN events e ON e.id = h.event_id;
      DROP TABLE event_revision_heads;
      ALTER TABLE heads_028 RENAME TO event_revision_heads;
      ALTER TABLE event_revision_heads ADD PRIMARY KEY (event_id);`);
    await db.query(
      `UPDATE event_revision_heads SET sentence = NULL, happened_at = NULL, first_report_date = NULL, last_report_date = NULL,
              matched_report_count = NULL, distinct_outlet_count = NULL, independent_source_count = NULL, entity_ids = NULL WHERE event_id = $1`,
      [unknown],
    );
    await db.query("UPDATE event_revision_heads SET sentence = 'As the revision left it.' WHERE event_id = $1", [differing]);
    await db.query("DELETE FROM schema_migrations WHERE name = '041_revision_heads_from_events.sql'");
    assert.deepEqual(await migrate(db), ['041_revision_heads_from_events.sql']);

    assert.deepEqual(await head(db, known), { revision: 1, counts: 1, changed: false, was_sentence: null });
    assert.deepEqual(await head(db, unknown), { revision: 1, counts: null, changed: false, was_sentence: null });
    assert.deepEqual(await head(db, differing), { revision: 1, counts: 1, changed: true, was_sentence: 'As the revision left it.' });

    // Each gains a report from another outlet: the known one lists what that changed, the
    // unknown one nothing (what changed since cannot be told), the differing one its sentence too.
    for (const id of [known, unknown, differing]) {
      const [{ party }] = (await db.query<{ party: string }>('SELECT involved_entity_ids[1]::text AS party FROM events WHERE id = $1', [id])) as [
        { party: string },
      ];
      assert.equal(await post(party, 1, 4), id);
    }
    const knownChanges = (await latestChanges(known)).changes;
    assert.ok('matched_report_count' in knownChanges && !('sentence' in knownChanges), JSON.stringify(knownChanges));
    assert.deepEqual((await latestChanges(unknown)).changes, {});
    const differed = (await latestChanges(differing)).changes;
    assert.equal(differed.sentence?.from, 'As the revision left it.');
    for (const id of [known, unknown, differing]) assert.equal((await head(db, id))?.changed, false);
  });
});
