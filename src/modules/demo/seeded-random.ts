// A small seeded pseudo-random generator (sfc32, seeded through splitmix32): the demo corpus
// draws tens of millions of numbers, and a general-purpose faker call per draw would cost
// more than loading the articles it makes.

export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let state = seed >>> 0;
    const splitmix = () => {
      state = (state + 0x9e3779b9) | 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A number in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  }

  /** A whole number in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A number in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** A number in [min, max) whose logarithm is uniform: as many minutes as hours as days. */
  logBetween(min: number, max: number): number {
    return min * (max / min) ** this.next();
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An index into `cumulative` (ascending, ending at 1): index i with probability cumulative[i] - cumulative[i - 1]. */
  weighted(cumulative: ArrayLike<number>): number {
    const u = this.next();
    for (let i = 0; i < cumulative.length - 1; i++) if (u < cumulative[i]!) return i;
    return cumulative.length - 1;
  }
}

/** Cumulative shares of `weights`, ending at 1 (for SeededRandom.weighted). */
export function cumulativeShares(weights: readonly number[]): Float64Array {
  const total = weights.reduce((sum, w) => sum + w, 0);
  const cumulative = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    cumulative[i] = sum / total;
  });
  return cumulative;
}
