// Stories written apart about one event: each its own lead, paragraph order, sentences and
// background, drawn from the type's templates (story-kits.ts), and sharing with the other stories
// of the event only what the event gives them: its names, figures, dates, place, and the one
// sentence its spokesperson said (the same words in every story). A story is 5 to 7 paragraphs
// of some 2,000 to 3,500 characters; a brief is its lead alone, under 50 words.
import type { DemoEventType } from './demo-event-types.js';
import { personName } from './demo-names.js';
import type { SeededRandom } from './seeded-random.js';
import { type Phrase, realize, slot, slotCount, type SlotValues, write } from './story-grammar.js';
import type { Pool, StoryKit } from './story-kits.js';

export interface Story {
  headline: string;
  paragraphs: string[];
}

/** What a role's value says in a story's prose ("2026-03-04" → "March 4", "P2W" → "2 weeks"). */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DURATION_WORDS: Record<string, string> = { P2W: '2 weeks', PT48H: '48 hours' };
const DAY_MS = 86_400_000;

const proseDay = (day: string) => `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;

const days = new Map<number, { weekday: string; date: string; year: string }>();
/** A UTC day number's weekday, "March 4" and year, worked out once a day. */
function dayNames(day: number) {
  let names = days.get(day);
  if (!names) {
    const iso = new Date(day * DAY_MS).toISOString();
    names = { weekday: WEEKDAYS[(day + 4) % 7]!, date: proseDay(iso), year: iso.slice(0, 4) }; // day 0 was a Thursday
    days.set(day, names);
  }
  return names;
}

const DAY = slot('day');
const DATE = slot('date');
const YEAR = slot('year');
const SPEAKER_NAME = slot('speaker_name');
const SPEAKER_TITLE = slot('speaker_title');
const QUOTE = slot('quote');
const NOUN = slot('noun');
const CAPITAL_NOUN = slot('Noun');
const TOPIC = slot('topic');
const CAPITAL_TOPIC = slot('Topic');
const ACTOR = slot('actor');
const PLACE = slot('place');

const slotsOfRoles = new WeakMap<DemoEventType, number[]>();
/** The slot of each of the type's roles, in role order. */
function roleSlots(type: DemoEventType): number[] {
  let slots = slotsOfRoles.get(type);
  if (!slots) {
    slots = type.roles.map((role) => slot(role.code_name));
    slotsOfRoles.set(type, slots);
  }
  return slots;
}

/**
 * The slots of an event's stories: each role's value as prose (`roleTexts` in the type's role
 * order, as a headline writes them), when it happened, and who is quoted saying what, drawn
 * from `r` (the event's own generator, so every story of the event quotes the same words).
 */
export function eventSlots(type: DemoEventType, kit: StoryKit, roleTexts: readonly string[], at: number, r: SeededRandom): SlotValues {
  const slots: SlotValues = new Array(slotCount());
  const roles = type.roles;
  for (let i = 0; i < roles.length; i++) {
    const text = roleTexts[i]!;
    const kind = roles[i]!.expected_type;
    // Only a date or a duration reads otherwise in prose (a name looked up in a table would be hashed whole).
    slots[roleSlots(type)[i]!] = kind === 'DATE' ? proseDay(text) : kind === 'DURATION' ? (DURATION_WORDS[text] ?? text) : text;
  }
  const day = dayNames(Math.floor(at / DAY_MS));
  slots[DAY] = day.weekday;
  slots[DATE] = day.date;
  slots[YEAR] = day.year;
  slots[NOUN] = kit.nouns;
  slots[CAPITAL_NOUN] = kit.capitalNouns;
  slots[TOPIC] = kit.topics;
  slots[CAPITAL_TOPIC] = kit.capitalTopics;
  slots[ACTOR] = slots[slot(type.roles[kit.actorRole]!.code_name)];
  if (kit.placeRole >= 0) slots[PLACE] = slots[slot(type.roles[kit.placeRole]!.code_name)];
  const speaker = r.pick(kit.speakers);
  slots[SPEAKER_NAME] = speaker.name ? write(speaker.name, r, slots) : personName(r).name;
  slots[SPEAKER_TITLE] = write(speaker.title, r, slots);
  slots[QUOTE] = realize(r.pick(speaker.quotes), r, slots);
  return slots;
}

/** Words as copy detection counts them (runs of letters and digits): a brief must stay under 50 of them. */
const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

const TAIL_SHARE = 0.15;

/** A sentence from a pool's phrase (one without its stop): now and then a clause before the stop, so sentences run to varied lengths. */
export function poolSentence(kit: StoryKit, phrase: Phrase, r: SeededRandom, slots: SlotValues): string {
  const text = write(phrase, r, slots);
  return r.chance(TAIL_SHARE) ? `${text}${write(r.pick(kit.tails), r, slots)}.` : `${text}.`;
}

/** A template not yet used in this story (marked in `used`), from the first pool that still has one. */
function draw(pools: readonly Pool[], used: Uint8Array, r: SeededRandom): Phrase | null {
  for (const { phrases, first, most } of pools) {
    const drawn = first + phrases.length;
    if (used[drawn]! >= most) continue;
    // A few blind draws find an unused one almost always; the scan is for a nearly spent pool.
    let i = r.int(phrases.length);
    for (let tries = 0; tries < 3 && used[first + i]; tries++) i = r.int(phrases.length);
    for (let n = 0; n < phrases.length && used[first + i]; n++) i = i + 1 === phrases.length ? 0 : i + 1;
    if (!used[first + i]) {
      used[first + i] = 1;
      used[drawn]!++;
      return phrases[i]!;
    }
  }
  return null;
}

type ParagraphKind = 'details' | 'quote' | 'reaction' | 'background' | 'analysis' | 'outlook' | 'closing';

/** Paragraphs besides the lead, details and quote: a story has two to four of them. */
const OPTIONAL_KINDS: ParagraphKind[] = ['reaction', 'background', 'analysis', 'outlook', 'closing'];
const LENGTH_MIN = 2_000;
const LENGTH_MAX = 3_500;

/** Sentences a paragraph of each kind starts with (after the quote, in a quote paragraph). */
const SIZES: Record<ParagraphKind, [number, number]> = {
  details: [3, 4],
  quote: [1, 3],
  reaction: [2, 4],
  background: [3, 5],
  analysis: [2, 4],
  outlook: [2, 3],
  closing: [1, 2],
};

/** Where each kind of paragraph finds its sentences, in order of preference: made once per kit. */
const poolsOfKit = new WeakMap<StoryKit, Record<ParagraphKind, Pool[]>>();
function paragraphPools(kit: StoryKit): Record<ParagraphKind, Pool[]> {
  let pools = poolsOfKit.get(kit);
  if (!pools) {
    pools = {
      details: [kit.facts, kit.reactions, kit.background],
      quote: [kit.afterQuote, kit.reactions, kit.analysis],
      reaction: [kit.reactions, kit.analysis, kit.background],
      background: [kit.background, kit.analysis],
      analysis: [kit.analysis, kit.background],
      outlook: [kit.outlook, kit.closing, kit.analysis],
      closing: [kit.closing, kit.outlook],
    };
    poolsOfKit.set(kit, pools);
  }
  return pools;
}

/** Which phrases the story being written has used: one array for every story (allocating one a story costs more than clearing it). */
let usedScratch = new Uint8Array(256);

/** A story about the event of `slots`, drawn from `r` (the story's own generator). */
export function writeStory(kit: StoryKit, slots: SlotValues, r: SeededRandom): Story {
  if (usedScratch.length < kit.pooled) usedScratch = new Uint8Array(kit.pooled);
  const used = usedScratch;
  used.fill(0, 0, kit.pooled);
  const pools = paragraphPools(kit);
  const sizes = SIZES;

  // Which paragraphs, in what order: the lead first; an outlook or closing paragraph, when the
  // story has one, toward the end; the rest in any order.
  const optional = OPTIONAL_KINDS.slice();
  for (let i = optional.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [optional[i], optional[j]] = [optional[j]!, optional[i]!];
  }
  const extra = optional.slice(0, 2 + r.int(3));
  const middle: ParagraphKind[] = ['details', 'quote', ...extra.filter((k) => k !== 'outlook' && k !== 'closing')];
  for (let i = middle.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [middle[i], middle[j]] = [middle[j]!, middle[i]!];
  }
  const kinds: ParagraphKind[] = [...middle, ...extra.filter((k) => k === 'outlook'), ...extra.filter((k) => k === 'closing')];

  const lead = [write(r.pick(kit.leads), r, slots)];
  if (r.chance(0.6)) {
    const fact = draw([kit.facts], used, r);
    if (fact) lead.push(poolSentence(kit, fact, r, slots));
  }
  const paragraphs: string[][] = [lead];
  let length = lead.reduce((n, s) => n + s.length + 1, 0);
  const add = (p: number, kind: ParagraphKind): boolean => {
    const template = draw(pools[kind], used, r);
    if (!template) return false;
    const text = poolSentence(kit, template, r, slots);
    paragraphs[p]!.push(text);
    length += text.length + 1;
    return true;
  };
  for (const kind of kinds) {
    const p = paragraphs.push([]) - 1;
    const [min, max] = sizes[kind];
    let n = min + r.int(max - min + 1);
    if (kind === 'quote') {
      const text = write(r.pick(kit.quoteForms), r, slots);
      paragraphs[p]!.push(text);
      length += text.length + 1;
    }
    while (n-- > 0) add(p, kind);
  }

  // Into the length a story has: sentences added where there is room to say more, or taken
  // from the longest paragraphs (never a lead or a quote).
  // Some 400 to 520 characters a paragraph, so that a story of more paragraphs is longer, not
  // one of fewer paragraphs a wall of sentences each.
  const target = Math.min(3_300, Math.max(2_150, paragraphs.length * r.between(400, 520)));
  // The shortest paragraph grows (a closing line stays short): a longer story says more throughout.
  for (let tries = 0; length < target && tries < 40; tries++) {
    const start = r.int(kinds.length);
    let shortest = -1;
    for (let i = 0; i < kinds.length; i++) {
      const p = 1 + ((start + i) % kinds.length);
      const kind = kinds[p - 1]!;
      const full = paragraphs[p]!.length >= (kind === 'closing' ? 3 : kind === 'quote' ? 5 : 99);
      if (!full && (shortest < 0 || paragraphs[p]!.length < paragraphs[shortest]!.length)) shortest = p;
    }
    if (shortest < 0 || !add(shortest, kinds[shortest - 1]!)) break;
  }
  while (length > LENGTH_MAX - 100) {
    let longest = -1;
    for (let p = 1; p < paragraphs.length; p++) {
      const sentences = paragraphs[p]!;
      if (sentences.length > 1 && (longest < 0 || sentences.length > paragraphs[longest]!.length)) longest = p;
    }
    if (longest < 0 || length < LENGTH_MIN + 300) break;
    const removed = paragraphs[longest]!.pop()!;
    // The quote is each quote paragraph's first sentence: it is never the one taken.
    length -= removed.length + 1;
  }
  return { headline: write(r.pick(kit.headlines), r, slots), paragraphs: paragraphs.map((p) => p.join(' ')) };
}

/** A brief: the lead alone, and a second sentence when both stay under 50 words. */
export function writeBrief(kit: StoryKit, slots: SlotValues, r: SeededRandom): Story {
  const lead = write(r.pick(kit.leads), r, slots);
  const both = `${lead} ${write(r.pick(kit.facts.phrases), r, slots)}.`;
  return { headline: write(r.pick(kit.headlines), r, slots), paragraphs: [wordCount(both) < 50 ? both : lead] };
}
