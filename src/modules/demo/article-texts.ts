// The text of each demo article. An event's articles tell its stories: most are stories written
// apart, one per outlet (demo-stories.ts); in about three events of four with several articles,
// 2 to 8 of them carry one wire story, each with its outlet's edits (wire-copies.ts). Every
// outlet dresses what it prints in its house style: the headline above, a byline, a copyright
// or newsletter line below, the lines the service must see past.
//
// Every text is made from the seed, the event's number and the article's place in it alone,
// never from what was made before: an event's articles are written days apart in the stream,
// and holding each event's stories until its last article is out would hold a few days of
// news. Only the wire story is kept while outlets still have it to print (TextEvent.wireStory).
import { personName } from './demo-names.js';
import type { DemoWorld } from './demo-world.js';
import { eventSlots, type Story, writeBrief, writeStory } from './demo-stories.js';
import { SeededRandom } from './seeded-random.js';
import { slot, type SlotValues } from './story-grammar.js';
import { WIRE_AGENCIES } from './story-common-phrases.js';
import { compileKit, type StoryKit } from './story-kits.js';
import { TYPE_PHRASES } from './story-type-phrases.js';
import { applyFormats, editCopy } from './wire-copies.js';

/** Share of events with at least two articles whose articles include a wire story. */
const WIRE_SHARE = 0.75;
/** A wire story is carried by 2 to this many outlets. */
const MOST_CARRIERS = 8;
/** Share of stories written apart that are briefs, the lead alone. */
const BRIEF_SHARE = 0.04;

/** Which story each article of an event tells: numbers from 0 in publish order, the wire story one of them. */
export interface StoryPlan {
  storyOf: Uint8Array;
  /** The wire story's number, or -1. */
  wire: number;
}

