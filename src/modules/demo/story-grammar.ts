// A small template language for the demo's article texts. "[a|b|c]" is a choice (options may
// hold slots and choices), "{slot}" a fact of the event (a name, a figure, the quote),
// "{{macro}}" text spliced in before parsing (a type's own words for "the deal", who says it).
//
// Texts for millions of articles are written from these, so a template is parsed once at
// start-up and then written a few dozen ways in advance (its variants: every choice made, the
// literal runs joined, only the slots left open). Writing a sentence is then one draw and a few
// joins, not a draw and a join for each of its dozen choices.
import type { SeededRandom } from './seeded-random.js';

/** A parsed template: literal text, a slot's number, or a choice among parsed options. */
export type Piece = string | number | Piece[][];
export type Template = Piece[];

/**
 * The facts of one event that its texts name, by slot number: one value, or several to draw
 * from at each use (a type's words for the event: "the deal", "the takeover").
 */
export type SlotValues = (string | readonly string[] | undefined)[];

const slotNumbers = new Map<string, number>();

/** The number of a slot by its name: one numbering for every template. */
export function slot(name: string): number {
  let n = slotNumbers.get(name);
  if (n === undefined) {
    n = slotNumbers.size;
    slotNumbers.set(name, n);
  }
  return n;
}

/** How many slots exist so far (the length a SlotValues array needs). */
export const slotCount = () => slotNumbers.size;

/** Slots whose values start lower case, by the slot holding the same values capitalized. */
const capitalTwins = new Map<number, number>();

/** Declares `upper` the capitalized twin of `lower`: a sentence starting with `lower` uses `upper`. */
export function capitalTwin(lower: string, upper: string): void {
  capitalTwins.set(slot(lower), slot(upper));
}

/** The slot names a template uses (tests check every one has a value). */
export function slotsOf(template: Template, into = new Set<string>()): Set<string> {
  const names = [...slotNumbers.keys()];
  for (const piece of template) {
    if (typeof piece === 'number') into.add(names[piece]!);
    else if (typeof piece !== 'string') for (const option of piece) slotsOf(option, into);
  }
  return into;
}

/** Replaces each "{{name}}" by its text (which may hold more macros, choices and slots). */
export function expand(text: string, macros: Readonly<Record<string, string>>): string {
  let out = text;
  for (let depth = 0; out.includes('{{'); depth++) {
    if (depth > 8) throw new Error(`macros nest too deep in ${text}`);
    out = out.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const value = macros[name];
      if (value === undefined) throw new Error(`no macro ${name} in ${text}`);
      return value;
    });
  }
  return out;
}

/** Parses a template (macros already expanded). */
export function parse(text: string): Template {
  let at = 0;
  // Reads pieces until the end, or until "|" or "]" when inside a choice.
  const sequence = (inChoice: boolean): Template => {
    const pieces: Template = [];
    let literal = '';
    const flush = () => {
      if (literal) pieces.push(literal);
      literal = '';
    };
    while (at < text.length) {
      const c = text[at]!;
      if (inChoice && (c === '|' || c === ']')) break;
      if (c === '[') {
        flush();
        at++;
        const options: Piece[][] = [sequence(true)];
        while (text[at] === '|') {
          at++;
          options.push(sequence(true));
        }
        if (text[at] !== ']') throw new Error(`unclosed choice in ${text}`);
        at++;
        pieces.push(options);
      } else if (c === '{') {
        const end = text.indexOf('}', at);
        if (end < 0) throw new Error(`unclosed slot in ${text}`);
        flush();
        pieces.push(slot(text.slice(at + 1, end)));
        at = end + 1;
      } else {
        literal += c;
        at++;
      }
    }
    flush();
    return pieces;
  };
  const template = sequence(false);
  if (at !== text.length) throw new Error(`stray "${text[at]}" in ${text}`);
  return template;
}

/** Writes a template: each choice drawn, each slot filled. */
export function realize(template: Template, r: SeededRandom, slots: SlotValues): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const piece = template[i]!;
    if (typeof piece === 'string') out += piece;
    else if (typeof piece === 'number') {
      const value = slots[piece]!;
      out += typeof value === 'string' ? value : value[r.int(value.length)]!;
    } else out += realize(piece[r.int(piece.length)]!, r, slots);
  }
  return out;
}

/**
 * The template with a capital first letter wherever it may start, for a sentence: done once
 * here, since capitalizing a written string would copy it whole. A slot that starts a sentence
 * starts with a capital or a digit already (a name, a figure), or has a capitalized twin.
 */
export function capitalized(template: Template): Template {
  const [first, ...rest] = template;
  if (first === undefined) return template;
  if (typeof first === 'number') return [capitalTwins.get(first) ?? first, ...rest];
  if (typeof first === 'string') return [first[0]!.toUpperCase() + first.slice(1), ...rest];
  // An empty option would leave the capital to the piece after the choice.
  if (first.some((option) => option.length === 0)) throw new Error('a sentence cannot start with an optional choice');
  return [first.map(capitalized), ...rest];
}

/** The template without its final stop (a clause may go before it): the template must end with one. */
export function withoutStop(template: Template): Template {
  const last = template.at(-1);
  if (typeof last !== 'string' || !last.endsWith('.')) throw new Error('a sentence template ends with a stop');
  return last.length === 1 ? template.slice(0, -1) : [...template.slice(0, -1), last.slice(0, -1)];
}

/** A template with every choice made: runs of literal text between slot numbers. */
type Variant = (string | number)[];

/** Ways a template is written, made in advance: writing it is drawing one and filling its slots. */
export type Phrase = Variant[];

/** Variants made of each template: enough that two stories using one template seldom word it alike. */
const VARIANTS = 24;

function variantOf(template: Template, r: SeededRandom, into: Variant): Variant {
  for (const piece of template) {
    if (typeof piece === 'number') into.push(piece);
    else if (typeof piece === 'string') {
      if (typeof into.at(-1) === 'string') into[into.length - 1] += piece;
      else into.push(piece);
    } else variantOf(piece[r.int(piece.length)]!, r, into);
  }
  return into;
}

/** Up to VARIANTS distinct ways of writing the template (all of them, when it has fewer). */
export function phrase(template: Template, r: SeededRandom): Phrase {
  const variants = new Map<string, Variant>();
  for (let tries = 0; tries < 4 * VARIANTS && variants.size < VARIANTS; tries++) {
    const variant = variantOf(template, r, []);
    variants.set(JSON.stringify(variant), variant);
  }
  return [...variants.values()];
}

/** One of the phrase's variants with the slots filled. */
export function write(phrase: Phrase, r: SeededRandom, slots: SlotValues): string {
  const variant = phrase.length === 1 ? phrase[0]! : phrase[r.int(phrase.length)]!;
  let out = '';
  for (let i = 0; i < variant.length; i++) {
    const piece = variant[i]!;
    if (typeof piece === 'string') out += piece;
    else {
      const value = slots[piece]!;
      out += typeof value === 'string' ? value : value[r.int(value.length)]!;
    }
  }
  return out;
}
