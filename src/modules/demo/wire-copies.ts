// A wire story as each outlet that carries it publishes it: one text with a few edits, the
// kinds the service must still see as one story (decisions.md, "independent sources"): its own
// headline, the last paragraphs trimmed, a paragraph of background added or a middle one taken
// out, the agency's dateline or credit line, and whitespace, punctuation or case changed on the
// way through a content system. Whatever is taken out, a copy keeps at least 60 % of the wire
// text's words.
import { personName } from './demo-names.js';
import type { Story } from './demo-stories.js';
import { poolSentence } from './demo-stories.js';
import type { SeededRandom } from './seeded-random.js';
import { type SlotValues, write } from './story-grammar.js';
import type { StoryKit } from './story-kits.js';

/**
 * Share of the wire text a copy keeps at least, counted in characters: a paragraph's length
 * tracks its words closely (one story's words run to one length on average), and reading a
 * length costs nothing where counting words reads the text. 64 % of the characters keeps 60 %
 * of the words with room to spare (test/demo checks it by words).
 */
const KEPT_SHARE = 0.64;

export interface CopyContext {
  kit: StoryKit;
  slots: SlotValues;
  /** The agency whose story it is. */
  agency: string;
  /** Where it happened, for a dateline ("LIMA (Associated Wire) — "); empty when the type has no place. */
  place: string;
  /** The first outlet to carry the story prints it as it came, but for the agency's lines and formatting. */
  first: boolean;
}

/** A copy before the outlet's house style: its headline, paragraphs, lines below, and formatting to apply. */
export interface EditedCopy {
  headline: string;
  paragraphs: string[];
  footer: string[];
  formats: Format[];
  /** The edits made, as they were made ("trim 2", "drop-middle 3", "format curly-quotes"): tests read them. */
  made: string[];
}

type Edit = 'headline' | 'trim' | 'drop-middle' | 'add-paragraph' | 'dateline' | 'credit' | 'format';
/** Edits with how often an outlet makes each, for a copy that is not the first. */
const EDITS: readonly Edit[] = ['headline', 'trim', 'drop-middle', 'add-paragraph', 'dateline', 'credit', 'format'];
const EDIT_WEIGHTS = [6, 4.5, 3, 3.5, 3, 3, 5];
/** The ones the first carrier makes, if any: it prints the agency's text. */
const FIRST_EDITS: readonly Edit[] = ['dateline', 'credit', 'format'];

export type Format = 'curly-quotes' | 'hard-wrap' | 'double-spaces' | 'upper-lead' | 'single-newlines' | 'no-commas' | 'lower-case';
const FORMATS: readonly Format[] = ['curly-quotes', 'hard-wrap', 'double-spaces', 'upper-lead', 'single-newlines', 'no-commas', 'lower-case'];
const FORMAT_WEIGHTS = [5, 2, 3, 3, 3, 1, 1];

/** An index into `weights`, drawn by weight among those not yet in `taken`. */
function pickWeighted(weights: readonly number[], taken: readonly number[], r: SeededRandom): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) if (!taken.includes(i)) total += weights[i]!;
  let u = r.next() * total;
  for (let i = 0; i < weights.length; i++) {
    if (taken.includes(i)) continue;
    u -= weights[i]!;
    if (u < 0) return i;
  }
  return weights.findIndex((_, i) => !taken.includes(i));
}

