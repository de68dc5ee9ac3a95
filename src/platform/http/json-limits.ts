// The shape a JSON body may have, checked on its text before it is parsed (docs/api-reference.md,
// "Errors"): no operation takes JSON nested deeper than MAX_JSON_DEPTH, an object of more than
// MAX_OBJECT_MEMBERS members, or more than MAX_JSON_VALUES values in all. What a body costs the
// server (parsing, validation, the errors it collects) grows with these numbers, not with its
// bytes, and nothing that walks a parsed body recurses deeper than MAX_JSON_DEPTH. The check
// itself is one pass over the bytes, before they are decoded to text, that stops at the first
// limit crossed (the bytes it looks for are ASCII, never part of a multi-byte UTF-8 character).
import { type FieldError, ProblemError } from '../problems.js';

/** Levels of arrays and objects; the deepest body an operation takes nests about eight. */
export const MAX_JSON_DEPTH = 32;
/** Members of one object; the widest object an operation takes has about 30. */
export const MAX_OBJECT_MEMBERS = 1000;
/** Values in one document: the root, each array item and each member's value; more than 1 MiB of ids can hold. */
export const MAX_JSON_VALUES = 30_000;

// What each byte is to the shape: most bytes are nothing (0), and are passed at one look-up.
const QUOTE_BYTE = 0x22;
const BACKSLASH_BYTE = 0x5c;
const QUOTE = 1;
const COMMA = 2;
const OPEN_OBJECT = 3;
const OPEN_ARRAY = 4;
const CLOSE = 5;
const KIND = new Uint8Array(256);
KIND[QUOTE_BYTE] = QUOTE;
KIND[0x2c] = COMMA;
KIND[0x7b] = OPEN_OBJECT;
KIND[0x5b] = OPEN_ARRAY;
KIND[0x7d] = CLOSE;
KIND[0x5d] = CLOSE;

/** The index of the quote that closes the string opened at `open` (the last byte when none does), found by the runtime's byte search. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE_BYTE, at + 1);
    if (at === -1) return bytes.length;
    // Escaped when an odd number of backslashes stands before it.
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH_BYTE) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

const refusal = (detail: string, fieldDetail: string) =>
  new ProblemError('validation-failed', detail, { errors: [{ pointer: '', detail: fieldDetail } satisfies FieldError] });

/**
 * The problem of a JSON document (UTF-8 bytes) whose shape crosses a limit, or null. Bytes that
 * are not JSON at all pass here and are refused by the parser; only brackets and commas outside
 * strings count.
 */
export function jsonShapeProblem(bytes: Uint8Array): ProblemError | null {
  // Commas seen in each open container, so an object's members are counted as they come.
  const commas = new Int32Array(MAX_JSON_DEPTH + 1);
  const isObject = new Uint8Array(MAX_JSON_DEPTH + 1);
  let depth = 0;
  let values = 1;
  for (let i = 0; i < bytes.length; i++) {
    const kind = KIND[bytes[i]!]!;
    if (kind === 0) continue;
    if (kind === QUOTE) i = stringEnd(bytes, i);
    else if (kind === COMMA) {
      if (++values > MAX_JSON_VALUES) return tooManyValues();
      if (depth > 0 && isObject[depth] === 1 && ++commas[depth]! >= MAX_OBJECT_MEMBERS) {
        return refusal(
          `An object in the body has more than ${MAX_OBJECT_MEMBERS.toLocaleString('en')} members; no operation takes that many.`,
          'has an object with too many members',
        );
      }
    } else if (kind === OPEN_OBJECT || kind === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) {
        return refusal(`The body nests JSON deeper than ${MAX_JSON_DEPTH} levels; no operation takes that.`, `nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
      commas[depth] = 0;
      isObject[depth] = kind === OPEN_OBJECT ? 1 : 0;
      // The container's first value, taken back at its close if it had none; each comma adds one more.
      values++;
    } else if (kind === CLOSE && depth > 0) {
      depth--;
      if (opensBefore(bytes, i)) values--;
      else if (values > MAX_JSON_VALUES) return tooManyValues();
    }
  }
  return null;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Whether the byte before `at`, past whitespace, opens a container: the one `at` closes is empty. */
function opensBefore(bytes: Uint8Array, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && WHITESPACE.has(bytes[i]!)) i--;
  return i >= 0 && (KIND[bytes[i]!] === OPEN_OBJECT || KIND[bytes[i]!] === OPEN_ARRAY);
}

const tooManyValues = () =>
  refusal(`The body holds more than ${MAX_JSON_VALUES.toLocaleString('en')} JSON values; no operation takes that many.`, 'holds too many values');
