import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateDemoCorpus } from '../../src/modules/demo/demo-corpus.js';
import { DEMO_EVENT_TYPES } from '../../src/modules/demo/demo-event-types.js';
import { seedDemoAccount } from '../../src/modules/demo/demo-seed.js';
import { ROLE_VALUE_TYPES } from '../../src/modules/corpus/reference.schemas.js';
import { startServer } from '../helpers/server.js';

async function corpusOf(seed: number) {
  // The embedded database in memory: each run starts empty, whatever the suite's storage.
  const server = await startServer({ EVMON_DATABASE_URL: 'memory://' });
  try {
    const summary = await generateDemoCorpus(server.runtime, { events: 400, seed, batchSize: 150, mergeShare: 0.05 });
    const sentences = (await server.runtime.db.query<{ sentence: string }>('SELECT sentence FROM events ORDER BY sentence')).map((r) => r.sentence);
    const entities = (await server.runtime.db.query<{ name: string }>('SELECT name FROM entities ORDER BY name')).map((r) => r.name);
    const counts = (
      await server.runtime.db.query<{ live: number; merged: number; reports: number }>(
        `SELECT count(*) FILTER (WHERE merged_into_event_id IS NULL)::int AS live, count(*) FILTER (WHERE merged_into_event_id IS NOT NULL)::int AS merged,
              (SELECT count(*)::int FROM reports) AS reports FROM events`,
      )
    )[0]!;
    // Per live event that no other was merged into (a merge joins two stories) and role: how far
    // its reports' figures spread, and how many currencies or texts they use.
    const agreement = await server.runtime.db.query<{ spread: number; units: number; texts: number }>(
      `SELECT coalesce(max(rr.amount_value) / nullif(min(rr.amount_value), 0), 1)::float8 AS spread,
              count(DISTINCT rr.amount_unit)::int AS units, count(DISTINCT rr.text_value)::int AS texts
         FROM report_roles rr JOIN reports r ON r.id = rr.report_id JOIN events e ON e.id = r.event_id
        WHERE e.merged_into_event_id IS NULL AND NOT EXISTS (SELECT 1 FROM events m WHERE m.merged_into_event_id = e.id)
        GROUP BY r.event_id, rr.role_id HAVING count(*) > 1`,
    );
    const lastReportDates = (
      await server.runtime.db.query<{ shared: number }>(
        `SELECT count(*)::int AS shared FROM events WHERE merged_into_event_id IS NULL GROUP BY last_report_date ORDER BY shared DESC LIMIT 1`,
      )
    )[0]!.shared;
    return { summary, sentences, entities, counts, agreement, lastReportDates };
  } finally {
    await server.close();
  }
}

describe('demo corpus', () => {
  it('when generated twice with one seed, then names and sentences are the same; with another seed, they differ', async () => {
    const first = await corpusOf(42);
    const second = await corpusOf(42);
    const other = await corpusOf(43);
    assert.deepEqual(first.sentences, second.sentences);
    assert.deepEqual(first.entities, second.entities);
    assert.notDeepEqual(first.sentences, other.sentences);
    assert.equal(first.summary.events, 400);
    assert.equal(first.counts.reports, first.summary.reports);
    assert.ok(first.summary.reports >= 800, 'several reports per event on average');
    assert.equal(first.counts.merged, first.summary.merges);
    assert.ok(first.summary.merges > 0, 'some events are merged');
    assert.ok(
      first.sentences.every((s) => s !== null && !s.includes('{')),
      'every sentence renders',
    );
    assert.ok(first.entities.includes('Germany'), 'countries come from world-countries');
  });

  it('when an event has several reports, then their figures agree within a few percent in one currency, and events rarely share a last_report_date', async () => {
    const { agreement, lastReportDates, summary } = await corpusOf(7);
    const amounts = agreement.filter((row) => row.units > 0);
    assert.ok(amounts.length > 50, `enough events quote a figure more than once (${amounts.length})`);
    assert.ok(
      amounts.every((row) => row.spread <= 1.05),
      `largest spread ${Math.max(...amounts.map((r) => r.spread))}`,
    );
    assert.ok(
      amounts.some((row) => row.spread > 1),
      'reports do not all copy one figure',
    );
    assert.ok(
      amounts.every((row) => row.units === 1),
      'one unit or currency per event and role',
    );
    assert.ok(
      agreement.filter((row) => row.texts > 0).every((row) => row.texts === 1),
      'one text per event and role',
    );
    assert.ok(lastReportDates <= 2, `at most two of ${summary.events} events share a last_report_date (${lastReportDates})`);
  });

  it('when the demo event types are listed, then they use every role value type but CATEGORICAL', () => {
    assert.ok(DEMO_EVENT_TYPES.length >= 10);
    const used = new Set(DEMO_EVENT_TYPES.flatMap((t) => t.roles.map((r) => r.expected_type ?? 'null')));
    for (const type of ROLE_VALUE_TYPES.filter((t) => t !== 'CATEGORICAL')) assert.ok(used.has(type), type);
    assert.ok(used.has('null'), 'an untyped role too');
    assert.ok(!used.has('CATEGORICAL'));
  });

  it('when the demo account is seeded, then the start-up banner shows the key and never the words of the completion line', async () => {
    const server = await startServer({ EVMON_DATABASE_URL: 'memory://' });
    try {
      const seeded = await seedDemoAccount(server.runtime);
      assert.ok(seeded);
      assert.match(seeded.banner, /Demo API key \(all scopes, shown once\): evk_[A-Za-z0-9_-]{43}\n/);
      assert.match(seeded.banner, /loading in the background/);
      // A script waits for the log line `demo corpus seeded`; the banner comes long before it.
      assert.doesNotMatch(seeded.banner, /demo\s+corpus\s+seeded/i);
    } finally {
      await server.close();
    }
  });
});