/** The edits of one copy of `wire`, drawn from `r` (the copy's own generator). */
export function editCopy(wire: Story, context: CopyContext, r: SeededRandom): EditedCopy {
  const { kit, slots } = context;
  const chosen: Edit[] = [];
  if (context.first) {
    if (r.chance(0.5)) chosen.push(r.pick(FIRST_EDITS));
  } else {
    const taken: number[] = [];
    for (let n = 2 + r.int(3); n > 0; n--) taken.push(pickWeighted(EDIT_WEIGHTS, taken, r));
    // Taking out before adding: a trimmed ending is the wire's, not an added paragraph.
    taken.sort((a, b) => a - b);
    for (const i of taken) chosen.push(EDITS[i]!);
  }

  const copy: EditedCopy = { headline: wire.headline, paragraphs: wire.paragraphs.slice(), footer: [], formats: [], made: [] };
  const sizes = wire.paragraphs.map((p) => p.length);
  const total = sizes.reduce((sum, n) => sum + n, 0);
  let kept = total;
  for (const edit of chosen) {
    switch (edit) {
      case 'headline':
        copy.headline = otherHeadline(wire.headline, context, r);
        copy.made.push('headline');
        break;
      case 'trim': {
        const n = 1 + r.int(2);
        const cut = sizes.slice(sizes.length - n).reduce((sum, w) => sum + w, 0);
        if (copy.paragraphs.length - n >= 3 && kept - cut >= KEPT_SHARE * total) {
          copy.paragraphs.length -= n;
          sizes.length -= n;
          kept -= cut;
          copy.made.push(`trim ${n}`);
        }
        break;
      }
      case 'drop-middle': {
        const at = 1 + r.int(copy.paragraphs.length - 2);
        if (copy.paragraphs.length > 3 && kept - sizes[at]! >= KEPT_SHARE * total) {
          kept -= sizes[at]!;
          copy.paragraphs.splice(at, 1);
          sizes.splice(at, 1);
          copy.made.push(`drop-middle ${at}`);
        }
        break;
      }
      case 'add-paragraph': {
        const added: string[] = [];
        for (let n = 2 + r.int(2); n > 0; n--) added.push(poolSentence(kit, r.pick((r.chance(0.6) ? kit.background : kit.analysis).phrases), r, slots));
        const at = r.chance(0.5) ? copy.paragraphs.length : 2 + r.int(Math.max(1, copy.paragraphs.length - 2));
        copy.paragraphs.splice(at, 0, added.join(' '));
        sizes.splice(at, 0, 0); // not the wire's text
        copy.made.push(`add-paragraph ${at}`);
        break;
      }
      case 'dateline':
        copy.paragraphs[0] = `${context.place ? `${context.place.toUpperCase()} ` : ''}(${context.agency}) — ${copy.paragraphs[0]}`;
        copy.made.push('dateline');
        break;
      case 'credit':
        copy.footer.push(creditLine(context.agency, r));
        copy.made.push('credit');
        break;
      case 'format': {
        const taken: number[] = [pickWeighted(FORMAT_WEIGHTS, [], r)];
        if (r.chance(0.4)) taken.push(pickWeighted(FORMAT_WEIGHTS, taken, r));
        for (const i of taken) copy.formats.push(FORMATS[i]!);
        copy.made.push(...copy.formats.map((f) => `format ${f}`));
        break;
      }
    }
  }
  // Edits that would have cut too much were not made: a copy has one edit at least.
  if (!context.first && copy.made.length === 0) {
    copy.headline = otherHeadline(wire.headline, context, r);
    copy.made.push('headline');
  }
  return copy;
}

/** A headline of the outlet's own, other than the wire's (when a few draws find one). */
function otherHeadline(wire: string, { kit, slots }: CopyContext, r: SeededRandom): string {
  let headline = write(r.pick(kit.headlines), r, slots);
  for (let tries = 0; tries < 4 && headline === wire; tries++) headline = write(r.pick(kit.headlines), r, slots);
  return headline;
}

function creditLine(agency: string, r: SeededRandom): string {
  switch (r.int(4)) {
    case 0:
      return `(${agency})`;
    case 1:
      return `Distributed by ${agency}.`;
    case 2:
      return `This story was provided by ${agency}.`;
    default:
      return `Reporting by ${personName(r).name} for ${agency}; editing by ${personName(r).name}.`;
  }
}

/** Breaks each line into lines of at most `width` characters (a word longer than that stays whole), as a plain-text feed does. */
function hardWrap(text: string, width: number): string {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    // The line from `start` to `end`, broken at the last space that fits.
    while (end - start > width) {
      let space = text.lastIndexOf(' ', start + width);
      if (space <= start) space = text.indexOf(' ', start + width);
      if (space < 0 || space >= end) break;
      out.push(text.slice(start, space));
      start = space + 1;
    }
    out.push(text.slice(start, end));
    start = end + 1;
  }
  return out.join('\n');
}

/** Straight double quotes as opening and closing curly ones, apostrophes curly. */
function curlyQuotes(text: string): string {
  const parts = text.split('"');
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i++) out += (i % 2 === 1 ? '“' : '”') + parts[i]!;
  return out.replaceAll("'", '’');
}

/** The text with a content system's changes of whitespace, punctuation or case. */
export function applyFormats(text: string, formats: readonly Format[], r: SeededRandom): string {
  let out = text;
  for (const format of formats) {
    switch (format) {
      case 'curly-quotes':
        out = curlyQuotes(out);
        break;
      case 'hard-wrap':
        out = hardWrap(out, 64 + r.int(17));
        break;
      case 'double-spaces':
        out = out.replace(/([.!?]["”]?) (?=\S)/g, '$1  ');
        break;
      case 'upper-lead': {
        // The first words of the story in capitals, as wire copy often opens.
        const start = out.search(/[A-Za-z]/);
        let end = start;
        for (let words = 0; words < 4 && end >= 0 && end < out.length; words++) end = out.indexOf(' ', end + 1);
        if (start >= 0 && end > start) out = out.slice(0, start) + out.slice(start, end).toUpperCase() + out.slice(end);
        break;
      }
      case 'single-newlines':
        out = out.replace(/\n\n+/g, '\n');
        break;
      case 'no-commas':
        out = out.replaceAll(',', '');
        break;
      case 'lower-case':
        out = out.toLowerCase();
        break;
    }
  }
  return out;
}
