// An event's state (dates, happened_at, sentence, involved entities) is computed by one module
// (event-state.ts) whichever way reports come in: one article per request, or many in one bulk
// request, where a batch's reports of one event are folded into its state together. The same
// reports must give the same event either way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { refreshEvent } from '../../src/modules/corpus/event-refresh.js';
import type { Queryable } from '../../src/platform/db/database.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { isolatedDatabase, startServer, type TestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const ROLES = { party: 'NAMED_ENTITY', other: 'NAMED_ENTITY', weight: 'WEIGHT', closing: 'DATE', note: 'NONE' };

interface GeneratedReport {
  minutesAgo: number;
  publishedLate: boolean; // published more than a day after receipt: the receipt time counts
  happenedAt: string | null;
  values: { role: keyof typeof ROLES; pick: number }[];
  mentions: number[];
}

const report: fc.Arbitrary<GeneratedReport> = fc.record({
  minutesAgo: fc.integer({ min: 10, max: 5_000 }),
  publishedLate: fc.boolean(),
  happenedAt: fc.constantFrom(null, '2026-11-18', '2026-11-19T06:00:00Z', 'last week'),
  values: fc.uniqueArray(fc.record({ role: fc.constantFrom(...(Object.keys(ROLES) as (keyof typeof ROLES)[])), pick: fc.nat(3) }), {
    selector: (v) => v.role,
    minLength: 1,
    maxLength: 5,
  }),
  mentions: fc.uniqueArray(fc.nat(3), { maxLength: 2 }),
});

/** A report's role entry, entities picked from `entities`. */
function roleEntry(value: GeneratedReport['values'][number], entities: readonly { id: string }[]) {
  switch (value.role) {
    case 'party':
    case 'other':
      return { role: value.role, entity_id: entities[value.pick]!.id };
    case 'weight':
      return { role: value.role, amount: { value: 10 * value.pick + 0.5, unit: ['kg', 'lb', '', 'KG'][value.pick]! } };
    case 'closing':
      return { role: value.role, date: `2026-11-0${value.pick + 1}` };
    case 'note':
      return { role: value.role, text: ['calm', 'tense', 'unclear', 'over'][value.pick]! };
  }
}

describe('event state', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  const entities: { id: string; name: string }[] = [];

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: new Date(NOW).toISOString() });
    for (const name of ['Acme', 'Globex', 'Initech', 'Umbrella']) entities.push({ id: await corpus.entity(name), name });
  });
  after(() => server.close());

  it('when the same reports are ingested one by one and in bulk requests, then the two events read the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(report, { minLength: 1, maxLength: 4, selector: (r) => r.minutesAgo }), async (reports) => {
        // A type per path, so the first report of each opens a new event instead of clustering
        // into the other path's; the later ones join it by incident_id.
        const types = [await corpus.eventType(ROLES, '{party} met {other}'), await corpus.eventType(ROLES, '{party} met {other}')];
        const outlets = await Promise.all(reports.map(() => corpus.outlet()));
        const bodies = (typeId: string) =>
          reports.map((r, i) => {
            const received = new Date(NOW - r.minutesAgo * 60_000);
            const published = new Date(received.getTime() + (r.publishedLate ? 2 * 86_400_000 : -60_000));
            return {
              outlet_id: outlets[i],
              event_type_id: typeId,
              published_at: published.toISOString(),
              received_at: received.toISOString(),
              happened_at: r.happenedAt,
              roles: r.values.map((value) => roleEntry(value, entities)),
              mentioned_entity_ids: r.mentions.map((m) => entities[m]!.id),
            };
          });

        const [first, ...rest] = bodies(types[0]!.id);
        const single = await corpus.article(first!);
        for (const body of rest) await corpus.article({ ...body, incident_id: single });

        const [bulkFirst, ...bulkRest] = bodies(types[1]!.id);
        const [bulk] = await corpus.articles([bulkFirst!]);
        if (bulkRest.length > 0) await corpus.articles(bulkRest.map((body) => ({ ...body, incident_id: bulk })));

        const read = async (id: string) => {
          const answer = await corpus.ops('GET', `/events/${id}`);
          assert.equal(answer.status, 200, answer.text);
          const { id: _, event_type: __, ...view } = answer.json;
          return view;
        };
        assert.deepEqual(await read(bulk!), await read(single));
      }),
      { numRuns: 25 },
    );
  });

  // An event's row is rewritten with nearly every report; the rewrite stays on its page (a HOT
  // update: no index entry, the old version pruned in the page) only when no index holds a
  // column it changed and the page has room (migration 026).
  it('when a report from a new outlet joins an event, then no index on events holds a column its update changed, and pages keep room for it', async () => {
    const type = await corpus.eventType(ROLES, '{party} met {other}');
    const body = (outlet: string, minutesAgo: number, party: number) => ({
      outlet_id: outlet,
      event_type_id: type.id,
      published_at: new Date(NOW - minutesAgo * 60_000 - 60_000).toISOString(),
      received_at: new Date(NOW - minutesAgo * 60_000).toISOString(),
      happened_at: null,
      roles: [{ role: 'party', entity_id: entities[party]!.id }],
      mentioned_entity_ids: [],
    });
    const eventId = await corpus.article(body(await corpus.outlet(), 60, 0));
    type Row = Record<string, unknown>;
    const row = async () => (await server.runtime.db.query<Row>('SELECT * FROM events WHERE id = $1', [eventId]))[0]!;
    const before = await row();
    await corpus.article({ ...body(await corpus.outlet(), 30, 1), incident_id: eventId });
    const after = await row();
    const changed = Object.keys(after).filter((column) => JSON.stringify(after[column]) !== JSON.stringify(before[column]));
    for (const column of ['source_seqs', 'last_report_date', 'involved_entity_ids']) assert.ok(changed.includes(column), `${column} changed`);

    const indexes = await server.runtime.db.query<{ definition: string }>(
      `SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'events'::regclass`,
    );
    for (const { definition } of indexes) {
      const held = changed.filter((column) => new RegExp(`\\b${column}\\b`).test(definition));
      assert.deepEqual(held, [], definition);
    }
    const [{ options }] = (await server.runtime.db.query<{ options: string[] | null }>(
      `SELECT reloptions AS options FROM pg_class WHERE oid = 'events'::regclass`,
    )) as [{ options: string[] | null }];
    assert.ok(
      options?.some((option) => /^fillfactor=([1-8]\d|9[0-5])$/.test(option)),
      `events keeps room on its pages: ${options}`,
    );
  });
});

