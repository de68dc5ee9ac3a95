// An event's state (dates, happened_at, sentence, involved entities) is computed by one module
// for both ways into the corpus: report by report through ingest, and whole events through the
// bulk loader. The same reports must give the same event either way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { bulkInsertEvents, type BulkEvent } from '../../src/modules/corpus/bulk-load.js';
import { referenceStore } from '../../src/modules/corpus/reference.store.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const ROLES = { party: 'NAMED_ENTITY', other: 'NAMED_ENTITY', weight: 'WEIGHT', closing: 'DATE', note: 'NONE' };

interface GeneratedReport {
  minutesAgo: number;
  publishedLate: boolean; // published more than a day after receipt: the receipt time counts
  happenedAt: string | null;
  values: { role: keyof typeof ROLES; pick: number }[];
  mentions: number[];
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

  function roleEntry(value: GeneratedReport['values'][number]) {
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

  it('when the same reports are loaded by ingest and by the bulk loader, then the two events read the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(report, { minLength: 1, maxLength: 4, selector: (r) => r.minutesAgo }), async (reports) => {
        // A type of its own: the first ingested report opens a new event instead of clustering.
        const type = await corpus.eventType(ROLES, '{party} met {other}');
        const outlets = await Promise.all(reports.map(() => corpus.outlet()));
        const timesOf = (r: GeneratedReport) => {
          const received = new Date(NOW - r.minutesAgo * 60_000);
          return { received, published: new Date(received.getTime() + (r.publishedLate ? 2 * 86_400_000 : -60_000)) };
        };

        let ingested: string | null = null;
        for (const [i, r] of reports.entries()) {
          const { received, published } = timesOf(r);
          const body = {
            outlet_id: outlets[i],
            event_type_id: type.id,
            published_at: published.toISOString(),
            received_at: received.toISOString(),
            happened_at: r.happenedAt,
            roles: r.values.map(roleEntry),
            mentioned_entity_ids: r.mentions.map((m) => entities[m]!.id),
            ...(ingested ? { incident_id: ingested } : {}),
          };
          ingested = await corpus.article(body);
        }

        const db = server.runtime.db;
        const roles = await referenceStore.rolesOf(db, [type.id]);
        const roleId = (code: string) => roles.find((role) => role.code_name === code)!.id;
        const bulkId = server.runtime.newId();
        const event: BulkEvent = {
          id: bulkId,
          eventTypeId: type.id,
          reports: reports.map((r, i) => {
            const { received, published } = timesOf(r);
            return {
              id: server.runtime.newId(),
              outletId: outlets[i]!,
              publishedAt: published,
              receivedAt: received,
              happenedAt: r.happenedAt,
              headline: null,
              url: null,
              values: r.values.map((value) => {
                const { role: _, ...field } = roleEntry(value) as Record<string, unknown>;
                return {
                  roleId: roleId(value.role),
                  entityId: field.entity_id as string | undefined,
                  date: field.date as string | undefined,
                  amount: field.amount as { value: number; unit: string } | undefined,
                  text: field.text as string | undefined,
                };
              }),
              mentions: r.mentions.map((m) => entities[m]!.id),
            };
          }),
        };
        await db.transaction((tx) =>
          bulkInsertEvents(tx, [event], {
            types: new Map([[type.id, { template: '{party} met {other}', roles }]]),
            entityNames: new Map(entities.map((e) => [e.id, e.name])),
            now: new Date(NOW),
          }),
        );

        const read = async (id: string) => {
          const answer = await corpus.ops('GET', `/events/${id}`);
          assert.equal(answer.status, 200, answer.text);
          const { id: _, ...view } = answer.json;
          return view;
        };
        assert.deepEqual(await read(bulkId), await read(ingested!));
      }),
      { numRuns: 25 },
    );
  });
});
