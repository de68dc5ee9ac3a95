// A small deterministic generator (linear congruential), so a test drawing its inputs at random
// repeats them from a seed, and a failure repeats too.

/** Numbers in [0, 1) from `seed`. */
export function seededUnit(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Whole numbers in [0, n) from `seed`: the same draws as seededUnit, scaled. */
export function seededBelow(seed: number): (n: number) => number {
  const next = seededUnit(seed);
  return (n) => Math.floor(next() * n);
}
