// Fingerprints held in memory for copy detection (copy-detection.ts), found from a new text's
// shingles: each fingerprint's 8 samples are filed under their keys (copy-fingerprint.ts,
// sampleKey), so a new text visits only the fingerprints that share one of its shingles' keys
// and counts, for each, how many of its samples it holds.
import { COPY_HITS, fingerprintKeys, type TextShingles } from './copy-fingerprint.js';

/** A fingerprint the table holds: the report it is of (or a bulk line's), when it was received, and its order. */
export interface HeldFingerprint<Ref> {
  ref: Ref;
  receivedMs: number;
  /** Receive order: a receive sequence value, or a bulk line's place. */
  order: number;
  fingerprint: Uint8Array;
}

/** A fingerprint the new text copies: at least COPY_HITS of its samples are among the text's shingles. */
export interface CopyCandidate<Ref> {
  held: HeldFingerprint<Ref>;
  hits: number;
}

export class FingerprintTable<Ref> {
  private readonly held: HeldFingerprint<Ref>[] = [];
  /** Indexes into `held`, by sample key. */
  private readonly byKey = new Map<number, number[]>();
  /** Hits per held fingerprint while a text is looked up (zeroed again after), and the ones hit. */
  private hits = new Uint8Array(1024);
  private readonly touched: number[] = [];

  get size(): number {
    return this.held.length;
  }

  add(entry: HeldFingerprint<Ref>): void {
    const at = this.held.push(entry) - 1;
    if (at >= this.hits.length) {
      const grown = new Uint8Array(this.hits.length * 2);
      grown.set(this.hits);
      this.hits = grown;
    }
    // A fingerprint whose bins repeat a key (rare) is filed once under it: one text shingle is one hit.
    for (const key of new Set(fingerprintKeys(entry.fingerprint))) {
      const list = this.byKey.get(key);
      if (list) list.push(at);
      else this.byKey.set(key, [at]);
    }
  }

  /** The fingerprints held that `keep` keeps, in a new table. */
  filtered(keep: (entry: HeldFingerprint<Ref>) => boolean): FingerprintTable<Ref> {
    const table = new FingerprintTable<Ref>();
    for (const entry of this.held) if (keep(entry)) table.add(entry);
    return table;
  }

  /** The fingerprints the text copies among those `eligible` admits. */
  copied(text: TextShingles, eligible: (entry: HeldFingerprint<Ref>) => boolean): CopyCandidate<Ref>[] {
    const { hits, touched } = this;
    for (const key of text.keys) {
      const list = this.byKey.get(key);
      if (list === undefined) continue;
      for (const at of list) if (hits[at]!++ === 0) touched.push(at);
    }
    const found: CopyCandidate<Ref>[] = [];
    for (const at of touched) {
      if (hits[at]! >= COPY_HITS && eligible(this.held[at]!)) found.push({ held: this.held[at]!, hits: hits[at]! });
      hits[at] = 0;
    }
    touched.length = 0;
    return found;
  }
}

/** The candidate a new text is a copy of: the most samples found, then the earliest received. */
export function bestCandidate<Ref>(candidates: readonly CopyCandidate<Ref>[]): CopyCandidate<Ref> | null {
  let best: CopyCandidate<Ref> | null = null;
  for (const c of candidates) if (!best || c.hits > best.hits || (c.hits === best.hits && c.held.order < best.held.order)) best = c;
  return best;
}
