// Copy detection's method (decisions.md, "independent sources"): whether a new article's text
// is an earlier one's with edits, judged from the earlier one's 15-byte fingerprint alone (the
// service keeps no text).
//
// A text is read as words (letters and digits, case folded: whitespace, punctuation and case
// never count), paragraphs of fewer than MIN_PARAGRAPH_WORDS left out (an outlet's dress), and
// as shingles, every run of SHINGLE_WORDS words, each hashed to 32 bits (the words hashed as
// they are read, no string made per word: a 3,000-character text costs about 20 µs).
// A fingerprint samples the text's *lead*, its first LEAD_WORDS words but never the last
// paragraph of a text of several: the lead's shingle hashes fall into BINS bins by their high
// bits, and each bin keeps the low SAMPLE_BITS bits of its smallest hash (one-permutation
// MinHash). A new text is read the same way over its first MATCH_WORDS words, and keeps, of
// each bin, its KEPT_PER_BIN smallest hashes' samples: where an earlier lead stands, nearly
// whole, inside the new text, the earlier lead's smallest hash of a bin is almost always among
// the new text's smallest two, while a shingle the two share by chance (a stock phrase, or 12
// low bits alike) almost never is. A new text is a copy of an earlier one when COPY_HITS of
// the earlier one's samples are among those kept, or one or two fewer when their leads also
// keep samples alike, bin for bin (copyJudged): a copy whose lead lost a paragraph.
//
// Why the lead: wire copies are trimmed from the end and extended at the end, and agencies'
// leads are what outlets keep; a changed headline is not in the text; boilerplate and an
// added or removed paragraph move some of the lead's shingles at most. Two stories written
// apart share names, numbers and a quote, a few of the lead's shingles, and rarely among the
// smallest of a bin on both sides. Tuned on test/corpus/copy-pairs.json (hand-written; every
// label holds) and on the demo corpus, where a text is judged against every report of 30 days
// (tens of thousands): there, before the new text kept only its smallest hashes, 5 hits of 10
// linked stories of one type written from the same phrases (bench/RESULTS.md, "Independent
// sources"). The API reference gives the precision and recall measured.
//
// Ten 12-bit samples make 15 bytes, 16 with the column's length byte: a report row grows by 16
// bytes (rows are padded to 8), where 12 samples (18 bytes, 19 stored) would cost 24.

/** Fewer words than this is never judged a copy (decisions.md): such texts get no fingerprint. */
export const MIN_COPY_WORDS = 50;
const SHINGLE_WORDS = 5;
const LEAD_WORDS = 400;
/** Bins, and so samples, of a fingerprint. */
export const BINS = 10;
const SAMPLE_BITS = 12;
const SAMPLE_MASK = (1 << SAMPLE_BITS) - 1;
/** Of an earlier text's samples, this many found in the new text make it a copy (copyJudged). */
const COPY_HITS = 6;
/** Fewer hits make a copy when the two leads keep this many samples alike: at least NEAR_LEADS[COPY_HITS - hits]. */
const NEAR_LEADS = [0, 2, 5];
/** The fewest hits that can make a copy. */
export const FEWEST_HITS = COPY_HITS - NEAR_LEADS.length + 1;
/** Of each bin, a new text keeps the samples of this many of its smallest hashes. */
export const KEPT_PER_BIN = 2;
/** Two 12-bit samples to three bytes. */
export const FINGERPRINT_BYTES = (BINS * SAMPLE_BITS) / 8;

/** A text as copy detection reads it: its shingles' sample keys, and its own fingerprint. */
export interface TextShingles {
  /** The distinct sample keys (sampleKey) of the KEPT_PER_BIN smallest shingle hashes of each bin (among its first MATCH_WORDS words). */
  keys: Uint32Array;
  fingerprint: Uint8Array;
}

/** The values a sample takes: 0 to this, excluded. */
export const SAMPLE_VALUES = SAMPLE_MASK + 1;
/** Sample keys run from 0 to this, excluded. */
export const SAMPLE_KEYS = BINS * SAMPLE_VALUES;
/** A sample's key in the candidates' index: its bin and its low bits. */
export const sampleKey = (bin: number, sample: number): number => bin * SAMPLE_VALUES + sample;

/**
 * A paragraph of fewer words is not read at all: headlines, bylines, datelines, copyright and
 * newsletter lines are an outlet's dress, the same on every story it prints, and a brief
 * dressed in them would be judged a copy of the outlet's every other story. Paragraphs are the
 * blocks between blank lines, or the lines of a text that has none.
 */
const MIN_PARAGRAPH_WORDS = 16;
const BLANK_LINE = /\n[ \t\r\f\v]*\n/;

/** A new text's shingles are read among its first this many words: an earlier lead (LEAD_WORDS) is there, after a dateline, a byline or an added paragraph. */
const MATCH_WORDS = 500;

