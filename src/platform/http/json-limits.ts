// The shape a JSON body may have, checked on its text before it is parsed (docs/api-reference.md,
// "Errors"): no operation takes JSON nested deeper than MAX_JSON_DEPTH, an object of more than
// MAX_OBJECT_MEMBERS members, or more than MAX_JSON_VALUES values in all. What a body costs the
// server (parsing, validation, the errors it collects) grows with these numbers, not with its
// bytes, and nothing that walks a parsed body recurses deeper than MAX_JSON_DEPTH. The check
// itself is one pass over the text that stops at the first limit crossed.
import { type FieldError, ProblemError } from '../problems.js';

/** Levels of arrays and objects; the deepest body an operation takes nests about eight. */
export const MAX_JSON_DEPTH = 32;
/** Members of one object; the widest object an operation takes has about 30. */
export const MAX_OBJECT_MEMBERS = 1000;
/** Values in one document (each array item, member and the root); more than 1 MiB of ids can hold. */
export const MAX_JSON_VALUES = 30_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const refusal = (detail: string, fieldDetail: string) =>
  new ProblemError('validation-failed', detail, { errors: [{ pointer: '', detail: fieldDetail } satisfies FieldError] });

/**
 * The problem of a JSON text whose shape crosses a limit, or null. Text that is not JSON at all
 * passes here and is refused by the parser; only brackets and commas outside strings count.
 */
export function jsonShapeProblem(text: string): ProblemError | null {
  // Commas seen in each open container, so an object's members are counted as they come.
  const commas = new Int32Array(MAX_JSON_DEPTH + 1);
  const isObject = new Uint8Array(MAX_JSON_DEPTH + 1);
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === COMMA) {
      if (++values > MAX_JSON_VALUES) {
        return refusal(`The body holds more than ${MAX_JSON_VALUES.toLocaleString('en')} JSON values; no operation takes that many.`, 'holds too many values');
      }
      if (depth > 0 && isObject[depth] === 1 && ++commas[depth]! >= MAX_OBJECT_MEMBERS) {
        return refusal(
          `An object in the body has more than ${MAX_OBJECT_MEMBERS.toLocaleString('en')} members; no operation takes that many.`,
          'has an object with too many members',
        );
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) {
        return refusal(`The body nests JSON deeper than ${MAX_JSON_DEPTH} levels; no operation takes that.`, `nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
      commas[depth] = 0;
      isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
      // The container's first value; each comma after it adds one more.
      values++;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) depth--;
  }
  return null;
}