// A report added to an event updates its state in place when that is exact (the report sorts
// last, names nothing new and changes nothing the earlier reports fixed), else the event is
// recomputed from all its reports. Either way the stored rows (the event, its entity index,
// its search index) must be those a full recompute writes: checked after every report of
// random sequences that mix in entity merges and deletions (their background refresh held
// back, so the event's state is stale when the next report comes) and event type changes.
describe('event state updated report by report', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let inPlace = 0; // reports whose event was updated in place, not recomputed

  before(async () => {
    // A database of its own: no other test's server runs the refreshes held back here.
    database = await isolatedDatabase();
    server = await startServer(database.env);
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: new Date(NOW).toISOString() });
    await server.runtime.jobs.stop();
    // Counts the in-place updates (the statement that writes the report answers `in_place`).
    const { db } = server.runtime;
    const transaction = db.transaction.bind(db);
    db.transaction = ((work) =>
      transaction((tx) =>
        work({
          ...tx,
          query: async <T>(sql: string, params?: readonly unknown[]) => {
            const rows = await tx.query<T>(sql, params);
            if ((rows[0] as { in_place?: boolean } | undefined)?.in_place === true) inPlace++;
            return rows;
          },
        }),
      )) as typeof db.transaction;
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  /** The rows that hold an event's state, as JSON that reads the same on both storage paths. */
  const stateRows = async (db: Queryable, eventId: string) =>
    (
      await db.query<{ rows: unknown }>(
        `SELECT json_build_object(
           'event', (SELECT json_build_object('first', first_report_date, 'last', last_report_date, 'happened_at', happened_at, 'happened_on', happened_on,
                                              'sentence', sentence, 'involved', involved_entity_ids, 'source_seqs', source_seqs, 'type_version', type_version)
                       FROM events WHERE id = $1),
           'participants', (SELECT json_agg(json_build_array(entity_id, anchor) ORDER BY entity_id) FROM event_participants WHERE event_id = $1),
           'sources', (SELECT json_agg(json_build_array(source_id, source_kind, first_seq, first_report_date) ORDER BY source_id) FROM event_sources WHERE event_id = $1),
           'values', (SELECT json_agg(json_build_array(role_id, source_kind, seq, first_report_date, entity_id, date_value, amount_value, amount_unit) ORDER BY seq, role_id)
                        FROM event_role_values WHERE event_id = $1)) AS rows`,
        [eventId],
      )
    )[0]!.rows;

  /** What a full recompute of the event from all its reports writes (rolled back after reading). */
  async function recomputedRows(eventId: string, eventTypeId: string) {
    let rows: unknown;
    const rollback = new Error('rollback');
    await server.runtime.db
      .transaction(async (tx) => {
        await refreshEvent(tx, eventId, eventTypeId, new Date(NOW));
        rows = await stateRows(tx, eventId);
        throw rollback;
      })
      .catch((error) => {
        if (error !== rollback) throw error;
      });
    return rows;
  }

  type Step =
    | { kind: 'report'; later: boolean; minutes: number; report: GeneratedReport; echo: number | null; swap: boolean; outlet: number; join: boolean }
    | { kind: 'merge'; from: number; into: number }
    | { kind: 'delete'; entity: number }
    | { kind: 'retype'; change: 'template' | 'order' | 'role' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('report' as const),
        later: fc.constantFrom(true, true, true, false),
        minutes: fc.integer({ min: 1, max: 600 }),
        report,
        echo: fc.option(fc.nat(31), { freq: 4 }),
        swap: fc.constantFrom(false, false, true),
        outlet: fc.nat(2),
        join: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), from: fc.nat(3), into: fc.nat(3) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), entity: fc.nat(3) }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('retype' as const), change: fc.constantFrom('template' as const, 'order' as const, 'role' as const) }),
    },
  );

  it('when reports join an event one by one, among entity and type changes, then its stored rows are those a full recompute writes', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(report, fc.array(step, { minLength: 4, maxLength: 12 }), async (first, steps) => {
        const type = await corpus.eventType(ROLES, '{party} met {other}');
        const outlets = [await corpus.outlet(), await corpus.outlet(), await corpus.outlet()];
        const pool = await Promise.all(['Acme', 'Globex', 'Initech', 'Umbrella'].map(async (name) => ({ id: await corpus.entity(name), name })));
        let latest = NOW - 10_000 * 60_000;
        let eventId: string | null = null;
        const ingest = async (r: GeneratedReport, receivedAt: number, outlet: number, join: boolean) => {
          const received = new Date(receivedAt);
          const answer = await corpus.ops('POST', '/articles', {
            outlet_id: outlets[outlet],
            event_type_id: type.id,
            received_at: received.toISOString(),
            published_at: r.publishedLate ? new Date(received.getTime() + 2 * 86_400_000).toISOString() : null,
            happened_at: r.happenedAt,
            roles: r.values.map((value) => roleEntry(value, pool)),
            mentioned_entity_ids: r.mentions.map((m) => pool[m]!.id),
            ...(join && eventId ? { incident_id: eventId } : {}),
          });
          if (answer.status === 400) return; // it names a deleted entity
          assert.equal(answer.status, 201, answer.text);
          eventId ??= answer.json.incident_id as string;
          const joined = answer.json.incident_id as string;
          assert.deepEqual(await stateRows(server.runtime.db, joined), await recomputedRows(joined, type.id));
          compared++;
        };

        await ingest(first, latest, 0, false);
        for (const s of steps) {
          if (s.kind === 'report') {
            const receivedAt = latest + (s.later ? 1 : -1) * s.minutes * 60_000;
            latest = Math.max(latest, receivedAt);
            // As news goes, many a later report repeats some of the first one's values (those bits
            // of `echo`), some with another entity or value in a role (`swap`).
            const echoed = s.echo === null ? s.report.values : first.values.filter((_, i) => i === 0 || (s.echo! >> i) & 1);
            const values = s.swap ? echoed.map((v, i) => (i === 0 ? { ...v, pick: (v.pick + 1) % 4 } : v)) : echoed;
            await ingest({ ...s.report, values }, receivedAt, s.outlet, s.join);
          } else if (s.kind === 'merge') {
            await corpus.ops('POST', `/entities/${pool[s.from]!.id}/merge`, { into_entity_id: pool[s.into]!.id }); // refused when it makes no sense
          } else if (s.kind === 'delete') {
            await corpus.ops('DELETE', `/entities/${pool[s.entity]!.id}`);
          } else {
            const current = (await corpus.ops('GET', `/event-types/${type.id}`)).json;
            const roles = current.roles.map(({ id, code_name, name, expected_type }: Record<string, unknown>) => ({ id, code_name, name, expected_type }));
            const change =
              s.change === 'template'
                ? { sentence_template: current.sentence_template === '{party} met {other}' ? '{other} was met by {party}' : '{party} met {other}' }
                : s.change === 'order'
                  ? { roles: [...roles].reverse() }
                  : { roles: [...roles, { code_name: `extra_${roles.length}`, name: 'Extra', expected_type: null }] };
            const answer = await corpus.ops('PATCH', `/event-types/${type.id}`, change);
            assert.equal(answer.status, 200, answer.text);
          }
        }
      }),
      { numRuns: 15 },
    );
    assert.ok(compared > 50, `only ${compared} reports compared`);
    // Some reports of a sequence must take each path, or the comparison proves nothing.
    assert.ok(inPlace >= 5, `only ${inPlace} of ${compared} reports updated their event in place`);
  });
});
