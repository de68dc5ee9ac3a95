// Each demo type's templates, compiled once, parsed and written in advance into the variants
// story writing draws from (story-grammar.ts). A type's own sentences (story-type-phrases.ts)
// and the few shared ones that name who says what (leads, closing lines) have the type's words
// spliced in; the shared pools of background, analysis and outlook (story-common-phrases.ts)
// are compiled once for every type of a kind, naming the type's words through slots ({noun},
// {topic}, {actor}, {place}). Shared, they stay a few hundred kilobytes a process touches over
// and over rather than twelve copies of it: writing texts is mostly reading them.
import type { DemoEventType } from './demo-event-types.js';
import { SeededRandom } from './seeded-random.js';
import { AFTER_QUOTE, CATEGORY_PHRASES, CLOSING, LEAD_FORMS, QUOTE_FORMS, TAILS } from './story-common-phrases.js';
import { capitalized, capitalTwin, expand, type Phrase, parse, phrase, type Template, withoutStop } from './story-grammar.js';
import { type StoryCategory, TYPE_PHRASES } from './story-type-phrases.js';

export interface SpeakerKit {
  /** Null: a name made for the event. */
  name: Phrase | null;
  title: Phrase;
  /**
   * What they might say, as templates rather than variants: a quote is written once an event,
   * with every choice drawn, so that two events seldom hear the same words (a quote is the
   * longest run of words the stories of one event share, and should be theirs alone).
   */
  quotes: Template[];
}

/**
 * Phrases a story draws sentences from, each used once at most: numbered from `first` within
 * the kit, with the count of those a story drew at `first + phrases.length`.
 */
export interface Pool {
  phrases: readonly Phrase[];
  first: number;
  /** How many a story draws at most. */
  most: number;
}

/**
 * A type's templates. Leads, quote forms and headlines are whole sentences; the pools a story
 * draws its other sentences from end without their stop, which the writer adds (after a
 * clause, now and then: demo-stories.ts).
 */
export interface StoryKit {
  leads: Phrase[];
  facts: Pool;
  reactions: Pool;
  background: Pool;
  analysis: Pool;
  outlook: Pool;
  closing: Pool;
  afterQuote: Pool;
  /** How many phrases the pools hold together, with a count each (a story marks the ones it used in an array this long). */
  pooled: number;
  quoteForms: Phrase[];
  /** Clauses that may end a sentence (", officials said"). */
  tails: readonly Phrase[];
  headlines: Phrase[];
  speakers: SpeakerKit[];
  /** The type's words for the event and what it is part of, for the {noun} and {topic} slots. */
  nouns: readonly string[];
  topics: readonly string[];
  /** The same, capitalized, for the {Noun} and {Topic} slots that start sentences. */
  capitalNouns: readonly string[];
  capitalTopics: readonly string[];
  /** Which role is the main actor ({actor}) and which the place ({place}), if any: indexes into the type's roles. */
  actorRole: number;
  placeRole: number;
}

capitalTwin('noun', 'Noun');
capitalTwin('topic', 'Topic');
/**
 * How the shared pools name the type's words: through slots, filled per event. The main actor
 * mostly as "the company" once a lead has named it, as writers do: a name of four words
 * repeated in every sentence would be most of what two stories of one event share.
 */
const SHARED_MACROS = { noun: '{noun}', topic: '{topic}', actor: '[the company|the firm|the group|{actor}]', place: '{place}' };
const FACTS_PER_STORY = 5;
const REACTIONS_PER_STORY = 3;
// The variants are the same in every corpus: they are ways of wording, not news.
const VARIANT_SEED = 0x7e3a;

interface SharedPool {
  phrases: Phrase[];
  /** Which of them name the place: left out for a type without one. */
  placed: boolean[];
}

function sharedPool(texts: readonly string[], r: SeededRandom): SharedPool {
  return {
    phrases: texts.map((t) => phrase(withoutStop(capitalized(parse(expand(t, SHARED_MACROS)))), r)),
    placed: texts.map((t) => t.includes('{{place}}')),
  };
}

let shared: { categories: Record<StoryCategory, Record<'background' | 'analysis' | 'outlook', SharedPool>>; afterQuote: SharedPool; tails: Phrase[] } | null =
  null;

