// An entity merged while articles naming it are being ingested: whichever commits first, no
// report, event or index row is left naming the merged entity once the merge's refresh has
// run. Ingest share-locks the rows of the survivors of the entities it names
// (reference.store.ts, lockedSurvivors) and a merge locks the entity rows for update: without
// that, an ingest that read "X is its own survivor" before the merge committed would write X
// into rows the merge's refresh never sees. On PostgreSQL the requests really overlap; the
// embedded database runs one transaction at a time, so there the test checks the end state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startArticleServer, type TestCorpus } from '../helpers/corpus.js';
import type { TestServer } from '../helpers/server.js';

const ROUNDS = 6;
const LINES = 300;

describe('entity merge during ingest', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let type: { id: string };
  let outlet: string;
  before(async () => {
    ({ server, corpus, type, outlet } = await startArticleServer());
  });
  after(() => server.close());

  const namingMerged = async (merged: string) =>
    (
      await server.runtime.db.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM event_participants WHERE entity_id = $1)
              + (SELECT count(*) FROM event_role_values WHERE entity_id = $1)
              + (SELECT count(*) FROM events WHERE $1 = ANY(involved_entity_ids) AND merged_into_event_id IS NULL AND deleted_at IS NULL))::int AS n`,
        [merged],
      )
    )[0]!.n;

  it('when an entity is merged while a bulk request and single articles name it, then afterwards nothing names the merged entity', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const merged = await corpus.entity();
      const survivor = await corpus.entity();
      const others = await Promise.all(Array.from({ length: 10 }, () => corpus.entity()));
      const article = (i: number) => ({
        outlet_id: outlet,
        event_type_id: type.id,
        url: `https://news.example/merge-race/${round}/${i}`,
        // A week apart (beyond the clustering window), all before the test clock: each article
        // its own event, so every one writes rows naming the entity.
        published_at: new Date(Date.UTC(1990, 0, 1) + (round * (LINES + 5) + i) * 7 * 86_400_000).toISOString(),
        roles: [{ role: 'party', entity_id: merged }],
        mentioned_entity_ids: [others[i % others.length]],
      });
      const bulk = corpus.bulk(Array.from({ length: LINES }, (_, i) => JSON.stringify(article(i))));
      const singles = Promise.all(Array.from({ length: 5 }, (_, i) => corpus.ops('POST', '/articles', article(LINES + i))));
      // The merge lands somewhere inside the ingests: early in some rounds, late in others.
      await sleep(round * 15);
      const merge = await corpus.ops('POST', `/entities/${merged}/merge`, { into_entity_id: survivor });
      assert.equal(merge.status, 200, merge.text);
      const { results } = await bulk;
      assert.ok(
        results.every((r: { status: number }) => r.status === 201),
        JSON.stringify(results.filter((r: { status: number }) => r.status !== 201)),
      );
      for (const single of await singles) assert.equal(single.status, 201, single.text);
      await server.ops.post('/drain');
      assert.equal(await namingMerged(merged), 0, `round ${round}: rows still naming the merged entity`);
      const events = await server.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_participants WHERE entity_id = $1', [survivor]);
      assert.equal(events[0]!.n, LINES + 5, `round ${round}: every article's event names the survivor`);
    }
  });
});
