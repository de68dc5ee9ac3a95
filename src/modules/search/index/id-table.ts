// UUIDs numbered densely, for the search index in memory (memory-index.ts). Each number keeps
// its id as 16 bytes, and an open-addressing table finds an id's number: about 24 bytes per
// id. A string and a Map entry each cost about 100, and a Map stops at 2^24 (16.7 M) entries,
// under what ten million events and their changes need.
//
// A number, once given, keeps its id for good. Adding an id again gives it a new number, and
// the id's slot then names the new one; the caller marks the old number dead. So nothing is
// ever removed from the table, and a rebuild (a new table) is how it shrinks.

import { resized } from './typed-arrays.js';

const EMPTY = -1;
/** Where each of a UUID's 32 hex digits is in its text (the dashes skipped). */
const DIGIT_AT = [...'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx'].flatMap((c, i) => (c === 'x' ? [i] : []));

/** A hex digit's value, or -1 (without a regular expression or a substring: the build calls this for every id it reads). */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1; // a-f, A-F
}

/** Reads a UUID's 16 bytes into `into` as four 32-bit words, in order; false if `id` is not a UUID. */
function readWords(id: string, into: Uint32Array): boolean {
  if (id.length !== 36 || id[8] !== '-' || id[13] !== '-' || id[18] !== '-' || id[23] !== '-') return false;
  for (let word = 0; word < 4; word++) {
    let value = 0;
    for (let digit = 0; digit < 8; digit++) {
      const v = hexValue(id.charCodeAt(DIGIT_AT[word * 8 + digit]!));
      if (v < 0) return false;
      value = value * 16 + v;
    }
    into[word] = value;
  }
  return true;
}

const hex8 = (word: number) => word.toString(16).padStart(8, '0');

/** All four words mixed: UUIDv7 ids begin with their time, so no one word spreads them. */
function hashOf(w: Uint32Array): number {
  let h = Math.imul(w[0]! ^ w[3]!, 0x9e3779b1) ^ Math.imul(w[1]! ^ w[2]!, 0x85ebca77);
  h ^= h >>> 15;
  return Math.imul(h, 0xc2b2ae3d) ^ (h >>> 13);
}

export interface IdTableParts {
  words: Uint32Array;
  slots: Int32Array;
  numbers: number;
  distinct: number;
}

export class IdTable {
  private words = new Uint32Array(4 * 1024);
  /** The latest number of the id hashed there, or EMPTY. At most half full. */
  private slots = new Int32Array(2048).fill(EMPTY);
  private numbers = 0;
  private distinct = 0;
  /** The words of the id being looked up. */
  private readonly scratch = new Uint32Array(4);

  static fromParts(parts: IdTableParts): IdTable {
    const table = new IdTable();
    Object.assign(table, parts);
    return table;
  }

  parts(): IdTableParts {
    return { words: this.words, slots: this.slots, numbers: this.numbers, distinct: this.distinct };
  }

  /** Numbers given so far (the next one is this). */
  get count(): number {
    return this.numbers;
  }

  /** The id's latest number, or -1 when it has none (or is not a UUID). */
  find(id: string): number {
    if (!readWords(id, this.scratch)) return -1;
    const n = this.slots[this.slotOf(this.scratch)]!;
    return n === EMPTY ? -1 : n;
  }

  /** A new number for `id` (a UUID), which its look-ups now find. */
  add(id: string): number {
    if (!readWords(id, this.scratch)) throw new Error(`not a UUID: ${id}`);
    return this.put(this.slotOf(this.scratch));
  }

  /** The id's number, given on first sight (a code: the same id keeps it). */
  code(id: string): number {
    if (!readWords(id, this.scratch)) throw new Error(`not a UUID: ${id}`);
    const slot = this.slotOf(this.scratch);
    const n = this.slots[slot]!;
    return n === EMPTY ? this.put(slot) : n;
  }

  /** Gives back the room kept for more ids (the slots stay: they must stay at most half full). */
  trim(): void {
    if (this.words.length > this.numbers * 4) this.words = resized(this.words, this.numbers * 4);
  }

  /** Gives the id in `scratch` the next number, at its slot. */
  private put(slot: number): number {
    if (this.numbers * 4 === this.words.length) this.words = resized(this.words, Math.max(64, this.words.length * 2));
    const n = this.numbers++;
    this.words.set(this.scratch, 4 * n);
    if (this.slots[slot] === EMPTY) this.distinct++;
    this.slots[slot] = n;
    if (this.distinct * 2 > this.slots.length) this.rehash();
    return n;
  }

  /** The id of number `n`, in the canonical form (lower case). */
  id(n: number): string {
    const { words } = this;
    const a = hex8(words[4 * n]!);
    const b = hex8(words[4 * n + 1]!);
    const c = hex8(words[4 * n + 2]!);
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex8(words[4 * n + 3]!)}`;
  }

  /** Whether number a's id sorts after number b's (byte order: PostgreSQL's order of uuid values). */
  after(a: number, b: number): boolean {
    const { words } = this;
    for (let i = 0; i < 4; i++) {
      const x = words[4 * a + i]!;
      const y = words[4 * b + i]!;
      if (x !== y) return x > y;
    }
    return false;
  }

  /** The slot holding the id whose words are `w`, or the empty slot where it would go. */
  private slotOf(w: Uint32Array): number {
    const { slots, words } = this;
    const mask = slots.length - 1;
    for (let slot = hashOf(w) & mask; ; slot = (slot + 1) & mask) {
      const n = slots[slot]!;
      if (n === EMPTY) return slot;
      const at = 4 * n;
      if (words[at] === w[0] && words[at + 1] === w[1] && words[at + 2] === w[2] && words[at + 3] === w[3]) return slot;
    }
  }

  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(EMPTY);
    for (const n of old) {
      if (n !== EMPTY) this.slots[this.slotOf(this.words.subarray(4 * n, 4 * n + 4))] = n;
    }
  }
}
