// Generated request bodies: small descriptions (BodySpec) that fast-check generates and shrinks,
// built into bytes only when sent, so that a failure reports "an array of 501 × {} at /scopes"
// rather than the megabytes sent. Most start from a plausible body of the operation and break one
// place in it, so that the break is judged past the checks a wrong shape alone would stop at.
import fc from 'fast-check';
import { hostileValue, memberNames, toJson } from './fuzz-inputs.js';
import type { Operation, Segment } from './openapi-operations.js';

type Shape = 'array' | 'object' | 'mixed';

/** Sets `value` at `path` in a copy of `root`, making the objects and arrays on the way. */
function setIn(root: unknown, path: Segment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (typeof head === 'number') {
    const copy = Array.isArray(root) ? [...root] : [];
    copy[head] = setIn(copy[head], rest, value);
    return copy;
  }
  const copy: Record<string, unknown> = root !== null && typeof root === 'object' && !Array.isArray(root) ? { ...(root as object) } : {};
  return withMember(copy, head, setIn(copy[head], rest, value));
}

/** `object` with an own member `name`, `__proto__` included (an assignment would set the prototype). */
function withMember(object: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  return Object.defineProperty(object, name, { value, enumerable: true, configurable: true, writable: true });
}

const pointer = (path: Segment[]) =>
  path.length === 0 ? '(root)' : `/${path.map((segment) => (String(segment).length > 40 ? short(String(segment)) : segment)).join('/')}`;

/** A name as a failure message shows it: JSON-quoted, long ones cut. */
function short(name: string): string {
  return name.length > 40 ? `${JSON.stringify(name.slice(0, 20))}… (${name.length} chars)` : JSON.stringify(name);
}

/** A generated body, as fast-check shrinks and reports it; bodyOf builds its bytes. */
export type BodySpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'fields'; members: [string, unknown][] }
  | { kind: 'mutated'; at: number; value: unknown }
  | { kind: 'oversized-array'; at: number; length: number; item: unknown }
  | { kind: 'deep'; at: number; depth: number; shape: Shape }
  | { kind: 'bytes'; at: number; bytes: readonly number[] }
  | { kind: 'text'; text: string }
  | { kind: 'ndjson'; lines: unknown[]; blank: number; deep?: { depth: number; shape: Shape } };

const uuidOrString = fc.oneof(fc.uuid(), fc.constantFrom('x', '', 0, null, '00000000-0000-4000-8000-00000000000G'));

/** Bodies for the operation: arbitrary JSON, its members with hostile values, oversized arrays, deep nesting, bad bytes, NDJSON. */
export function bodySpec(operation: Operation): fc.Arbitrary<BodySpec> {
  const names = operation.fieldNames.length > 0 ? operation.fieldNames : ['name'];
  const at = fc.nat({ max: 1000 });
  const depth = fc.oneof(fc.constantFrom(33, 64, 1_000, 3_000, 5_000), fc.integer({ min: 10, max: 5_000 }));
  const shapes = fc.constantFrom('array' as const, 'object' as const, 'mixed' as const);
  const choices: fc.WeightedArbitrary<BodySpec>[] = [
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): BodySpec => ({ kind: 'json', value })) },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, memberNames), hostileValue), { maxLength: 30 })
        .map((members) => ({ kind: 'fields', members })),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutated' as const), at, value: hostileValue }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('oversized-array' as const),
        at,
        length: fc.oneof(fc.constantFrom(501, 2_000, 10_001, 30_000, 100_000), fc.integer({ min: 51, max: 60_000 })),
        item: fc.oneof(uuidOrString, fc.constant({})),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('deep' as const),
        at,
        depth,
        shape: shapes,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('bytes' as const),
        at,
        // Invalid UTF-8: a lone continuation byte, an encoded surrogate, an overlong NUL, 0xff.
        bytes: fc.constantFrom([0x80], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xff, 0xfe], [0xf4, 0x90, 0x80, 0x80], [0x00]),
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.string({ maxLength: 40 }),
          fc.constantFrom('', '{', '[', '"', '{"a":1}{"a":2}', 'null', '\ufeff{}', '{"a":1,}', "{'a':1}", 'NaN', '1e400', '[1,2'),
        )
        .map((text) => ({ kind: 'text', text })),
    },
  ];
  if (operation.ndjson) {
    choices.push({
      weight: 6,
      arbitrary: fc
        .record({
          lines: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileValue), { maxLength: 8 }),
          blank: fc.nat({ max: 3 }),
          deep: fc.option(fc.record({ depth: depth, shape: shapes }), { nil: undefined }),
        })
        .map(({ lines, blank, deep }) => ({ kind: 'ndjson', lines, blank, deep })),
    });
  }
  return fc.oneof(...choices);
}