/** The stories of an event of `count` articles, drawn from `r` (the event's own generator). */
export function planStories(count: number, r: SeededRandom): StoryPlan {
  const storyOf = new Uint8Array(count);
  const carriers = count >= 2 && r.chance(WIRE_SHARE) ? 2 + r.int(Math.min(count, MOST_CARRIERS) - 1) : 0;
  // Which articles carry it: `carriers` of them at random (a partial shuffle).
  const order = Array.from({ length: count }, (_, k) => k);
  for (let i = 0; i < carriers; i++) {
    const j = i + r.int(count - i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const carries = new Uint8Array(count);
  for (let i = 0; i < carriers; i++) carries[order[i]!] = 1;
  let next = 0;
  let wire = -1;
  for (let k = 0; k < count; k++) {
    if (carries[k]) {
      if (wire < 0) wire = next++;
      storyOf[k] = wire;
    } else storyOf[k] = next++;
  }
  return { storyOf, wire };
}

/** What an outlet adds around everything it prints. */
interface HouseStyle {
  headlineOnTop: boolean;
  header: 'none' | 'byline' | 'staff';
  footer: 'none' | 'copyright' | 'newsletter' | 'both';
}

function houseStyle(r: SeededRandom): HouseStyle {
  const header = r.next();
  const footer = r.next();
  return {
    headlineOnTop: r.chance(0.35),
    header: header < 0.55 ? 'none' : header < 0.85 ? 'byline' : 'staff',
    footer: footer < 0.5 ? 'none' : footer < 0.75 ? 'copyright' : footer < 0.9 ? 'newsletter' : 'both',
  };
}

/** What the article generator knows of an event: enough to write any of its articles again. */
export interface TextEvent {
  typeIndex: number;
  /** Each role's value as a headline writes it, in the type's role order. */
  roleTexts: readonly string[];
  at: number;
  /** The event's own seed: its stories, quote and plan come from it. */
  textSeed: number;
  plan: StoryPlan;
  /**
   * The wire story as written, kept from its first carrier to its last (a few kilobytes for
   * each event with a wire story and articles still to come): writing it again for each copy
   * would be a third of all the writing.
   */
  wireStory?: Story;
}

export interface ArticleText {
  headline: string;
  text: string;
  /** The story's number within the event (the url carries it). */
  story: number;
  /** A republication of a story another outlet carried before. */
  copy: boolean;
  /** A wire story's: the edits this outlet made (wire-copies.ts). */
  edits?: string[];
}

const YEAR = slot('year');
const mix = (seed: number, salt: number) => (seed ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
const PLAN_SALT = 0x51a7;
const FACTS_SALT = 0xfac7;
const STORY_SALT = 0x1000;
const COPY_SALT = 0x2000;

export class ArticleTexts {
  private readonly kits: StoryKit[];
  private readonly styles: HouseStyle[];

  constructor(
    private readonly world: DemoWorld,
    seed: number,
  ) {
    this.kits = world.types.map((t) => compileKit(t.spec));
    const r = new SeededRandom(seed ^ 0x7e47);
    this.styles = world.outlets.map(() => houseStyle(r));
  }

  /** An event's own seed, from the corpus seed and the event's number. */
  static eventSeed(seed: number, n: number): number {
    return (seed ^ Math.imul(n + 1, 0x27d4eb2d) ^ 0x5eed) >>> 0;
  }

  /** The plan of an event of `count` articles. */
  static plan(textSeed: number, count: number): StoryPlan {
    return planStories(count, new SeededRandom(mix(textSeed, PLAN_SALT)));
  }

  /** The event's slots: every story of it names the same names and quotes the same words. */
  private slotsOf(event: TextEvent): SlotValues {
    const kit = this.kits[event.typeIndex]!;
    return eventSlots(this.world.types[event.typeIndex]!.spec, kit, event.roleTexts, event.at, new SeededRandom(mix(event.textSeed, FACTS_SALT)));
  }

  /** The story `story` of the event as written, before any outlet's edits or house style. */
  story(event: TextEvent, story: number, slots = this.slotsOf(event)): Story {
    const kit = this.kits[event.typeIndex]!;
    const r = new SeededRandom(mix(event.textSeed, STORY_SALT + story));
    // A wire story is never a brief: agencies send the full text, and outlets cut it.
    return story !== event.plan.wire && r.chance(BRIEF_SHARE) ? writeBrief(kit, slots, r) : writeStory(kit, slots, r);
  }

  /** Article `k` of the event, as outlet `outletIndex` prints it. */
  article(event: TextEvent, k: number, outletIndex: number): ArticleText {
    const { plan } = event;
    const story = plan.storyOf[k]!;
    const slots = this.slotsOf(event);
    const wire = story === plan.wire;
    const written = (wire ? event.wireStory : undefined) ?? this.story(event, story, slots);
    if (wire) event.wireStory = written;
    const r = new SeededRandom(mix(event.textSeed, COPY_SALT + k));
    const outlet = this.world.outlets[outletIndex]!;
    const house = { style: this.styles[outletIndex]!, outlet: outlet.name, year: slots[YEAR] as string };
    if (!wire) return { headline: written.headline, text: dress(written.headline, written.paragraphs.join('\n\n'), house, r), story, copy: false };

    const first = plan.storyOf.indexOf(story) === k;
    const type = this.world.types[event.typeIndex]!.spec;
    const placeRole = TYPE_PHRASES[type.code_name]!.place;
    const place = placeRole ? event.roleTexts[type.roles.findIndex((role) => role.code_name === placeRole)]! : '';
    const agency = WIRE_AGENCIES[event.textSeed % WIRE_AGENCIES.length]!;
    const edited = editCopy(written, { kit: this.kits[event.typeIndex]!, slots, agency, place, first }, r);
    const body = applyFormats([...edited.paragraphs, ...edited.footer].join('\n\n'), edited.formats, r);
    return { headline: edited.headline, text: dress(edited.headline, body, house, r), story, copy: !first, edits: edited.made };
  }
}

/** The body with the outlet's lines around it. */
function dress(headline: string, body: string, house: { style: HouseStyle; outlet: string; year: string }, r: SeededRandom): string {
  const { style, outlet, year } = house;
  let text = body;
  if (style.header === 'byline') text = `By ${personName(r).name}\n\n${text}`;
  else if (style.header === 'staff') text = `${outlet} staff\n\n${text}`;
  if (style.headlineOnTop) text = `${headline}\n\n${text}`;
  if (style.footer === 'copyright' || style.footer === 'both') text += `\n\nCopyright ${year} ${outlet}. All rights reserved.`;
  if (style.footer === 'newsletter' || style.footer === 'both') text += `\n\nSign up for our newsletter to get the day's top stories from ${outlet}.`;
  return text;
}
