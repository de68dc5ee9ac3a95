// Fingerprints held in memory for copy detection (copy-detection.ts), found from a new text's
// kept shingles (copy-fingerprint.ts): a copy holds at least FEWEST_HITS of its 10 samples
// among the text's keys, and the table finds exactly the fingerprints that do, without
// meeting the rest.
//
// A fingerprint is filed under pairs of its samples, not under each sample. Its bins fall into
// FEWEST_HITS - 1 groups, and it is filed once for each pair of bins of one group (with 10 bins
// and 4 hits wanted: groups of 4, 3 and 3 bins, 6 + 3 + 3 = 12 pairs). Any FEWEST_HITS bins hold
// two of one group (pigeonhole), so a fingerprint with FEWEST_HITS hits is filed under a pair
// the text holds too; the text looks up each filed pair of bins with each of its kept samples
// of both (2 x 2), 48 look-ups. Filed by single samples, as before 2026-11-30, a text met every
// fingerprint sharing one sample with it: a stock phrase (a formula of the trade, an outlet's
// sign-off) whose hash is small is the sample of every text that holds it, and at 300,000 demo
// events a text met 2,451 fingerprints to find 0.6 copies, a number growing with the window's
// fingerprints. By pairs it meets those sharing two samples of one group (bench/RESULTS.md, "A
// compact corpus, eighth step").
//
// A stock pair (two phrases of the trade whose hashes are small) is the pair of thousands of
// texts in a dense window: at ten million demo events (1.5 million fingerprints in 30 days) a
// text met 1,851 fingerprints for about one copy, 551 since. A pair key filed more than CROWDED_PAIR times is crowded: its fingerprints are
// filed instead under the pair and each of 7 of their other 8 samples (a triple), and a text
// holding the pair looks it up with each of its kept samples of those bins. That is exact too:
// a fingerprint with FEWEST_HITS hits, two of them the pair's, has two more among the other bins.
// Which keys are crowded is settled each time the files are made (hash-files.ts), from the
// fingerprints held then; one filed meanwhile goes where its key was settled.
import {
  BINS,
  copyJudged,
  FEWEST_HITS,
  FINGERPRINT_BYTES,
  KEPT_PER_BIN,
  keyAt,
  SAMPLE_KEYS,
  SAMPLE_VALUES,
  samplesMarked,
  type TextShingles,
} from './copy-fingerprint.js';
import { HashFiles } from './hash-files.js';

/** A fingerprint the table holds: the report it is of (or a bulk line's), when it was received, and its order. */
export interface HeldFingerprint<Ref> {
  ref: Ref;
  receivedMs: number;
  /** Receive order: a receive sequence value, or a bulk line's place. */
  order: number;
  fingerprint: Uint8Array;
}

/** A fingerprint the new text copies (copyJudged): enough of its samples among the text's kept shingles. */
export interface CopyCandidate<Ref> {
  held: HeldFingerprint<Ref>;
  hits: number;
}

/** The pairs of bins a fingerprint is filed under: every two bins of one group, bin b in group b % (FEWEST_HITS - 1). */
export const FILED_PAIRS: readonly (readonly [number, number])[] = Array.from({ length: BINS }, (_, i) =>
  Array.from({ length: BINS - i - 1 }, (_, d) => [i, i + d + 1] as const),
)
  .flat()
  .filter(([i, j]) => i % (FEWEST_HITS - 1) === j % (FEWEST_HITS - 1));

/**
 * The bins a crowded pair key's fingerprint is filed under with it (triples), by filed pair:
 * the other bins but the last FEWEST_HITS - 3 (one). A fingerprint with FEWEST_HITS hits, two
 * of them the pair's, has FEWEST_HITS - 2 among the other bins, so one among these.
 */
const TRIPLE_BINS: readonly Uint8Array[] = FILED_PAIRS.map(([i, j]) => {
  const others = Array.from({ length: BINS }, (_, bin) => bin).filter((bin) => bin !== i && bin !== j);
  return Uint8Array.from(others.slice(0, others.length - (FEWEST_HITS - 3)));
});
/** The filed pairs' first and second bins, for the loops that make the files. */
const FIRST_BINS = Uint8Array.from(FILED_PAIRS, ([i]) => i);
const SECOND_BINS = Uint8Array.from(FILED_PAIRS, ([, j]) => j);

