// Fingerprints held in memory for copy detection (copy-detection.ts), found from a new text's
// shingles: each fingerprint's 10 samples are filed under their keys (copy-fingerprint.ts,
// sampleKey), so a new text visits only the fingerprints that share one of its shingles' keys
// and counts, for each, how many of its samples it holds.
//
// The files are typed arrays, one run of fingerprint numbers per key (compressed sparse rows),
// remade when the fingerprints added since outgrow a quarter of them; the ones added since sit
// in plain lists meanwhile. A text looks up at most 20 keys (its smallest hashes), but not
// evenly: a stock phrase (a formula of the trade, an outlet's sign-off) whose hash is small is
// the sample of every text that holds it, so some keys are filed for a good part of what is
// held (the demo's stories, written from phrase pools, hold many: the longest of a text's 20
// lists is a third of all it visits). The SKIPPED_KEYS longest lists of a text are not visited:
// a fingerprint needs FEWEST_HITS of its samples among the text's keys, so one met fewer than
// FEWEST_HITS - SKIPPED_KEYS times under the others can never be copied, and the few met as
// often are counted again exactly, sample by sample.
import { BINS, copyJudged, FEWEST_HITS, FINGERPRINT_BYTES, keyAt, SAMPLE_KEYS, samplesMarked, type TextShingles } from './copy-fingerprint.js';

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

/** A text's longest key lists left unvisited (fewer than FEWEST_HITS: the count stays exact). */
const SKIPPED_KEYS = 2;

/** Fingerprints added before the files are remade (at least; else a quarter of those filed). */
const MIN_UNFILED = 4_096;

export class FingerprintTable<Ref> {
  private readonly refs: Ref[] = [];
  private receivedMs = new Float64Array(1024);
  private orders = new Float64Array(1024);
  private fingerprints = new Uint8Array(1024 * FINGERPRINT_BYTES);
  /** The filed fingerprints' numbers, key by key: those of key k are at starts[k] to starts[k + 1]. */
  private starts = new Uint32Array(SAMPLE_KEYS + 1);
  private filed = new Uint32Array(0);
  private filedCount = 0;
  /**
   * Fingerprints added since the files were made, by key, as linked lists in typed arrays: the
   * first link of key k is heads[k] (-1: none); a link is a fingerprint number and the next link.
   */
  private heads = new Int32Array(SAMPLE_KEYS).fill(-1);
  private links = new Int32Array(2 * 1024);
  private linkCount = 0;
  /** How many fingerprints the lists of unfiled ones hold, by key. */
  private unfiledCounts = new Uint32Array(SAMPLE_KEYS);
  /** Hits per fingerprint under the keys visited while a text is looked up (zeroed again after), and the ones hit. */
  private hits = new Uint8Array(1024);
  private touched = new Uint32Array(1024);
  /** The keys of the text being looked up: marked with the look-up's stamp. */
  private readonly keyMarks = new Uint32Array(SAMPLE_KEYS);
  private stamp = 0;

  add(entry: HeldFingerprint<Ref>): void {
    const at = this.refs.length;
    if (at === this.receivedMs.length) this.grow();
    this.refs.push(entry.ref);
    this.receivedMs[at] = entry.receivedMs;
    this.orders[at] = entry.order;
    this.fingerprints.set(entry.fingerprint, at * FINGERPRINT_BYTES);
    if (2 * (this.linkCount + BINS) > this.links.length) {
      const bigger = new Int32Array(this.links.length * 2);
      bigger.set(this.links);
      this.links = bigger;
    }
    // Keys name their bin: a fingerprint's ten are distinct.
    for (let bin = 0; bin < BINS; bin++) {
      const key = keyAt(this.fingerprints, at * FINGERPRINT_BYTES, bin);
      const link = this.linkCount++;
      this.links[2 * link] = at;
      this.links[2 * link + 1] = this.heads[key]!;
      this.heads[key] = link;
      this.unfiledCounts[key]!++;
    }
    if (at + 1 - this.filedCount >= Math.max(MIN_UNFILED, this.filedCount / 4)) this.file();
  }

