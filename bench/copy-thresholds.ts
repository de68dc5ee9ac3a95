// Copy detection's quality at corpus scale, with no database: the demo's articles for
// BENCH_EVENTS events, in the order `evmon demo` ingests them, each text judged as the service
// judges it (corpus/fingerprint-table.ts over the fingerprints received in the 30 days around
// it, the best candidate naming an entity in common with it joined (copy-detection.ts,
// namesShared: one in common, or one side names none), its copy group taken), and the
// pairwise precision and recall of the groups against the demo's ground truth (the story in
// each url), as `evmon demo` reports them. Beside it, texts alone (the rule before 2026-11-29:
// a million-event load measured precision 0.151). About 200 µs per article at a million events.
//
//   npx tsx bench/copy-thresholds.ts                       20,000 events
//   BENCH_EVENTS=1000000 BENCH_SEED=42 npx tsx bench/copy-thresholds.ts
import { DAY_MS } from '../src/platform/clock.js';
import { textShingles } from '../src/modules/corpus/copy-fingerprint.js';
import { bestCandidate, type CopyCandidate, FingerprintTable } from '../src/modules/corpus/fingerprint-table.js';
import { withinWindow } from '../src/modules/corpus/recent-copies.js';
import { demoArticleBatches } from '../src/modules/demo/demo-articles.js';
import { DEMO_EVENT_TYPES } from '../src/modules/demo/demo-event-types.js';
import { buildWorld } from '../src/modules/demo/demo-world.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const NOW = new Date('2026-11-20T12:00:00.000Z');
/** Fingerprints received this long before the newest are let go (the window is 30 days). */
const KEEP_MS = 32 * DAY_MS;
/** Entities kept per article for the variant (participants first). */
const ENTITY_SLOTS = 6;

let n = 0;
const newId = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
const world = buildWorld({ events: EVENTS, seed: SEED, now: NOW, newId, typeIds: new Map(DEMO_EVENT_TYPES.map((t) => [t.code_name, newId()])) });

/** Per article: its story (an index), its group under each judgement, and its entities (hashed). */
const stories = new Map<string, number>();
let story = new Int32Array(1 << 20);
let textsGroup = new Int32Array(1 << 20);
let serviceGroup = new Int32Array(1 << 20);
let entities = new Uint32Array((1 << 20) * ENTITY_SLOTS);
const grow = (array: Int32Array) => {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
};
const hash = (id: string) => {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0 || 1;
};
/** copy-detection.ts's namesShared over the hashed ids kept here (strings for millions of articles would not fit). */
const namesShared = (a: number, b: number) => {
  if (entities[a * ENTITY_SLOTS] === 0 || entities[b * ENTITY_SLOTS] === 0) return true;
  for (let i = 0; i < ENTITY_SLOTS; i++) {
    const x = entities[a * ENTITY_SLOTS + i]!;
    if (x === 0) break;
    for (let j = 0; j < ENTITY_SLOTS; j++) {
      const y = entities[b * ENTITY_SLOTS + j]!;
      if (y === 0) break;
      if (x === y) return true;
    }
  }
  return false;
};

let table = new FingerprintTable<number>();
let articles = 0;
let fingerprinted = 0;
let newestMs = 0;
let lastPruneMs = 0;
/** Time in the table's look-up (`copied`), all texts. */
let lookupMs = 0;
const started = performance.now();
for (const batch of demoArticleBatches(world, { events: EVENTS, seed: SEED, batchSize: 2_000 })) {
  for (const article of batch.articles) {
    const at = articles++;
    if (at === story.length) {
      story = grow(story);
      textsGroup = grow(textsGroup);
      serviceGroup = grow(serviceGroup);
      const more = new Uint32Array(entities.length * 2);
      more.set(entities);
      entities = more;
    }
    const storyKey = /\/(s[0-9]+\/[0-9a-z]+)-[0-9]+$/.exec(article.url!)![1]!;
    story[at] = stories.get(storyKey) ?? stories.size;
    if (!stories.has(storyKey)) stories.set(storyKey, stories.size);
    const named = [
      ...article.roles.flatMap((role) => ('entity_id' in role && role.entity_id ? [role.entity_id] : [])),
      ...(article.mentioned_entity_ids ?? []),
    ];
    named.slice(0, ENTITY_SLOTS).forEach((id, i) => {
      entities[at * ENTITY_SLOTS + i] = hash(id);
    });
    textsGroup[at] = at;
    serviceGroup[at] = at;
    const receivedMs = Date.parse(article.received_at ?? article.published_at ?? NOW.toISOString());
    const text = article.text ? textShingles(article.text) : null;
    if (!text) continue;
    fingerprinted++;
    const lookupStarted = performance.now();
    const candidates = table.copied(text, (entry) => withinWindow(entry.receivedMs, receivedMs));
    lookupMs += performance.now() - lookupStarted;
    const best = bestCandidate(candidates);
    if (best) textsGroup[at] = textsGroup[best.held.ref]!;
    const sharing = bestCandidate(candidates.filter((c: CopyCandidate<number>) => namesShared(at, c.held.ref)));
    if (sharing) serviceGroup[at] = serviceGroup[sharing.held.ref]!;
    table.add({ ref: at, receivedMs, order: at, fingerprint: text.fingerprint });
    newestMs = Math.max(newestMs, receivedMs);
    if (newestMs - lastPruneMs > 7 * DAY_MS) {
      table = table.filtered((entry) => entry.receivedMs >= newestMs - KEEP_MS);
      lastPruneMs = newestMs;
    }
  }
}
const seconds = (performance.now() - started) / 1000;

/** Pairs in one group of `key`, counted from group sizes. */
function pairs(key: (i: number) => string | number): number {
  const sizes = new Map<string | number, number>();
  for (let i = 0; i < articles; i++) sizes.set(key(i), (sizes.get(key(i)) ?? 0) + 1);
  let total = 0;
  for (const size of sizes.values()) total += (size * (size - 1)) / 2;
  return total;
}
const truth = pairs((i) => story[i]!);
const report = (name: string, group: Int32Array) => {
  const predicted = pairs((i) => group[i]!);
  const shared = pairs((i) => `${group[i]} ${story[i]}`);
  console.log(
    `${name}: precision ${(shared / predicted).toFixed(4)}, recall ${(shared / truth).toFixed(4)} (${predicted.toLocaleString('en')} pairs predicted, ${truth.toLocaleString('en')} true)`,
  );
};
console.log(
  `${EVENTS.toLocaleString('en')} events, seed ${SEED}: ${articles.toLocaleString('en')} articles, ${fingerprinted.toLocaleString('en')} fingerprinted, ${seconds.toFixed(0)} s, ${((lookupMs * 1000) / fingerprinted).toFixed(1)} µs a text in the look-up`,
);
report('texts alone', textsGroup);
report("the service's judgement (texts, and an entity in common)", serviceGroup);