/**
 * The hash of filed pair `pair` holding sample keys `first` and `second` (sampleKey), 32 bits
 * (Fibonacci hashing): the pair's key is below 2^28 (12 pairs of 12-bit samples) and the
 * multiplier is odd, so distinct keys hash apart.
 */
const pairHash = (pair: number, first: number, second: number): number =>
  Math.imul((pair * SAMPLE_VALUES + (first % SAMPLE_VALUES)) * SAMPLE_VALUES + (second % SAMPLE_VALUES), 0x9e3779b1) >>> 0;

/**
 * The hash of a crowded pair key's fingerprint filed under its sample key `key` of another bin
 * (a triple): for one pair hash, distinct keys hash apart (odd multipliers and xor are
 * one-to-one); two pairs' triples may meet, and the hits counted after tell them apart.
 */
const tripleHash = (pairHash: number, key: number): number => Math.imul(pairHash ^ Math.imul(key + 1, 0x85ebca6b), 0x9e3779b1) >>> 0;

/**
 * Fingerprints added before the files are remade (at least; else a quarter of those filed): a
 * bulk batch's own table (copy-detection.ts, up to 10,000 lines) is filed as it grows too, so
 * its links stay a few a bucket.
 */
const MIN_UNFILED = 256;
/**
 * A pair key filed more often is crowded. Its fingerprints take 7 entries each instead of one,
 * so only keys that a look-up would otherwise scan for long are (bench/RESULTS.md, "A compact
 * corpus, twelfth step").
 */
export const CROWDED_PAIR = 64;

/** The text's keys marked with a look-up's stamp (samplesMarked): look-ups run one at a time, so every table shares them. */
const keyMarks = new Uint32Array(SAMPLE_KEYS);
let stamp = 0;
/** The text's kept sample keys, KEPT_PER_BIN slots a bin (-1: none), while it is looked up. */
const textKeys = new Int32Array(BINS * KEPT_PER_BIN);

export class FingerprintTable<Ref> {
  private readonly refs: Ref[] = [];
  private receivedMs = new Float64Array(1024);
  private orders = new Float64Array(1024);
  private fingerprints = new Uint8Array(1024 * FINGERPRINT_BYTES);
  /** Fingerprints filed when the files were last made. */
  private filedCount = 0;
  /** Fingerprints by pair key (FILED_PAIRS), but for crowded keys. */
  private readonly pairs = new HashFiles();
  /** Fingerprints of crowded pair keys by triple (tripleHash). */
  private readonly triples = new HashFiles();
  /** The crowded pair keys' hashes, as settled when the files were last made. */
  private crowdedPairs = new Set<number>();
  /** Fingerprints met while a text is looked up (1; zeroed again after), and their numbers. */
  private met = new Uint8Array(1024);
  private touched = new Uint32Array(1024);

  /** Fingerprints met by look-ups so far, before their hits were counted (bench/copy-lookups.ts). */
  metCount = 0;

  /**
   * `crowdedAt`: how often a pair key is filed before it is crowded (tests make it small; the
   * files count to 254, and Infinity crowds none).
   */
  constructor(private readonly crowdedAt = CROWDED_PAIR) {
    if (!(crowdedAt < 255 || crowdedAt === Number.POSITIVE_INFINITY))
      throw new Error(`a pair key is crowded above 0 to 254 entries, or never: not ${crowdedAt}`);
  }

  /** How many pair keys are crowded: for tests. */
  get crowdedKeys(): number {
    return this.crowdedPairs.size;
  }

  add(entry: HeldFingerprint<Ref>): void {
    const at = this.hold(entry);
    for (let pair = 0; pair < FILED_PAIRS.length; pair++) this.link(pair, at);
    if (at + 1 - this.filedCount >= Math.max(MIN_UNFILED, this.filedCount / 4)) this.file();
  }

  /** The fingerprints held that `keep` keeps, in a new table, filed once (not as they are added). */
  filtered(keep: (entry: HeldFingerprint<Ref>) => boolean): FingerprintTable<Ref> {
    const table = new FingerprintTable<Ref>(this.crowdedAt);
    for (let at = 0; at < this.refs.length; at++) {
      const entry = this.entry(at);
      if (keep(entry)) table.hold(entry);
    }
    table.file();
    return table;
  }

  /** Keeps the entry in the typed arrays, neither filed nor linked; answers its number. */
  private hold(entry: HeldFingerprint<Ref>): number {
    const at = this.refs.length;
    if (at === this.receivedMs.length) this.grow();
    this.refs.push(entry.ref);
    this.receivedMs[at] = entry.receivedMs;
    this.orders[at] = entry.order;
    this.fingerprints.set(entry.fingerprint, at * FINGERPRINT_BYTES);
    return at;
  }

