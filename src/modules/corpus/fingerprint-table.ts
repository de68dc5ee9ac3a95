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
// The files are typed arrays, one run of fingerprint numbers per bucket of pair keys (compressed
// sparse rows, a bucket per two to four entries), remade when the fingerprints added since
// outgrow a quarter of them; the ones added since sit in linked lists by bucket meanwhile. A
// bucket holds other pairs too: each number lies beside its pair key's hash (one cache line
// holds a bucket's entries), and distinct keys hash apart, so the look-up reads a fingerprint
// only for its own pair.
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
 * The hash of filed pair `pair` holding sample keys `first` and `second` (sampleKey), 32 bits
 * (Fibonacci hashing): the pair's key is below 2^28 (12 pairs of 12-bit samples) and the
 * multiplier is odd, so distinct keys hash apart.
 */
const pairHash = (pair: number, first: number, second: number): number =>
  Math.imul((pair * SAMPLE_VALUES + (first % SAMPLE_VALUES)) * SAMPLE_VALUES + (second % SAMPLE_VALUES), 0x9e3779b1) >>> 0;

/**
 * Fingerprints added before the files are remade (at least; else a quarter of those filed): a
 * bulk batch's own table (copy-detection.ts, up to 2,000 lines) is filed as it grows too, so
 * its links stay a few a bucket.
 */
const MIN_UNFILED = 256;
/** Buckets before the first files are made: 1,024 (MIN_UNFILED fingerprints' 3,072 links, three a bucket). */
const FIRST_BUCKET_BITS = 10;

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
  /** Buckets of pair keys: a power of two, set when the files are made. */
  private bucketBits = FIRST_BUCKET_BITS;
  /**
   * The filed fingerprints' numbers, each followed by its pair's hash, bucket by bucket: the
   * entries of bucket b are at starts[b] to starts[b + 1] (the number of entry n at 2n).
   */
  private starts = new Uint32Array((1 << FIRST_BUCKET_BITS) + 1);
  private filed = new Uint32Array(0);
  private filedCount = 0;
  /**
   * Fingerprints added since the files were made, by bucket, as linked lists in typed arrays:
   * the first link of bucket b is heads[b] (-1: none); a link is a fingerprint number, the next
   * link and its pair's hash.
   */
  private heads = new Int32Array(1 << FIRST_BUCKET_BITS).fill(-1);
  private links = new Int32Array(3 * 1024);
  private linkCount = 0;
  /** Fingerprints met while a text is looked up (1; zeroed again after), and their numbers. */
  private met = new Uint8Array(1024);
  private touched = new Uint32Array(1024);

  add(entry: HeldFingerprint<Ref>): void {
    const at = this.hold(entry);
    if (3 * (this.linkCount + FILED_PAIRS.length) > this.links.length) {
      const bigger = new Int32Array(this.links.length * 2);
      bigger.set(this.links);
      this.links = bigger;
    }
    for (let pair = 0; pair < FILED_PAIRS.length; pair++) {
      const hash = this.hashOf(pair, at);
      const bucket = this.bucketOf(hash);
      const link = this.linkCount++;
      this.links[3 * link] = at;
      this.links[3 * link + 1] = this.heads[bucket]!;
      this.links[3 * link + 2] = hash;
      this.heads[bucket] = link;
    }
    if (at + 1 - this.filedCount >= Math.max(MIN_UNFILED, this.filedCount / 4)) this.file();
  }

  /** The fingerprints held that `keep` keeps, in a new table, filed once (not as they are added). */
  filtered(keep: (entry: HeldFingerprint<Ref>) => boolean): FingerprintTable<Ref> {
    const table = new FingerprintTable<Ref>();
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
    const { met, touched, starts, filed, heads, links, fingerprints } = this;
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
          const bucket = this.bucketOf(hash);
          for (let n = starts[bucket]!, end = starts[bucket + 1]!; n < end; n++) {
            const at = filed[2 * n]!;
            if (filed[2 * n + 1] === hash && met[at] === 0) {
              met[at] = 1;
              touched[count++] = at;
            }
          }
          // Links hold the hash as a signed integer.
          for (let link = heads[bucket]!; link !== -1; link = links[3 * link + 1]!) {
            const at = links[3 * link]!;
            if (links[3 * link + 2]! >>> 0 === hash && met[at] === 0) {
              met[at] = 1;
              touched[count++] = at;
            }
          }
        }
      }
    }
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

  /** A pair hash's bucket: its high bits. */
  private bucketOf(hash: number): number {
    return hash >>> (32 - this.bucketBits);
  }

  /** The hash of fingerprint `at`'s pair of samples under filed pair `pair`. */
  private hashOf(pair: number, at: number): number {
    const [i, j] = FILED_PAIRS[pair]!;
    const offset = at * FINGERPRINT_BYTES;
    return pairHash(pair, keyAt(this.fingerprints, offset, i), keyAt(this.fingerprints, offset, j));
  }

  /** Files every fingerprint held in the typed arrays, in buckets sized for them (two to four entries each). */
  private file(): void {
    const count = this.refs.length;
    const entries = count * FILED_PAIRS.length;
    this.bucketBits = Math.max(FIRST_BUCKET_BITS, Math.ceil(Math.log2(entries / 4)));
    const buckets = 1 << this.bucketBits;
    // Each entry's hash, made once: entry e is fingerprint e / 12's, under pair e % 12.
    const hashes = new Uint32Array(entries);
    const starts = new Uint32Array(buckets + 1);
    for (let e = 0; e < entries; e++) {
      hashes[e] = this.hashOf(e % FILED_PAIRS.length, Math.floor(e / FILED_PAIRS.length));
      starts[this.bucketOf(hashes[e]!) + 1]!++;
    }
    for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
    const filed = new Uint32Array(2 * entries);
    const next = starts.slice(0, buckets);
    for (let e = 0; e < entries; e++) {
      const n = next[this.bucketOf(hashes[e]!)]!++;
      filed[2 * n] = Math.floor(e / FILED_PAIRS.length);
      filed[2 * n + 1] = hashes[e]!;
    }
    Object.assign(this, { starts, filed, filedCount: count, linkCount: 0, heads: new Int32Array(buckets).fill(-1) });
  }

  private grow(): void {
    const capacity = this.receivedMs.length * 2;
    const grown = <T extends Float64Array | Uint8Array | Uint32Array>(array: T, length: number): T => {
      const bigger = new (array.constructor as new (n: number) => T)(length);
      bigger.set(array);
      return bigger;
    };
    this.receivedMs = grown(this.receivedMs, capacity);
    this.orders = grown(this.orders, capacity);
    this.fingerprints = grown(this.fingerprints, capacity * FINGERPRINT_BYTES);
    this.met = grown(this.met, capacity);
    this.touched = grown(this.touched, capacity);
  }
}

/** The candidate a new text is a copy of: the most samples found, then the earliest received. */
export function bestCandidate<Ref>(candidates: readonly CopyCandidate<Ref>[]): CopyCandidate<Ref> | null {
  let best: CopyCandidate<Ref> | null = null;
  for (const c of candidates) if (!best || c.hits > best.hits || (c.hits === best.hits && c.held.order < best.held.order)) best = c;
  return best;
}