  /** The fingerprints held that `keep` keeps, in a new table. */
  filtered(keep: (entry: HeldFingerprint<Ref>) => boolean): FingerprintTable<Ref> {
    const table = new FingerprintTable<Ref>();
    for (let at = 0; at < this.refs.length; at++) {
      const entry = this.entry(at);
      if (keep(entry)) table.add(entry);
    }
    return table;
  }

  /** The fingerprints the text copies among those `eligible` admits. */
  copied(text: TextShingles, eligible: (entry: HeldFingerprint<Ref>) => boolean): CopyCandidate<Ref>[] {
    const { hits, touched, starts, filed, heads, links, keyMarks } = this;
    const { unfiledCounts } = this;
    // The text's keys by how many fingerprints each files, shortest first, the longest SKIPPED_KEYS left out.
    const sizes = Array.from(text.keys, (key) => ({ key, size: starts[key + 1]! - starts[key]! + unfiledCounts[key]! }));
    const visited = sizes
      .sort((a, b) => a.size - b.size)
      .slice(0, Math.max(0, sizes.length - SKIPPED_KEYS))
      .map(({ key }) => key);
    let count = 0;
    for (const key of visited) {
      for (let i = starts[key]!, end = starts[key + 1]!; i < end; i++) {
        const at = filed[i]!;
        if (hits[at]!++ === 0) touched[count++] = at;
      }
      for (let link = heads[key]!; link !== -1; link = links[2 * link + 1]!) {
        const at = links[2 * link]!;
        if (hits[at]!++ === 0) touched[count++] = at;
      }
    }
    if (++this.stamp === 0xffffffff) {
      keyMarks.fill(0);
      this.stamp = 1;
    }
    for (const key of text.keys) keyMarks[key] = this.stamp;
    const found: CopyCandidate<Ref>[] = [];
    for (let i = 0; i < count; i++) {
      const at = touched[i]!;
      const some = hits[at]!;
      hits[at] = 0;
      if (some < FEWEST_HITS - SKIPPED_KEYS) continue;
      const all = samplesMarked(this.fingerprints, at * FINGERPRINT_BYTES, keyMarks, this.stamp);
      if (all < FEWEST_HITS) continue;
      const entry = this.entry(at);
      if (copyJudged(all, text.fingerprint, entry.fingerprint) && eligible(entry)) found.push({ held: entry, hits: all });
    }
    return found;
  }

  private entry(at: number): HeldFingerprint<Ref> {
    return {
      ref: this.refs[at]!,
      receivedMs: this.receivedMs[at]!,
      order: this.orders[at]!,
      fingerprint: this.fingerprints.subarray(at * FINGERPRINT_BYTES, (at + 1) * FINGERPRINT_BYTES),
    };
  }

  /** Files every fingerprint held in the typed arrays. */
  private file(): void {
    const count = this.refs.length;
    const { fingerprints } = this;
    const starts = new Uint32Array(SAMPLE_KEYS + 1);
    for (let at = 0; at < count; at++) for (let bin = 0; bin < BINS; bin++) starts[keyAt(fingerprints, at * FINGERPRINT_BYTES, bin) + 1]!++;
    for (let key = 0; key < SAMPLE_KEYS; key++) starts[key + 1]! += starts[key]!;
    const filed = new Uint32Array(starts[SAMPLE_KEYS]!);
    const next = starts.slice(0, SAMPLE_KEYS);
    for (let at = 0; at < count; at++) for (let bin = 0; bin < BINS; bin++) filed[next[keyAt(fingerprints, at * FINGERPRINT_BYTES, bin)]!++] = at;
    Object.assign(this, { starts, filed, filedCount: count, linkCount: 0 });
    this.heads.fill(-1);
    this.unfiledCounts.fill(0);
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
    this.hits = grown(this.hits, capacity);
    this.touched = grown(this.touched, capacity);
  }
}

/** The candidate a new text is a copy of: the most samples found, then the earliest received. */
export function bestCandidate<Ref>(candidates: readonly CopyCandidate<Ref>[]): CopyCandidate<Ref> | null {
  let best: CopyCandidate<Ref> | null = null;
  for (const c of candidates) if (!best || c.hits > best.hits || (c.hits === best.hits && c.held.order < best.held.order)) best = c;
  return best;
}
