// Texts at ingest (independent-sources issue): the same articles loaded through importArticles
// (evmon import, POST /ops/v1/articles/bulk) into fresh databases, without text and with texts
// of about 3,000 characters (a third of them copies of another outlet's story, with edits),
// alternating, in one run. Beside them, the floor: the same texts cut into paragraphs of ten
// words, so each is sent, parsed, checked and read but none is long enough to be fingerprinted
// (what carrying the text costs before copy detection does anything). Goals: with texts >=
// 0.90 of the throughput without; the
// fingerprint and copy group cost <= 24 bytes per report (pg_total_relation_size of the corpus
// tables, with texts minus without, over the reports).
// Also printed: copy detection's pairwise precision and recall on these articles (the
// generator knows which texts are copies), and the share of reports found copies.
//
//   npx tsx bench/copy-texts.ts                                  embedded database in memory
//   BENCH_DATABASE_URL=postgres://…/db npx tsx bench/copy-texts.ts   PostgreSQL: a schema of its own per load (dropped after)
//   BENCH_ARTICLES=20000 BENCH_BATCH=2000 BENCH_ROUNDS=2 BENCH_MODES=without,texts,floor
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { importArticles } from '../src/modules/corpus/article-import.js';
import { createRuntime } from '../src/runtime.js';
import { type BulkArticleType, bulkArticles } from './bulk-articles.js';
import { benchKeyEnv } from './encryption-key.js';
import { dealEventType } from './fixtures.js';
import { insertEntities } from './subscribers.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';
const onPostgres = /^postgres(ql)?:/.test(DATABASE_URL);
const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 20_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CORPUS_TABLES = ['events', 'reports', 'event_participants'];
const WORDS = (
  'the of and to in said for on that with was as by at from its were has have after who over about more than when year company ' +
  'deal court police minister talks market shares government city report people week strike rain border vote plan bank rate price ' +
  'river bridge school hospital council union agency officials residents board investors analysts quarter profit loss chief executive'
).split(' ');

/** xorshift32, seeded: the same texts every run. */
function seeded(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}
const random = seeded(42);
const pick = (n: number) => Math.floor(random() * n);
/** A story of its own: about 3,000 characters in six paragraphs. */
const story = () => Array.from({ length: 6 }, () => Array.from({ length: 75 }, () => `${WORDS[pick(WORDS.length)]}${pick(100)}`).join(' ')).join('\n\n');
/** A republished story: its last paragraph trimmed, a copyright line, or shouted. */
function republished(text: string): string {
  const roll = pick(3);
  if (roll === 0) return text.split('\n\n').slice(0, -1).join('\n\n');
  if (roll === 1) return `By staff and wires\n\n${text}\n\nCopyright 2026. All rights reserved.`;
  return text.toUpperCase();
}

/** The lines (without text), and each line's text and its true story. */
function articles(outlets: string[], types: BulkArticleType[], entities: { id: string; name: string }[]) {
  const { lines } = bulkArticles({ articles: ARTICLES, outlets, types, entities, start: new Date('2026-10-01T00:00:00Z'), days: 30, seed: 7 });
  const wires = new Map<string, string>();
  const texts: { text: string; story: string }[] = [];
  for (const line of lines) {
    const [event, reporter] = /\/(\d+)-(\d+)$/.exec(JSON.parse(line).url)!.slice(1) as [string, string];
    const wire = wires.get(event) ?? wires.set(event, story()).get(event)!;
    if (reporter === '0') texts.push({ text: wire, story: `${event}-0` });
    else if (random() < 0.45) texts.push({ text: republished(wire), story: `${event}-0` });
    else texts.push({ text: story(), story: `${event}-${reporter}` });
  }
  return { lines, texts };
}

/** How a load carries texts: none, texts judged, or the same texts carried and read but never fingerprinted. */
type Mode = 'without' | 'texts' | 'floor';
/** A text cut into paragraphs of ten words: read, but every paragraph is too short to count. */
const unjudged = (text: string) => {
  let n = 0;
  return text.replace(/ /g, () => (++n % 10 === 0 ? '\n\n' : ' '));
};

