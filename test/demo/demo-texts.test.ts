import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IngestArticleBody } from '../../src/modules/corpus/events.schemas.js';
import { type ArticleTruth, demoArticleBatches } from '../../src/modules/demo/demo-articles.js';
import { DEMO_EVENT_TYPES } from '../../src/modules/demo/demo-event-types.js';
import { buildWorld, type DemoWorld } from '../../src/modules/demo/demo-world.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');

/** The true event and the true story of an article, from its url (as TRUE_EVENT_OF_URL and TRUE_STORY_OF_URL read them). */
const eventOf = (url: string) => /\/([0-9a-z]+)-\d+$/.exec(url)![1]!;
const storyOf = (url: string) => /\/(s\d+\/[0-9a-z]+)-\d+$/.exec(url)![1]!;

interface Made {
  world: DemoWorld;
  articles: IngestArticleBody[];
  truths: ArticleTruth[];
}

/** A world with ids counted from 1, and every article about `events` events with what each is: no database. */
function articlesOf(seed: number, events: number, batchSize = 500): Made {
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
  const world = buildWorld({ events, seed, now: NOW, newId, typeIds: new Map(DEMO_EVENT_TYPES.map((t) => [t.code_name, newId()])) });
  const batches = [...demoArticleBatches(world, { events, seed, batchSize, truth: true })];
  return { world, articles: batches.flatMap((b) => b.articles), truths: batches.flatMap((b) => b.truths!) };
}

/** Words as copy detection reads them: letters and digits, case folded. */
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Share of `original`'s words (counted with repeats) that `copy` has too. */
function keptShare(original: string, copy: string): number {
  const have = new Map<string, number>();
  for (const w of words(copy)) have.set(w, (have.get(w) ?? 0) + 1);
  const all = words(original);
  let kept = 0;
  for (const w of all) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      kept++;
      have.set(w, n - 1);
    }
  }
  return kept / all.length;
}

