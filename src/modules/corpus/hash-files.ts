// Numbers filed under 32-bit key hashes, for the fingerprint table (fingerprint-table.ts): the
// files are typed arrays, one run of entries per bucket of hashes (compressed sparse rows, a
// bucket per two to four entries), made anew by `file`; the entries linked since sit in linked
// lists by bucket meanwhile. A bucket holds other keys too: each number lies beside its key's
// hash (one cache line holds a bucket's entries), so a look-up meets a number only under its
// own key (or one whose hash is alike, which the table's caller checks anyway).

/** Buckets before the first files are made: 1,024. */
const FIRST_BUCKET_BITS = 10;

export class HashFiles {
  /** Buckets of hashes: a power of two, set when the files are made. */
  private bucketBits = FIRST_BUCKET_BITS;
  /** The filed entries, a number followed by its key's hash, bucket by bucket: bucket b's are at starts[b] to starts[b + 1] (entry n at 2n). */
  private starts = new Uint32Array((1 << FIRST_BUCKET_BITS) + 1);
  private filed = new Uint32Array(0);
  /** Entries linked since the files were made: bucket b's first link is heads[b] (-1: none); a link is a number, the next link and its key's hash. */
  private heads = new Int32Array(1 << FIRST_BUCKET_BITS).fill(-1);
  private links = new Int32Array(3 * 1024);
  private linkCount = 0;

  /** Files `number` under `hash` until the files are made again. */
  link(hash: number, number: number): void {
    if (3 * (this.linkCount + 1) > this.links.length) {
      const bigger = new Int32Array(this.links.length * 2);
      bigger.set(this.links);
      this.links = bigger;
    }
    const bucket = this.bucketOf(hash);
    const link = this.linkCount++;
    this.links[3 * link] = number;
    this.links[3 * link + 1] = this.heads[bucket]!;
    this.links[3 * link + 2] = hash;
    this.heads[bucket] = link;
  }

  /**
   * Makes the files anew from the first `count` entries, entry e being `numbers[e]` under
   * `hashes[e]` (or, when `numbers` is a stride, e / stride rounded down: a table filing every
   * number under as many hashes spares the array), in buckets sized for them; links are dropped.
   */
  file(hashes: Uint32Array, count: number, numbers: Uint32Array | number): void {
    this.bucketBits = Math.max(FIRST_BUCKET_BITS, Math.ceil(Math.log2(count / 4)));
    const buckets = 1 << this.bucketBits;
    const starts = new Uint32Array(buckets + 1);
    for (let e = 0; e < count; e++) starts[this.bucketOf(hashes[e]!) + 1]!++;
    for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
    const filed = new Uint32Array(2 * count);
    const next = starts.slice(0, buckets);
    for (let e = 0; e < count; e++) {
      const n = next[this.bucketOf(hashes[e]!)]!++;
      filed[2 * n] = typeof numbers === 'number' ? Math.floor(e / numbers) : numbers[e]!;
      filed[2 * n + 1] = hashes[e]!;
    }
    Object.assign(this, { starts, filed, linkCount: 0, heads: new Int32Array(buckets).fill(-1) });
  }

  /**
   * Marks the numbers filed under `hash` not marked yet in `met` (1), appending them to
   * `touched` from `count`; answers the new count.
   */
  meet(hash: number, met: Uint8Array, touched: Uint32Array, count: number): number {
    const { starts, filed, heads, links } = this;
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
    return count;
  }

  /** A hash's bucket: its high bits. */
  private bucketOf(hash: number): number {
    return hash >>> (32 - this.bucketBits);
  }
}