async function load(mode: Mode, schema: string) {
  const withText = mode !== 'without';
  const url = onPostgres ? `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}` : DATABASE_URL;
  const config = loadConfig({ EVMON_DATABASE_URL: url, ...benchKeyEnv(url), EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-copy-texts`, EVMON_SEED: 'none' });
  const runtime = await createRuntime(config, pino({ level: 'warn' }));
  try {
    const { db } = runtime;
    const outlets = (await Promise.all(Array.from({ length: 20 }, (_, i) => runtime.reference.createOutlet({ name: `Outlet ${i}` })))).map((o) => o.id);
    const type = await dealEventType(runtime);
    const types: BulkArticleType[] = [{ id: type.id, parties: ['buyer', 'seller'], amount: 'price', headline: (a, b) => `${a} to buy ${b}` }];
    const entities = await insertEntities(db, 5_000, runtime.clock.now(), 'Company');
    const { lines, texts } = articles(outlets, types, entities);
    const textOf = (i: number) => (mode === 'floor' ? unjudged(texts[i]!.text) : texts[i]!.text);
    const body = withText ? lines.map((line, i) => `${line.slice(0, -1)},"text":${JSON.stringify(textOf(i))}}`) : lines;
    async function* feed() {
      yield* body;
    }
    const started = performance.now();
    const summary = await importArticles(runtime.events, feed(), { batchSize: BATCH });
    const seconds = (performance.now() - started) / 1000;
    if (summary.imported !== ARTICLES) throw new Error(`imported ${summary.imported} of ${ARTICLES}`);
    const [size] = await db.query<{ bytes: number; reports: number; tables: Record<string, number> }>(
      `SELECT (SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) t)::float8 AS bytes, (SELECT count(*)::int FROM reports) AS reports,
              (SELECT json_object_agg(t, pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) t) AS tables`,
      [CORPUS_TABLES],
    );
    process.stderr.write(`${mode}: ${JSON.stringify(size!.tables)}\n`);
    let quality = null;
    if (mode === 'texts') {
      // Pairs of reports in one predicted group, and in one true story (by url: the line's place).
      const rows = await db.query<{ url: string; grp: string }>('SELECT url, COALESCE(copy_group, received_seq)::text AS grp FROM reports');
      const storyOf = new Map(lines.map((line, i) => [JSON.parse(line).url as string, texts[i]!.story]));
      const pairs = (keys: string[]) => {
        const n = new Map<string, number>();
        for (const key of keys) n.set(key, (n.get(key) ?? 0) + 1);
        return [...n.values()].reduce((sum, k) => sum + (k * (k - 1)) / 2, 0);
      };
      const predicted = pairs(rows.map((r) => r.grp));
      const truth = pairs(rows.map((r) => storyOf.get(r.url)!));
      const both = pairs(rows.map((r) => `${r.grp} ${storyOf.get(r.url)}`));
      const copies = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM reports WHERE copy_group IS NOT NULL'))[0]!.n;
      quality = { precision: both / predicted, recall: both / truth, truePairs: truth, copyShare: copies / ARTICLES };
    }
    return { rate: ARTICLES / seconds, bytesPerReport: size!.bytes / size!.reports, quality };
  } finally {
    await runtime.close();
  }
}

async function inSchema<T>(schema: string, run: () => Promise<T>): Promise<T> {
  if (!onPostgres) return run();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  try {
    return await run();
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

// BENCH_MODES=texts (comma-separated) loads only these, e.g. to profile one of them.
const MODES = (process.env.BENCH_MODES?.split(',') ?? ['without', 'texts', 'floor']) as Mode[];
const results: { mode: Mode; rate: number; bytesPerReport: number; quality: unknown }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    const result = await inSchema(`bench_copy_texts_${mode}`, () => load(mode, `bench_copy_texts_${mode}`));
    results.push({ mode, ...result });
    process.stderr.write(`round ${round + 1}, ${mode}: ${Math.round(result.rate)} articles/s\n`);
  }
}
if (MODES.length < 3) {
  console.log(JSON.stringify({ modes: MODES, articlesPerSecond: results.map((r) => ({ mode: r.mode, rate: Math.round(r.rate) })) }));
  process.exit(0);
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rate = (mode: Mode, round: number) => results[MODES.length * round + MODES.indexOf(mode)]!.rate;
// Each round loads the three back to back: the ratios of each round, side by side.
const ratios = (mode: Mode, of: Mode) => Array.from({ length: ROUNDS }, (_, round) => rate(mode, round) / rate(of, round));
const ratio = (mode: Mode, of: Mode) => ({ perRound: ratios(mode, of).map((r) => Number(r.toFixed(3))), median: Number(median(ratios(mode, of)).toFixed(3)) });
const bytes = (mode: Mode) => median(results.filter((r) => r.mode === mode).map((r) => r.bytesPerReport));
console.log(
  JSON.stringify(
    {
      database: onPostgres ? 'PostgreSQL' : 'PGlite (memory)',
      articles: ARTICLES,
      batch: BATCH,
      rounds: ROUNDS,
      articlesPerSecond: Object.fromEntries(MODES.map((mode) => [mode, Math.round(median(results.filter((r) => r.mode === mode).map((r) => r.rate)))])),
      ratios: { textsOfWithout: ratio('texts', 'without'), floorOfWithout: ratio('floor', 'without'), textsOfFloor: ratio('texts', 'floor') },
      bytesPerReport: {
        withoutText: Math.round(bytes('without')),
        withTexts: Math.round(bytes('texts')),
        fingerprintAndGroup: Math.round(bytes('texts') - bytes('without')),
      },
      copyDetection: results.find((r) => r.mode === 'texts')!.quality,
    },
    null,
    2,
  ),
);
