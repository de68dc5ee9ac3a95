// Copy detection's quality on the demo corpus's texts (independent-sources issue: pairwise
// precision >= 0.99 and recall >= 0.97 against the demo's ground truth), with no database:
// the service's detector (corpus/copy-fingerprint.ts), each article judged against every earlier article of its own event, of the
// three events of its type before it (the likeliest to share names, numbers and phrases) and
// of the five events before it of any type (outlets' boilerplate lines are any type's), as
// ingest would judge it against what it had received. Prints what it found, edit by edit,
// and the copies missed and stories judged copies, for BENCH_SEEDS seeds (default 3).
//   npx tsx bench/copy-detection-demo.ts
//   BENCH_EVENTS=400 BENCH_SEEDS=6 BENCH_LIST=1 npx tsx bench/copy-detection-demo.ts
import { judgedCopy, type TextShingles, textShingles } from '../src/modules/corpus/copy-fingerprint.js';
import type { IngestArticleBody } from '../src/modules/corpus/events.schemas.js';
import { type ArticleTruth, demoArticleBatches } from '../src/modules/demo/demo-articles.js';
import { DEMO_EVENT_TYPES } from '../src/modules/demo/demo-event-types.js';
import { buildWorld } from '../src/modules/demo/demo-world.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 400);
const SEEDS = Number(process.env.BENCH_SEEDS ?? 3);
const LIST = process.env.BENCH_LIST === '1';
const eventOf = (url: string) => /\/([0-9a-z]+)-\d+$/.exec(url)![1]!;

function corpus(seed: number): { articles: IngestArticleBody[]; truths: ArticleTruth[] } {
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
  const world = buildWorld({ events: EVENTS, seed, now: NOW, newId, typeIds: new Map(DEMO_EVENT_TYPES.map((t) => [t.code_name, newId()])) });
  const batches = [...demoArticleBatches(world, { events: EVENTS, seed, batchSize: 500, truth: true })];
  return { articles: batches.flatMap((b) => b.articles), truths: batches.flatMap((b) => b.truths!) };
}

/** An edit's kind ("trim 2" → "trim", "format lower-case" stays whole). */
const kindOf = (edit: string) => (edit.startsWith('format') ? edit : edit.split(' ')[0]!);

interface Judged {
  articles: number;
  pairs: { truePositive: number; falsePositive: number; falseNegative: number; trueNegative: number };
  copies: number;
  found: number;
  byEdit: string;
  misses: string[];
  falseAlarms: string[];
}

/** Every article with a fingerprint judged against the earlier ones of its event, of the three events of its type before it and of the five before it. */
function judge(seed: number): Judged {
  const { articles, truths } = corpus(seed);
  const shingles: (TextShingles | null)[] = articles.map((a) => textShingles(a.text!));
  // Events in order of their number, by type: the candidates from other events.
  const eventNumber = (url: string) => Number.parseInt(eventOf(url), 36);
  const typeEvents = new Map<string, number[]>();
  const articlesOfEvent = new Map<number, number[]>();
  articles.forEach((a, i) => {
    const e = eventNumber(a.url!);
    if (!articlesOfEvent.has(e)) {
      articlesOfEvent.set(e, []);
      typeEvents.set(a.event_type_id, [...(typeEvents.get(a.event_type_id) ?? []), e]);
    }
    articlesOfEvent.get(e)!.push(i);
  });
  for (const list of typeEvents.values()) list.sort((x, y) => x - y);

  const pairs = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 };
  const missedBy = new Map<string, number>();
  const copiesBy = new Map<string, number>();
  const misses: string[] = [];
  const falseAlarms: string[] = [];
  let copies = 0;
  let found = 0;
  articles.forEach((article, i) => {
    const mine = shingles[i];
    if (!mine) return;
    const e = eventNumber(article.url!);
    const sameType = typeEvents.get(article.event_type_id)!;
    const at = sameType.indexOf(e);
    let judgedOfStory = false;
    const nearby = new Set([e, ...sameType.slice(Math.max(0, at - 3), at), e - 1, e - 2, e - 3, e - 4, e - 5]);
    for (const other of nearby) {
      if (!articlesOfEvent.has(other)) continue;
      for (const j of articlesOfEvent.get(other)!) {
        if (j >= i || !shingles[j]) continue; // earlier articles only, and those with a fingerprint
        const copy = judgedCopy(mine, shingles[j]!.fingerprint);
        const sameStory = truths[i]!.story === truths[j]!.story;
        if (copy && sameStory) pairs.truePositive++;
        else if (copy) {
          pairs.falsePositive++;
          falseAlarms.push(`${article.url} judged a copy of ${articles[j]!.url}`);
        } else if (sameStory) pairs.falseNegative++;
        else pairs.trueNegative++;
        if (copy && sameStory) judgedOfStory = true;
      }
    }
    if (!truths[i]!.copy) return;
    // A copy is found when it is judged a copy of one earlier carrier of its story at least.
    copies++;
    if (judgedOfStory) found++;
    for (const kind of new Set(truths[i]!.edits!.map(kindOf))) {
      copiesBy.set(kind, (copiesBy.get(kind) ?? 0) + 1);
      if (!judgedOfStory) missedBy.set(kind, (missedBy.get(kind) ?? 0) + 1);
    }
    if (!judgedOfStory) misses.push(`${article.url} (${truths[i]!.edits!.join(', ')})`);
  });
  const byEdit = [...copiesBy].map(([kind, n]) => `${kind} ${(1 - (missedBy.get(kind) ?? 0) / n).toFixed(3)} of ${n}`).join('; ');
  return { articles: articles.length, pairs, copies, found, byEdit, misses, falseAlarms };
}

for (let seed = 20261122; seed < 20261122 + SEEDS; seed++) {
  const judged = judge(seed);
  const { pairs } = judged;
  const precision = pairs.truePositive / (pairs.truePositive + pairs.falsePositive);
  const recall = pairs.truePositive / (pairs.truePositive + pairs.falseNegative);
  process.stdout.write(
    `seed ${seed}: ${judged.articles} articles of ${EVENTS} events, ${pairs.truePositive + pairs.falsePositive + pairs.falseNegative + pairs.trueNegative} pairs judged\n` +
      `  pairs: precision ${precision.toFixed(4)}, recall ${recall.toFixed(4)} (${JSON.stringify(pairs)})\n` +
      `  copies found (judged a copy of an earlier carrier): ${judged.found} of ${judged.copies} (${(judged.found / judged.copies).toFixed(4)})\n` +
      `  found, by edit: ${judged.byEdit}\n` +
      (LIST ? judged.misses.map((m) => `  missed: ${m}\n`).join('') + judged.falseAlarms.map((m) => `  false alarm: ${m}\n`).join('') : ''),
  );
}