  /** The fingerprints the text copies among those `eligible` admits. */
  copied(text: TextShingles, eligible: (entry: HeldFingerprint<Ref>) => boolean): CopyCandidate<Ref>[] {
    const { met, touched, fingerprints, pairs, triples, crowdedPairs } = this;
    if (++stamp === 0xffffffff) {
      keyMarks.fill(0);
      stamp = 1;
    }
    textKeys.fill(-1);
    for (const key of text.keys) {
      keyMarks[key] = stamp;
      const first = Math.floor(key / SAMPLE_VALUES) * KEPT_PER_BIN;
      let slot = first;
      while (slot < first + KEPT_PER_BIN && textKeys[slot] !== -1) slot++;
      // textShingles keeps KEPT_PER_BIN a bin: a key more would be looked up under no pair.
      if (slot === first + KEPT_PER_BIN) throw new Error(`a text keeps more than ${KEPT_PER_BIN} sample keys in bin ${first / KEPT_PER_BIN}`);
      textKeys[slot] = key;
    }
    let count = 0;
    for (let pair = 0; pair < FILED_PAIRS.length; pair++) {
      const [i, j] = FILED_PAIRS[pair]!;
      for (let a = i * KEPT_PER_BIN; a < (i + 1) * KEPT_PER_BIN; a++) {
        const keyI = textKeys[a]!;
        if (keyI === -1) continue;
        for (let b = j * KEPT_PER_BIN; b < (j + 1) * KEPT_PER_BIN; b++) {
          const keyJ = textKeys[b]!;
          if (keyJ === -1) continue;
          const hash = pairHash(pair, keyI, keyJ);
          if (crowdedPairs.size === 0 || !crowdedPairs.has(hash)) {
            count = pairs.meet(hash, met, touched, count);
            continue;
          }
          // A crowded pair: its fingerprints holding one more of the text's kept keys, in a bin of its triples.
          for (const bin of TRIPLE_BINS[pair]!)
            for (let k = bin * KEPT_PER_BIN; k < (bin + 1) * KEPT_PER_BIN; k++) {
              const key = textKeys[k]!;
              if (key !== -1) count = triples.meet(tripleHash(hash, key), met, touched, count);
            }
        }
      }
    }
    this.metCount += count;
    const copies: CopyCandidate<Ref>[] = [];
    for (let n = 0; n < count; n++) {
      const at = touched[n]!;
      met[at] = 0;
      const hits = samplesMarked(fingerprints, at * FINGERPRINT_BYTES, keyMarks, stamp);
      if (hits < FEWEST_HITS) continue;
      const entry = this.entry(at);
      if (copyJudged(hits, text.fingerprint, entry.fingerprint)) copies.push({ held: entry, hits });
    }
    // `eligible` is asked once the shared marks are read: it may look a text up itself.
    return copies.filter((copy) => eligible(copy.held));
  }

  private entry(at: number): HeldFingerprint<Ref> {
    return {
      ref: this.refs[at]!,
      receivedMs: this.receivedMs[at]!,
      order: this.orders[at]!,
      fingerprint: this.fingerprints.subarray(at * FINGERPRINT_BYTES, (at + 1) * FINGERPRINT_BYTES),
    };
  }

  /** Links fingerprint `at` as it is added, under filed pair `pair`: by its pair key, or by triples when that key is crowded. */
  private link(pair: number, at: number): void {
    const hash = this.hashOf(pair, at);
    if (!this.crowdedPairs.has(hash)) this.pairs.link(hash, at);
    else for (const bin of TRIPLE_BINS[pair]!) this.triples.link(this.tripleOf(hash, at, bin), at);
  }

  /** The triple of fingerprint `at`, whose pair key hashes to `hash`, with its sample of `bin` (TRIPLE_BINS). */
  private tripleOf(hash: number, at: number, bin: number): number {
    return tripleHash(hash, keyAt(this.fingerprints, at * FINGERPRINT_BYTES, bin));
  }

  /** The hash of fingerprint `at`'s pair of samples under filed pair `pair`. */
  private hashOf(pair: number, at: number): number {
    const offset = at * FINGERPRINT_BYTES;
    return pairHash(pair, keyAt(this.fingerprints, offset, FIRST_BINS[pair]!), keyAt(this.fingerprints, offset, SECOND_BINS[pair]!));
  }