/** Non-ASCII characters that are letters or digits, and their lower case: looked up once each. */
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;
const foldedCodes = new Map<number, number>(); // code → its lower case's code, or -1 when no word character

/** ASCII codes' lower case when a letter or digit, else -1: a table, read once per character. */
const ASCII_WORD_CODES = Int16Array.from({ length: 128 }, (_, c) =>
  c >= 97 ? (c <= 122 ? c : -1) : c >= 65 ? (c <= 90 ? c | 0x20 : -1) : c >= 48 && c <= 57 ? c : -1,
);

/** A UTF-16 code unit's lower case when it is part of a word (letters and digits), else -1. */
function wordCode(c: number): number {
  if (c < 128) return ASCII_WORD_CODES[c]!;
  if (c >= 0xd800 && c <= 0xdfff) return c; // a surrogate: astral scripts count as words
  let folded = foldedCodes.get(c);
  if (folded === undefined) {
    const char = String.fromCharCode(c);
    folded = NON_ASCII_WORD.test(char) ? char.toLowerCase().charCodeAt(0) : -1;
    foldedCodes.set(c, folded);
  }
  return folded;
}

/** Word hashes and sample keys as a text is read: reused, the process reads one text at a time. */
const wordBuffer = new Uint32Array(MATCH_WORDS);
/** A new text's smallest hashes, KEPT_PER_BIN of each bin: reused likewise. */
const keptHashes = new Float64Array(BINS * KEPT_PER_BIN);

/**
 * The FNV-1a hash of each word (a run of letters and digits, lower-cased) in order, up to
 * MATCH_WORDS of them, in the shared buffer; answers how many (reading stops there), and
 * where the last paragraph kept began (0 for a text of one paragraph, or when reading stopped).
 */
function wordHashes(text: string): { words: Uint32Array; count: number; lastParagraph: number } {
  let count = 0;
  // Where the last paragraph read began (0 while there is one paragraph).
  let lastParagraph = 0;
  let h = 0x811c9dc5;
  let inWord = false;
  // Where the paragraph being read began, and whether a newline ends one (else a blank line does).
  let paragraph = 0;
  const linesAreParagraphs = !BLANK_LINE.test(text);
  let newlines = 0;
  // Words past MATCH_WORDS change nothing but the count, which only has to reach MIN_COPY_WORDS.
  for (let i = 0; i < text.length && count < MATCH_WORDS; i++) {
    const code = text.charCodeAt(i);
    const c = code < 128 ? ASCII_WORD_CODES[code]! : wordCode(code);
    if (c === -1) {
      if (inWord) wordBuffer[count++] = h >>> 0;
      inWord = false;
      if (code === 10 && ++newlines === (linesAreParagraphs ? 1 : 2)) {
        if (count - paragraph < MIN_PARAGRAPH_WORDS)
          count = paragraph; // dress, not story
        else lastParagraph = paragraph;
        paragraph = count;
      } else if (code > 32) newlines = 0;
      continue;
    }
    newlines = 0;
    if (!inWord) h = 0x811c9dc5;
    inWord = true;
    h = Math.imul(h ^ c, 0x01000193);
  }
  if (inWord && count < MATCH_WORDS) wordBuffer[count++] = h >>> 0;
  if (count < MATCH_WORDS && count - paragraph < MIN_PARAGRAPH_WORDS) count = paragraph;
  else if (count > paragraph) lastParagraph = paragraph;
  return { words: wordBuffer, count, lastParagraph: count >= MATCH_WORDS ? 0 : lastParagraph };
}

