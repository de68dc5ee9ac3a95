import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyQualityOf, pairsIn } from '../../src/modules/demo/copy-quality.js';
import { generateDemoCorpus } from '../../src/modules/demo/demo-corpus.js';
import { isolatedDatabase, startServer } from '../helpers/server.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const storyOf = (url: string) => /\/(s\d+\/[0-9a-z]+)-\d+$/.exec(url)![1]!;

/** Pairwise precision and recall from items given as their group and their true story, pair by pair (the slow way, to check the fast one). */
function byPairs(items: readonly { group: string; story: string }[]) {
  let predicted = 0;
  let truth = 0;
  let shared = 0;
  for (let i = 0; i < items.length; i++) {
    for (let j = 0; j < i; j++) {
      const grouped = items[i]!.group === items[j]!.group;
      const told = items[i]!.story === items[j]!.story;
      if (grouped) predicted++;
      if (told) truth++;
      if (grouped && told) shared++;
    }
  }
  return { predicted, truth, shared };
}

/** The pair counts of items, by group sizes as the SQL counts them. */
function bySizes(items: readonly { group: string; story: string }[]) {
  const count = (key: (x: { group: string; story: string }) => string) => {
    const sizes = new Map<string, number>();
    for (const item of items) sizes.set(key(item), (sizes.get(key(item)) ?? 0) + 1);
    return pairsIn(sizes.values());
  };
  return {
    predicted: count((x) => x.group),
    truth: count((x) => x.story),
    shared: count((x) => JSON.stringify([x.group, x.story])),
    reports: items.length,
    stories: new Set(items.map((x) => x.story)).size,
  };
}

describe('copy detection quality', () => {
  it('when pairs are counted from group sizes, then they are the pairs counted one by one', () => {
    // Groups a a a b b c; stories x x y y y z: a pair of a's and a pair of b's agree.
    const items = [...'aaabbc'].map((group, i) => ({ group, story: 'xxyyyz'[i]! }));
    const counts = bySizes(items);
    assert.deepEqual({ predicted: counts.predicted, truth: counts.truth, shared: counts.shared }, byPairs(items));
    assert.deepEqual(counts, { predicted: 4, truth: 4, shared: 2, reports: 6, stories: 3 });
    assert.deepEqual(copyQualityOf(counts), { precision: 0.5, recall: 0.5, truePairs: 4, predictedPairs: 4, copyShare: 0.5 });
  });

  it('when nothing is grouped or nothing is told twice, then precision or recall is null', () => {
    assert.deepEqual(copyQualityOf({ predicted: 0, truth: 3, shared: 0, reports: 4, stories: 2 }), {
      precision: null,
      recall: 0,
      truePairs: 3,
      predictedPairs: 0,
      copyShare: 0.5,
    });
    assert.deepEqual(copyQualityOf({ predicted: 2, truth: 0, shared: 0, reports: 3, stories: 3 }), {
      precision: 0,
      recall: null,
      truePairs: 0,
      predictedPairs: 2,
      copyShare: 0,
    });
    assert.deepEqual(copyQualityOf({ predicted: 0, truth: 0, shared: 0, reports: 0, stories: 0 }), {
      precision: null,
      recall: null,
      truePairs: 0,
      predictedPairs: 0,
      copyShare: null,
    });
  });

  it('when the corpus is loaded, then the summary gives copy detection against the true stories, as the reports read back say', async () => {
    const database = await isolatedDatabase();
    const server = await startServer(database.env);
    try {
      await server.ops.post('/clock', { now: NOW.toISOString() });
      const summary = await generateDemoCorpus(server.runtime, { events: 150, seed: 9, batchSize: 100 });
      const reports = await server.runtime.db.query<{ grp: string; url: string }>(
        `SELECT COALESCE(r.copy_group, r.received_seq)::text AS grp, r.url FROM reports r WHERE r.source_kind = 'ARTICLE'`,
      );
      assert.equal(reports.length, summary.reports);
      const quality = copyQualityOf(bySizes(reports.map((r) => ({ group: r.grp, story: storyOf(r.url) }))));
      const round = (n: number | null) => (n === null ? null : Math.round(n * 1e4) / 1e4);
      assert.deepEqual(summary.copies, { ...quality, precision: round(quality.precision), recall: round(quality.recall), copyShare: round(quality.copyShare) });
      assert.ok(summary.copies.truePairs > 50 && summary.copies.predictedPairs > 0, JSON.stringify(summary.copies));
      process.stdout.write(`# copy detection on ${summary.reports} demo articles: ${JSON.stringify(summary.copies)}\n`);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