  /**
   * Files every fingerprint held anew, settling which pair keys are crowded among them. Entry e
   * is fingerprint e / FILED_PAIRS.length's key under filed pair e % FILED_PAIRS.length: with no
   * key crowded the hashes alone are the files' entries; else the crowded keys' entries go to
   * triples (arrays sized beforehand) and the rest close up in place.
   */
  private file(): void {
    const count = this.refs.length;
    const total = count * FILED_PAIRS.length;
    const hashes = new Uint32Array(total);
    for (let at = 0, e = 0; at < count; at++) for (let pair = 0; pair < FILED_PAIRS.length; pair++) hashes[e++] = this.hashOf(pair, at);
    const crowded = new CrowdedKeys(hashes, total, this.crowdedAt);
    if (crowded.keys.size === 0) {
      this.pairs.file(hashes, total, FILED_PAIRS.length);
      this.triples.file(new Uint32Array(0), 0, 1);
    } else {
      const kept = total - crowded.entries;
      const numbers = new Uint32Array(kept);
      const tripleHashes = new Uint32Array(crowded.entries * TRIPLE_BINS[0]!.length);
      const tripleNumbers = new Uint32Array(tripleHashes.length);
      let k = 0;
      let t = 0;
      for (let e = 0; e < total; e++) {
        const hash = hashes[e]!;
        const at = Math.floor(e / FILED_PAIRS.length);
        if (!crowded.has(hash)) {
          hashes[k] = hash;
          numbers[k++] = at;
          continue;
        }
        for (const bin of TRIPLE_BINS[e % FILED_PAIRS.length]!) {
          tripleHashes[t] = this.tripleOf(hash, at, bin);
          tripleNumbers[t++] = at;
        }
      }
      this.pairs.file(hashes, kept, numbers);
      this.triples.file(tripleHashes, t, tripleNumbers);
    }
    Object.assign(this, { crowdedPairs: crowded.keys, filedCount: count });
  }

  private grow(): void {
    const capacity = this.receivedMs.length * 2;
    this.receivedMs = grown(this.receivedMs, capacity);
    this.orders = grown(this.orders, capacity);
    this.fingerprints = grown(this.fingerprints, capacity * FINGERPRINT_BYTES);
    this.met = grown(this.met, capacity);
    this.touched = grown(this.touched, capacity);
  }
}

/** A copy of a typed array `length` long, the array at its start. */
function grown<T extends Float64Array | Uint8Array | Uint32Array>(array: T, length: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(length);
  bigger.set(array);
  return bigger;
}

/**
 * The hashes found more than `most` (below 255) times among the first `count` of `hashes`:
 * counted first by slots of their high bits (about a hash a slot, a byte each, saturating),
 * then one by one only in slots holding more.
 */
class CrowdedKeys {
  readonly keys = new Set<number>();
  /** How many of the hashes are crowded keys. */
  readonly entries: number = 0;
  private readonly slots: Uint8Array;
  private readonly shift: number;

  constructor(
    hashes: Uint32Array,
    count: number,
    private readonly most: number,
  ) {
    const bits = Math.max(10, Math.ceil(Math.log2(count)));
    this.shift = 32 - bits;
    this.slots = new Uint8Array(1 << bits);
    for (let e = 0; e < count; e++) {
      const slot = hashes[e]! >>> this.shift;
      if (this.slots[slot]! < 255) this.slots[slot]!++;
    }
    const counts = new Map<number, number>();
    for (let e = 0; e < count; e++) {
      const hash = hashes[e]!;
      if (this.slots[hash >>> this.shift]! > most) counts.set(hash, (counts.get(hash) ?? 0) + 1);
    }
    for (const [hash, n] of counts)
      if (n > most) {
        this.keys.add(hash);
        this.entries += n;
      }
  }

  /** Whether `hash` is crowded: most hashes' slots tell at once that it is not. */
  has(hash: number): boolean {
    return this.slots[hash >>> this.shift]! > this.most && this.keys.has(hash);
  }
}

/** The candidate a new text is a copy of: the most samples found, then the earliest received. */
export function bestCandidate<Ref>(candidates: readonly CopyCandidate<Ref>[]): CopyCandidate<Ref> | null {
  let best: CopyCandidate<Ref> | null = null;
  for (const c of candidates) if (!best || c.hits > best.hits || (c.hits === best.hits && c.held.order < best.held.order)) best = c;
  return best;
}