/** Mixes word hashes into a shingle's hash (murmur3's finalizer spreads every bit). */
function shingleHash(words: Uint32Array, at: number): number {
  let h = 0x9747b28c;
  for (let i = at; i < at + SHINGLE_WORDS; i++) h = Math.imul(h ^ words[i]!, 0x5bd1e995) ^ (h >>> 15);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The text's shingles and fingerprint, or null for a text of fewer than MIN_COPY_WORDS words. */
export function textShingles(text: string): TextShingles | null {
  const { words, count, lastParagraph } = wordHashes(text);
  // The lead never takes the last paragraph of a text of several: where an outlet's longer
  // lines stand (a newsletter line of 16 words or more), and what a trimmed copy drops. Its
  // words count too: a text whose lead is shorter is never judged (fewer than 50 words).
  const leadWords = Math.min(lastParagraph > 0 ? lastParagraph : count, LEAD_WORDS);
  if (leadWords < MIN_COPY_WORDS) return null;
  const smallest = new Array<number>(BINS).fill(Infinity);
  keptHashes.fill(Infinity);
  const leadShingles = leadWords - SHINGLE_WORDS + 1;
  const matchShingles = Math.min(count, MATCH_WORDS) - SHINGLE_WORDS + 1;
  for (let at = 0; at < matchShingles; at++) {
    const h = shingleHash(words, at);
    const bin = Math.floor((h / 2 ** 32) * BINS);
    if (at < leadShingles && h < smallest[bin]!) smallest[bin] = h;
    keepSmallest(bin * KEPT_PER_BIN, h);
  }
  const keys: number[] = [];
  keptHashes.forEach((h, at) => {
    const key = sampleKey(Math.floor(at / KEPT_PER_BIN), h & SAMPLE_MASK);
    if (Number.isFinite(h) && !keys.includes(key)) keys.push(key);
  });
  // A bin the lead left empty (rare, in a short text) keeps 0: a sample like any other, found by chance alone.
  return { keys: Uint32Array.from(keys), fingerprint: packed(smallest.map((h) => (Number.isFinite(h) ? h & SAMPLE_MASK : 0))) };
}

/** Keeps h among a bin's KEPT_PER_BIN smallest hashes (keptHashes from `first`, in order); a hash read twice is kept once. */
function keepSmallest(first: number, h: number): void {
  for (let at = first; at < first + KEPT_PER_BIN; at++) {
    const kept = keptHashes[at]!;
    if (h === kept) return;
    if (h < kept) {
      keptHashes.copyWithin(at + 1, at, first + KEPT_PER_BIN - 1);
      keptHashes[at] = h;
      return;
    }
  }
}

/** 12-bit samples, two to three bytes: a fingerprint. */
export function packed(samples: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(FINGERPRINT_BYTES);
  for (let i = 0; i < samples.length; i += 2) {
    const [a, b] = [samples[i]!, samples[i + 1]!];
    const at = (i / 2) * 3;
    bytes[at] = a & 0xff;
    bytes[at + 1] = (a >>> 8) | ((b & 0xf) << 4);
    bytes[at + 2] = b >>> 4;
  }
  return bytes;
}

/** The key (sampleKey) of bin `bin`'s sample in the fingerprint starting at `offset` of `bytes` (packed's layout). */
export function keyAt(bytes: Uint8Array, offset: number, bin: number): number {
  const at = offset + (bin >>> 1) * 3;
  const sample = bin % 2 === 0 ? bytes[at]! | ((bytes[at + 1]! & 0xf) << 8) : (bytes[at + 1]! >>> 4) | (bytes[at + 2]! << 4);
  return sampleKey(bin, sample);
}

/** A fingerprint's samples as keys (sampleKey), bin by bin. */
export function fingerprintKeys(fingerprint: Uint8Array): number[] {
  const keys: number[] = [];
  for (let bin = 0; bin < BINS; bin++) keys.push(keyAt(fingerprint, 0, bin));
  return keys;
}

/** How many samples of the fingerprint at `offset` in `bytes` are keys marked `mark` in `marks` (by key): fingerprintKeys without an array. */
export function samplesMarked(bytes: Uint8Array, offset: number, marks: Uint32Array, mark: number): number {
  let found = 0;
  for (let bin = 0; bin < BINS; bin++) if (marks[keyAt(bytes, offset, bin)] === mark) found++;
  return found;
}

/** How many of an earlier text's samples are shingles of the new text (0 to BINS). */
export function copyHits(text: TextShingles, earlier: Uint8Array): number {
  let hits = 0;
  for (const key of fingerprintKeys(earlier)) if (text.keys.includes(key)) hits++;
  return hits;
}

/** In how many bins two fingerprints keep the same sample (0 to BINS): how alike their leads are. */
export function sharedSamples(a: Uint8Array, b: Uint8Array): number {
  const [x, y] = [fingerprintKeys(a), fingerprintKeys(b)];
  let shared = 0;
  for (let bin = 0; bin < BINS; bin++) if (x[bin] === y[bin]) shared++;
  return shared;
}

/**
 * Is a new text (its fingerprint) with `hits` of an earlier one's samples a copy of it?
 * COPY_HITS make it one; one fewer does when the two leads keep 2 samples alike, two fewer
 * when they keep 5: a copy whose lead lost a paragraph keeps the rest of it, stories written
 * apart that share phrases do not.
 */
export function copyJudged(hits: number, fingerprint: Uint8Array, earlier: Uint8Array): boolean {
  if (hits >= COPY_HITS) return true;
  const short = COPY_HITS - hits;
  return short < NEAR_LEADS.length && sharedSamples(fingerprint, earlier) >= NEAR_LEADS[short]!;
}

/** Is the new text a copy of the one the fingerprint was taken from? */
export const judgedCopy = (text: TextShingles, earlier: Uint8Array): boolean => copyJudged(copyHits(text, earlier), text.fingerprint, earlier);
