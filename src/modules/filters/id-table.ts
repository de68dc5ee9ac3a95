// UUIDs numbered densely, for the search index in memory (memory-index.ts). Each number keeps
// its id as 16 bytes, and an open-addressing table finds an id's number: about 24 bytes per
// id. A string and a Map entry each cost about 100, and a Map stops at 2^24 (16.7 M) entries,
// under what ten million events and their changes need.
//
// A number, once given, keeps its id for good. Adding an id again gives it a new number, and
// the id's slot then names the new one; the caller marks the old number dead. So nothing is
// ever removed from the table, and a rebuild (a new table) is how it shrinks.

const EMPTY = -1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The four 32-bit words of a UUID's 16 bytes, in order, or null if `id` is not a UUID. */
function wordsOf(id: string): [number, number, number, number] | null {
  if (!UUID.test(id)) return null;
  return [
    Number.parseInt(id.slice(0, 8), 16),
    Number.parseInt(id.slice(9, 13) + id.slice(14, 18), 16),
    Number.parseInt(id.slice(19, 23) + id.slice(24, 28), 16),
    Number.parseInt(id.slice(28, 36), 16),
  ];
}

const hex8 = (word: number) => word.toString(16).padStart(8, '0');

/** All four words mixed: UUIDv7 ids begin with their time, so no one word spreads them. */
function hashOf(w: readonly number[]): number {
  let h = Math.imul(w[0]! ^ w[3]!, 0x9e3779b1) ^ Math.imul(w[1]! ^ w[2]!, 0x85ebca77);
  h ^= h >>> 15;
  return Math.imul(h, 0xc2b2ae3d) ^ (h >>> 13);
}

/** An id table's parts, as memory-index-file.ts saves them. */
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
    const w = wordsOf(id);
    if (w === null) return -1;
    const n = this.slots[this.slotOf(w)]!;
    return n === EMPTY ? -1 : n;
  }

  /** A new number for `id` (a UUID), which its look-ups now find. */
  add(id: string): number {
    const w = wordsOf(id);
    if (w === null) throw new Error(`not a UUID: ${id}`);
    if (this.numbers * 4 === this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    const n = this.numbers++;
    this.words.set(w, 4 * n);
    const slot = this.slotOf(w);
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

  /** The slot holding the id, or the empty slot where it would go. */
  private slotOf(w: readonly number[]): number {
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
    const { words } = this;
    for (const n of old) {
      if (n === EMPTY) continue;
      const w = [words[4 * n]!, words[4 * n + 1]!, words[4 * n + 2]!, words[4 * n + 3]!];
      this.slots[this.slotOf(w)] = n;
    }
  }
}
