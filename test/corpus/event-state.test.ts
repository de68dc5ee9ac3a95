// An event's state (dates, happened_at, sentence, involved entities) is computed by one module
// (event-state.ts) whichever way reports come in: one article per request, or many in one bulk
// request, where a batch's reports of one event are folded into its state together. The same
// reports must give the same event either way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
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
              roles: r.values.map(roleEntry),
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
});