/** The shared pools, compiled on first use. */
function sharedPools() {
  if (shared) return shared;
  const r = new SeededRandom(VARIANT_SEED);
  const category = (c: StoryCategory) => ({
    background: sharedPool(CATEGORY_PHRASES[c].background, r),
    analysis: sharedPool(CATEGORY_PHRASES[c].analysis, r),
    outlook: sharedPool(CATEGORY_PHRASES[c].outlook, r),
  });
  shared = {
    categories: { BUSINESS: category('BUSINESS'), HAZARD: category('HAZARD'), PUBLIC: category('PUBLIC') },
    afterQuote: sharedPool(AFTER_QUOTE, r),
    tails: TAILS.map((t) => phrase(parse(expand(t, SHARED_MACROS)), r)),
  };
  return shared;
}

/** The variants of a choice without slots, as strings ("[the deal|the takeover]"). */
const choices = (text: string, r: SeededRandom) => phrase(parse(text), r).map((variant) => variant.join(''));

/** The templates of one demo type. */
export function compileKit(type: DemoEventType): StoryKit {
  const words = TYPE_PHRASES[type.code_name];
  if (!words) throw new Error(`no story phrases for ${type.code_name}`);
  const actorRole = type.roles.findIndex((role) => role.pool);
  const placeRole = words.place ? type.roles.findIndex((role) => role.code_name === words.place) : -1;
  const macros: Record<string, string> = {
    noun: words.noun,
    topic: words.topic,
    sayer: words.sayer,
    report: words.report,
    source: '[{{sayer}} said|according to {{report}}]',
    actor: `{${type.roles[actorRole]!.code_name}}`,
    clause: `[${words.clauses.join('|')}]`,
  };
  if (words.place) macros.place = `{${words.place}}`;
  const r = new SeededRandom(VARIANT_SEED);
  const compile = (texts: readonly string[]): Template[] => texts.map((t) => parse(expand(t, macros)));
  const sentences = (texts: readonly string[]) => compile(texts).map((t) => phrase(capitalized(t), r));

  let pooled = 0;
  const numbered = (list: readonly Phrase[], most = list.length): Pool => {
    const first = pooled;
    pooled += list.length + 1;
    return { phrases: list, first, most };
  };
  const own = (texts: readonly string[], most?: number) =>
    numbered(
      compile(texts).map((t) => phrase(withoutStop(capitalized(t)), r)),
      most,
    );
  // A shared phrase that needs a place the type has not is left out, not written with a gap.
  const of = (pool: SharedPool) => numbered(words.place ? pool.phrases : pool.phrases.filter((_, i) => !pool.placed[i]));
  const common = sharedPools();
  const category = common.categories[words.category];
  const capitalize = (list: string[]) => list.map((s) => s[0]!.toUpperCase() + s.slice(1));
  const nouns = choices(words.noun, r);
  const topics = choices(words.topic, r);
  const kit = {
    leads: sentences(LEAD_FORMS),
    // The type's own facts and reactions are what every story of an event is likeliest to
    // draw alike: a story takes a few of them, and the rest from the larger shared pools.
    facts: own(words.facts, FACTS_PER_STORY),
    reactions: own(words.reactions, REACTIONS_PER_STORY),
    background: of(category.background),
    analysis: of(category.analysis),
    outlook: of(category.outlook),
    closing: own(CLOSING),
    afterQuote: of(common.afterQuote),
    quoteForms: sentences(QUOTE_FORMS),
    tails: common.tails,
    // The type's own sentence is one of its headlines ("X agreed to acquire Y for Z").
    headlines: sentences([...words.headlines, type.sentence_template]),
    speakers: words.speakers.map((speaker) => ({
      name: speaker.name ? phrase(parse(expand(speaker.name, macros)), r) : null,
      title: phrase(parse(expand(speaker.title, macros)), r),
      quotes: compile(speaker.quotes),
    })),
    nouns,
    topics,
    capitalNouns: capitalize(nouns),
    capitalTopics: capitalize(topics),
    actorRole,
    placeRole,
  };
  return { ...kit, pooled };
}
