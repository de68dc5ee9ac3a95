// Copy detection's look-ahead (corpus/recent-copies.ts, CopiesAhead): the demo looks its next
// batch's texts up while one is written, and each batch's transaction completes the look-ups
// with the fingerprints held since. Loaded with and without it, the same articles land in the
// same events and the same copy groups.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateDemoCorpus } from '../../src/modules/demo/demo-corpus.js';
import { isolatedDatabase, startServer } from '../helpers/server.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');

/** Each article (by url): the first url of its event, of its copy group, and how many its group holds. */
async function loaded(lookAhead: boolean) {
  const database = await isolatedDatabase();
  const server = await startServer(database.env);
  try {
    await server.ops.post('/clock', { now: NOW.toISOString() });
    const { runtime } = server;
    const events = lookAhead ? runtime.events : { ingestArticles: runtime.events.ingestArticles };
    // Batches of 40 over 300 events: many batches, each looking ahead while the one before is written.
    const summary = await generateDemoCorpus({ ...runtime, events }, { events: 300, seed: 13, batchSize: 40 });
    const rows = await runtime.db.query<{ url: string; event_first: string; group_first: string; group_size: number }>(
      `SELECT r.url,
              min(r.url) OVER (PARTITION BY COALESCE(e.merged_into_event_id, e.id)) AS event_first,
              min(r.url) OVER (PARTITION BY COALESCE(r.copy_group, r.received_seq)) AS group_first,
              (count(*) OVER (PARTITION BY COALESCE(r.copy_group, r.received_seq)))::int AS group_size
         FROM reports r JOIN events e ON e.id = r.event_id
        WHERE r.source_kind = 'ARTICLE' ORDER BY r.url`,
    );
    return { summary, rows };
  } finally {
    await server.close();
    await database.drop();
  }
}

describe('copy look-ahead', () => {
  it('when the demo looks each next batch up ahead, then every article lands in the event and copy group it lands in without', async () => {
    const ahead = await loaded(true);
    const without = await loaded(false);
    assert.equal(ahead.rows.length, ahead.summary.reports);
    assert.ok(ahead.rows.filter((row) => row.group_size > 1).length > 50, 'the corpus has copies to find');
    assert.deepEqual(ahead.rows, without.rows);
    assert.deepEqual(ahead.summary.copies, without.summary.copies);
  });
});
