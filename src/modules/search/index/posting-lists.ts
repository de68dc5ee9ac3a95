// Posting lists (event numbers by key) for the search index in memory (memory-index.ts), in
// blocks carved from shared typed arrays. Most keys (entities, outlets) have a few events: a
// JavaScript array of one number costs about 200 bytes and a Map entry more, where here a
// short list costs its numbers, a two-word block header and four words of bookkeeping.
//
// A list's blocks double in size as it grows, up to BLOCK_MAX numbers, so a list wastes at
// most half its space or one block. Blocks live in chunks of CHUNK numbers that are never
// copied: an address is chunk * CHUNK + offset, and 0 is "no block".

import { lowerBound, resized } from './typed-arrays.js';

const CHUNK_BITS = 20;
const CHUNK = 1 << CHUNK_BITS; // 4 MB of numbers per chunk
const OFFSET_MASK = CHUNK - 1;
const BLOCK_MIN = 2;
const BLOCK_MAX = 4096;
const HEADER = 2; // [address of the next block, capacity]

/** The lists' parts, as memory-index-file.ts saves them. */
export interface PostingListsParts {
  chunks: Uint32Array[];
  top: number;
  heads: Uint32Array;
  tails: Uint32Array;
  tailFill: Uint32Array;
  lengths: Uint32Array;
}

export class PostingLists {
  // The first chunk starts small and doubles (a copy) up to CHUNK: most indexes a test makes are tiny.
  private chunks: Uint32Array[] = [new Uint32Array(4096)];
  private top = HEADER; // the first free address; address 0 is never a block
  /** Per key code: its first block, its last block, how full the last one is, and its length. */
  private heads = new Uint32Array(1024);
  private tails = new Uint32Array(1024);
  private tailFill = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);

  static fromParts(parts: PostingListsParts): PostingLists {
    const lists = new PostingLists();
    Object.assign(lists, parts);
    return lists;
  }

  parts(): PostingListsParts {
    const { chunks, top, heads, tails, tailFill, lengths } = this;
    return { chunks, top, heads, tails, tailFill, lengths };
  }

  /**
   * The same lists, each in blocks of BLOCK_MAX numbers and a last one of just the rest: no
   * room kept for growth (a list pushed to again grows by new blocks, as before).
   */
  packed(): PostingLists {
    const packed = new PostingLists();
    packed.growKeys(this.heads.length - 1);
    for (let key = 0; key < this.heads.length; key++) {
      const length = this.lengths[key]!;
      if (length === 0) continue;
      const numbers = new Uint32Array(length);
      this.copyInto(key, 0, numbers, 0);
      for (let from = 0; from < length; from += BLOCK_MAX) packed.appendBlock(key, numbers.subarray(from, Math.min(length, from + BLOCK_MAX)));
    }
    return packed;
  }

  length(key: number): number {
    return key < this.lengths.length ? this.lengths[key]! : 0;
  }

  push(key: number, n: number): void {
    if (key >= this.heads.length) this.growKeys(key);
    let tail = this.tails[key]!;
    if (tail === 0 || this.tailFill[key] === this.chunks[tail >>> CHUNK_BITS]![(tail & OFFSET_MASK) + 1]) {
      const block = this.allocate(Math.min(BLOCK_MAX, Math.max(BLOCK_MIN, this.lengths[key]!)));
      if (tail === 0) this.heads[key] = block;
      else this.chunks[tail >>> CHUNK_BITS]![tail & OFFSET_MASK] = block;
      this.tails[key] = tail = block;
      this.tailFill[key] = 0;
    }
    const fill = this.tailFill[key]!;
    this.chunks[tail >>> CHUNK_BITS]![(tail & OFFSET_MASK) + HEADER + fill] = n;
    this.tailFill[key] = fill + 1;
    this.lengths[key]!++;
  }

  /**
   * Copies the numbers of the key's list at or above `from` into `into` from `at`, in the
   * order pushed (`into` has room for its whole length); answers where they end.
   */
  copyInto(key: number, from: number, into: Uint32Array, at: number): number {
    let end = at;
    this.eachRun(key, from, (chunk, start, stop) => {
      into.set(chunk.subarray(start, stop), end);
      end += stop - start;
    });
    return end;
  }

  /**
   * Calls `run` with each block's numbers at or above `from` (`chunk` from `start` to `stop`),
   * in the order pushed: numbers are pushed in ascending order, so the blocks before `from` are skipped.
   */
  private eachRun(key: number, from: number, run: (chunk: Uint32Array, start: number, stop: number) => void): void {
    if (key >= this.heads.length) return;
    const tail = this.tails[key]!;
    for (let block = this.heads[key]!; block !== 0; ) {
      const chunk = this.chunks[block >>> CHUNK_BITS]!;
      const at = (block & OFFSET_MASK) + HEADER;
      const end = at + (block === tail ? this.tailFill[key]! : chunk[at - 1]!);
      if (end > at && chunk[end - 1]! >= from) run(chunk, lowerBound(chunk, at, end, from), end);
      block = chunk[at - HEADER]!;
    }
  }

  /** Appends `numbers` to the key's list as one full block of their size. */
  private appendBlock(key: number, numbers: Uint32Array): void {
    const block = this.allocate(numbers.length);
    const tail = this.tails[key]!;
    if (tail === 0) this.heads[key] = block;
    else this.chunks[tail >>> CHUNK_BITS]![tail & OFFSET_MASK] = block;
    this.chunks[block >>> CHUNK_BITS]!.set(numbers, (block & OFFSET_MASK) + HEADER);
    this.tails[key] = block;
    this.tailFill[key] = numbers.length;
    this.lengths[key]! += numbers.length;
  }

  private allocate(capacity: number): number {
    const size = HEADER + capacity;
    const last = this.chunks.length - 1;
    const offset = this.top - last * CHUNK;
    if (offset + size > this.chunks[last]!.length) {
      if (last === 0 && this.chunks[0]!.length < CHUNK) {
        let length = this.chunks[0]!.length * 2;
        while (length < CHUNK && offset + size > length) length *= 2;
        this.chunks[0] = resized(this.chunks[0]!, length);
        if (offset + size > length) return this.allocate(capacity); // CHUNK reached: a new chunk
      } else {
        // Addresses are 32 bits: 4,096 chunks (16 GB of numbers) is all one set of lists can address.
        if (this.chunks.length === 2 ** (32 - CHUNK_BITS)) throw new Error('posting lists are full (2^32 numbers)');
        this.chunks.push(new Uint32Array(CHUNK));
        this.top = (last + 1) * CHUNK;
      }
    }
    const block = this.top;
    const chunk = this.chunks[block >>> CHUNK_BITS]!;
    chunk[block & OFFSET_MASK] = 0;
    chunk[(block & OFFSET_MASK) + 1] = capacity;
    this.top += size;
    return block;
  }

  private growKeys(key: number): void {
    let size = this.heads.length;
    while (size <= key) size *= 2;
    this.heads = resized(this.heads, size);
    this.tails = resized(this.tails, size);
    this.tailFill = resized(this.tailFill, size);
    this.lengths = resized(this.lengths, size);
  }
}
