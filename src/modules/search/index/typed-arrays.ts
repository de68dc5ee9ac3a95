// The typed arrays the search index in memory is made of (memory-index.ts and the files beside
// it), and the one way they grow or shrink.

export type Typed = Uint8Array | Uint32Array | Int32Array | Float64Array;

/** A typed array of `old`'s kind, `length` long, holding the start of `old`. */
export function resized<T extends Typed>(old: T, length: number): T {
  const made = new (old.constructor as new (n: number) => T)(length);
  made.set(old.length > length ? (old.subarray(0, length) as T) : old);
  return made;
}

/** The first index in [start, end) of ascending `values` holding `value` or more (`end` if none). */
export function lowerBound(values: Uint32Array | Float64Array, start: number, end: number, value: number): number {
  let low = start;
  let high = end;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