/** Jaccard similarity of two texts' 5-word shingles. */
function shingleJaccard(a: string, b: string): number {
  const shingles = (text: string) => {
    const w = words(text);
    const set = new Set<string>();
    for (let i = 0; i + 5 <= w.length; i++) set.add(w.slice(i, i + 5).join(' '));
    return set;
  };
  const x = shingles(a);
  const y = shingles(b);
  let shared = 0;
  for (const s of x) if (y.has(s)) shared++;
  return shared / (x.size + y.size - shared);
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Indexes of the articles of each true event, in publish order. */
function byEvent(articles: readonly IngestArticleBody[]): Map<string, number[]> {
  const events = new Map<string, number[]>();
  articles.forEach((a, i) => {
    const key = eventOf(a.url!);
    events.set(key, [...(events.get(key) ?? []), i]);
  });
  return events;
}

/** An entity id's name as texts write it (a duplicate record's id: its entity's own name). */
function namesOf(world: DemoWorld): (id: string) => string | undefined {
  const names = new Map<string, string>();
  for (const pool of Object.values(world.pools)) {
    pool.ids.forEach((id, index) => {
      names.set(id, pool.named(index).name);
    });
    pool.aliasSlot.forEach((slot, index) => {
      if (slot >= 0) names.set(pool.aliasIds[slot]!, pool.named(index).name);
    });
  }
  return (id) => names.get(id);
}

describe('demo article texts', () => {
  it('when texts are made twice with one seed, then they are the same whatever the batch size; with another seed, they differ', () => {
    const first = articlesOf(42, 300).articles.map((a) => [a.url, a.text]);
    assert.deepEqual(
      articlesOf(42, 300, 37).articles.map((a) => [a.url, a.text]),
      first,
    );
    const other = articlesOf(43, 300).articles.map((a) => a.text);
    assert.ok(other.every((text) => !first.some(([, t]) => t === text)));
  });

  it('when articles are made, then each has a text, its url names its story, and 30 to 40 % republish a story another outlet carried', () => {
    const { articles, truths } = articlesOf(7, 3_000);
    assert.ok(articles.every((a) => typeof a.text === 'string' && a.text.length > 0));
    assert.ok(articles.every((a, i) => storyOf(a.url!) === truths[i]!.story));
    // In publish order, a copy is an article whose story was told before.
    const told = new Set<string>();
    let copies = 0;
    articles.forEach((a, i) => {
      const story = storyOf(a.url!);
      const copy = told.has(story);
      assert.equal(copy, truths[i]!.copy, a.url);
      if (copy) copies++;
      told.add(story);
    });
    const share = copies / articles.length;
    assert.ok(share >= 0.3 && share <= 0.4, `copy share ${share}`);
    // Articles per event as before texts: most events two or three articles, one in five a single one.
    const events = [...byEvent(articles).values()];
    const perEvent = articles.length / events.length;
    assert.ok(perEvent > 2.8 && perEvent < 3.2, `articles per event ${perEvent}`);
    const single = events.filter((e) => e.length === 1).length / events.length;
    assert.ok(single > 0.15 && single < 0.25, `single-article events ${single}`);
    // A wire story is carried by 2 to 8 outlets; a story written apart by one.
    const carriers = new Map<string, number>();
    for (const t of truths) carriers.set(t.story, (carriers.get(t.story) ?? 0) + 1);
    for (const t of truths) {
      const n = carriers.get(t.story)!;
      assert.ok(t.wire ? n >= 2 && n <= 8 : n === 1, `${t.story}: ${n} carriers`);
    }
  });

  it('when outlets republish a wire story, then each copy keeps at least 60 % of its words, is at least 50 words, and is edited', () => {
    const { articles, truths } = articlesOf(11, 3_000);
    const edits = new Set<string>();
    let copies = 0;
    let lowest = 1;
    articles.forEach((a, i) => {
      const truth = truths[i]!;
      if (!truth.wire) return;
      const kept = keptShare(truth.storyText, a.text!);
      lowest = Math.min(lowest, kept);
      assert.ok(kept >= 0.6, `${a.url} keeps ${kept} of the wire's words (${truth.edits})`);
      assert.ok(words(a.text!).length >= 50);
      if (!truth.copy) return;
      copies++;
      assert.ok(truth.edits!.length > 0, `${a.url} is the wire text unedited`);
      for (const edit of truth.edits!)
        edits.add(
          edit
            .split(' ')
            .slice(0, edit.startsWith('format') ? 2 : 1)
            .join(' '),
        );
    });
    assert.ok(copies > 2_000, `${copies} copies`);
    const kinds = ['headline', 'trim', 'drop-middle', 'add-paragraph', 'dateline', 'credit'];
    const formats = ['curly-quotes', 'hard-wrap', 'double-spaces', 'upper-lead', 'single-newlines', 'no-commas', 'lower-case'].map((f) => `format ${f}`);
    for (const kind of [...kinds, ...formats]) assert.ok(edits.has(kind), `no copy made with ${kind}`);
    assert.ok(lowest < 0.75, `the trims and cuts reach toward the 60 % bound: lowest ${lowest}`);
  });

  it('when outlets write an event up apart, then their stories share its names and its quote, and little else', () => {
    const { world, articles, truths } = articlesOf(5, 1_500);
    const nameOf = namesOf(world);
    const apart: number[] = [];
    const copied: number[] = [];
    let events = 0;
    for (const indexes of byEvent(articles).values()) {
      const names = new Set(indexes.flatMap((i) => articles[i]!.roles.flatMap((r) => (r.entity_id ? [nameOf(r.entity_id)!] : []))));
      const stories = indexes.filter((i) => !truths[i]!.wire && words(truths[i]!.storyText).length >= 50);
      for (const i of stories) for (const name of names) assert.ok(articles[i]!.text!.includes(name), `${articles[i]!.url} never names ${name}`);
      // The quote: one sentence in double quotes, the same words in every story (the stop or comma closing it aside).
      const quotes = new Set(stories.map((i) => /"([^"]+?)[.,]?"/.exec(articles[i]!.text!)?.[1]));
      assert.equal(quotes.size, stories.length > 0 ? 1 : 0, JSON.stringify([...quotes]));
      assert.ok(!quotes.has(undefined));
      if (stories.length > 1) events++;
      for (let x = 0; x < stories.length; x++)
        for (let y = 0; y < x; y++) apart.push(shingleJaccard(truths[stories[x]!]!.storyText, truths[stories[y]!]!.storyText));
      const wire = indexes.filter((i) => truths[i]!.wire);
      for (const i of wire.slice(1)) copied.push(shingleJaccard(articles[wire[0]!]!.text!, articles[i]!.text!));
    }
    assert.ok(events > 200, `${events} events told apart more than once`);
    // Stories written apart share a few phrases, copies most of their text.
    assert.ok(median(apart) < 0.1 && Math.max(...apart) < 0.3, `stories apart: median ${median(apart)}, most ${Math.max(...apart)}`);
    assert.ok(median(copied) > 0.5, `copies: median ${median(copied)}`);
  });

  it('when stories are written, then they run 2,000 to 3,500 characters in 5 to 7 paragraphs, and a few are briefs of under 50 words', () => {
    const { articles, truths } = articlesOf(3, 3_000);
    const written = new Map<string, ArticleTruth>();
    for (const t of truths) written.set(t.story, t);
    let briefs = 0;
    for (const t of written.values()) {
      const paragraphs = t.storyText.split('\n\n');
      if (words(t.storyText).length < 50) {
        assert.ok(!t.wire, 'a wire story is never a brief');
        assert.equal(paragraphs.length, 1);
        briefs++;
        continue;
      }
      assert.ok(paragraphs.length >= 5 && paragraphs.length <= 7, `${t.story}: ${paragraphs.length} paragraphs`);
      assert.ok(t.storyText.length >= 2_000 && t.storyText.length <= 3_500, `${t.story}: ${t.storyText.length} characters`);
    }
    const share = briefs / articles.length;
    assert.ok(share > 0.01 && share < 0.06, `briefs ${share}`);
    // What an outlet prints around a story written apart is lines of its own: the story's paragraphs stand in it whole.
    articles.forEach((a, i) => {
      if (!truths[i]!.wire) assert.ok(a.text!.includes(truths[i]!.storyText), a.url);
    });
  });
});
