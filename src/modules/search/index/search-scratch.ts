// The memory a search of the search index (memory-index.ts) works in: the numbers a condition
// found, the positions of the role values that passed the tests so far, and per number the
// marks by which several conditions' numbers are intersected. Kept from one search to the
// next, so a search allocates nothing once they are large enough.
import { resized } from './typed-arrays.js';

/**
 * The scratch arrays' length kept between searches (32 MB each). At ten million events three
 * outlets' lists hold 2.2 million numbers past a 30-day window's start: with 2 million kept, a
 * search of them made its arrays anew each time, and those allocations (outside the heap, which
 * V8 counts towards its collections) brought full collections into searches. The search mix's
 * p99 fell from 50 to 69 ms to 21 ms with this size (bench/RESULTS.md, "fifteenth step").
 */
const SCRATCH_KEPT = 1 << 23;

export class SearchScratch {
  /** The numbers a condition found. */
  candidates = new Uint32Array(0);
  /** The positions in a role column whose values passed the tests so far. */
  private valuePositions = new Uint32Array(0);
  /** Per number: the query (generation) that last reached it, and how many of its conditions it passed. */
  reachedBy: Uint32Array;
  passed: Uint8Array;
  private generation = 0;

  /** Marks for `capacity` numbers. */
  constructor(capacity: number) {
    this.reachedBy = new Uint32Array(capacity);
    this.passed = new Uint8Array(capacity);
  }

  /** `candidates`, with room for `needed` numbers, the first `keep` of those it holds kept. */
  candidatesFor(needed: number, keep: number): Uint32Array {
    if (this.candidates.length < needed) {
      const grown = new Uint32Array(Math.max(needed, this.candidates.length * 2));
      grown.set(this.candidates.subarray(0, keep));
      this.candidates = grown;
    }
    return this.candidates;
  }

  /** The value positions, with room for `needed` (what they held is not kept). */
  positionsFor(needed: number): Uint32Array {
    if (this.valuePositions.length < needed) this.valuePositions = new Uint32Array(Math.max(needed, this.valuePositions.length * 2));
    return this.valuePositions;
  }

  /** A generation no number's mark holds yet, for a search to mark the numbers it reaches. */
  nextGeneration(): number {
    if (this.generation === 0xffffffff) {
      this.reachedBy.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }

  /** The per-number marks, `capacity` long (as the index's per-number arrays). */
  resize(capacity: number): void {
    this.reachedBy = resized(this.reachedBy, capacity);
    this.passed = resized(this.passed, capacity);
  }

  /**
   * Gives back scratch arrays that a search of many postings grew past SCRATCH_KEPT numbers
   * (an entity list of popular entities can name tens of millions at ten million events):
   * between searches a process holds no more than that.
   */
  release(): void {
    if (this.candidates.length > SCRATCH_KEPT) this.candidates = new Uint32Array(0);
    if (this.valuePositions.length > SCRATCH_KEPT) this.valuePositions = new Uint32Array(0);
  }
}