function deepText(depth: number, shape: Shape): string {
  if (shape === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const open = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? '[' : '{"a":')).join('');
  const close = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? ']' : '}'))
    .reverse()
    .join('');
  return `${open}1${close}`;
}

const MARK = '\u0001FUZZ\u0001';

/** A body with a marker string at `path`, its JSON cut at the marker (so raw text can go there); ['', ''] at the root. */
function aroundMarker(sample: unknown, path: Segment[]): [string, string] {
  const text = toJson(setIn(sample, path, MARK));
  const at = text.indexOf(JSON.stringify(MARK));
  return [text.slice(0, at), text.slice(at + JSON.stringify(MARK).length)];
}

/** The bytes of a generated body, and a short account of it for failure messages; `base` is a plausible body of the operation. */
export function bodyOf(operation: Operation, spec: BodySpec, base: unknown): { body: string | Buffer; what: string } {
  const paths = operation.fieldPaths.length > 0 ? operation.fieldPaths : [['name']];
  const pick = (list: Segment[][], at: number) => list[at % list.length]!;
  switch (spec.kind) {
    case 'json':
      return { body: toJson(spec.value), what: 'arbitrary JSON' };
    case 'fields': {
      const object: Record<string, unknown> = {};
      for (const [name, value] of spec.members) withMember(object, name, value);
      return { body: toJson(object), what: `members ${spec.members.map(([name]) => short(name)).join(', ')}` };
    }
    case 'mutated': {
      const path = pick(paths, spec.at);
      return { body: toJson(setIn(base, path, spec.value)), what: `a plausible body, ${pointer(path)} set` };
    }
    case 'oversized-array': {
      const path = operation.arrayPaths.length > 0 && spec.at % 4 !== 0 ? pick(operation.arrayPaths, spec.at) : [];
      const [before, rest] = aroundMarker(base, path);
      const item = toJson(spec.item);
      return { body: `${before}[${Array(spec.length).fill(item).join(',')}]${rest}`, what: `an array of ${spec.length} × ${item} at ${pointer(path)}` };
    }
    case 'deep': {
      const path = spec.at % 3 === 0 ? [] : pick(paths, spec.at);
      const [before, rest] = aroundMarker(base, path);
      return { body: `${before}${deepText(spec.depth, spec.shape)}${rest}`, what: `${spec.shape} nesting ${spec.depth} deep at ${pointer(path)}` };
    }
    case 'bytes': {
      const path = pick(paths, spec.at);
      const [before, rest] = aroundMarker(base, path);
      const bytes = Buffer.concat([Buffer.from(`${before}"a`), Buffer.from(spec.bytes), Buffer.from(`b"${rest}`)]);
      return { body: bytes, what: `bytes ${Buffer.from(spec.bytes).toString('hex')} in a string at ${pointer(path)}` };
    }
    case 'text':
      return { body: spec.text, what: 'text' };
    case 'ndjson': {
      const lines = [toJson(base), ...spec.lines.map(toJson), ...Array(spec.blank).fill('')];
      if (spec.deep) lines.push(deepText(spec.deep.depth, spec.deep.shape));
      const deep = spec.deep ? `, the last ${spec.deep.shape} nesting ${spec.deep.depth} deep` : '';
      return { body: lines.join('\n'), what: `${lines.length} NDJSON lines${deep}` };
    }
  }
}
