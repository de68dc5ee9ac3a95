// Positional parameters for a statement written in pieces: each piece adds its values and
// writes the placeholders it was answered, so no piece counts `$n` by hand.

export class SqlParams {
  readonly values: unknown[];

  /** `first`: values whose placeholders ($1, $2, …) the statement writes itself. */
  constructor(first: readonly unknown[] = []) {
    this.values = [...first];
  }

  /** Adds a value and answers its placeholder, cast when given. */
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}
