// The shape check of JSON bodies (src/platform/http/json-limits.ts) against the parsed value:
// for any JSON text, it refuses for depth exactly when the value nests deeper than 32 levels,
// and for members exactly when an object has more than 1,000; strings (escaped quotes and
// brackets inside them included) never count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_OBJECT_MEMBERS } from '../../src/platform/http/json-limits.js';

/** How deep a value nests (a scalar at the top is 0) and the most members any of its objects has. */
function shapeOf(value: unknown): { depth: number; members: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 };
  const children = Object.values(value).map(shapeOf);
  return {
    depth: 1 + Math.max(0, ...children.map((c) => c.depth)),
    members: Math.max(Array.isArray(value) ? 0 : children.length, ...children.map((c) => c.members)),
  };
}

const problemOf = (value: unknown) => jsonShapeProblem(Buffer.from(JSON.stringify(value)))?.detail ?? null;

describe('JSON shape limits', () => {
  it('when any JSON value is checked, then depth is refused exactly past 32 levels, whatever its strings hold', () => {
    const tricky = fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', '\\"', '"[', 'é', '\u2028');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.string({ unit: tricky }),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string({ unit: tricky, maxLength: 4 }), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    const deep = fc
      .integer({ min: 1, max: 60 })
      .chain((levels) => value.map((inner) => Array.from({ length: levels }).reduce<unknown>((v, _, i) => (i % 2 ? { k: v } : [v]), inner)));
    fc.assert(
      fc.property(fc.oneof(value, deep), (v) => {
        const tooDeep = shapeOf(v).depth > MAX_JSON_DEPTH;
        const detail = problemOf(v);
        assert.equal(detail !== null && /deeper than 32 levels/.test(detail), tooDeep, JSON.stringify(v).slice(0, 200));
      }),
      { numRuns: 2000, seed: 43 },
    );
  });

  it('when an object has 1,000 members it is read, and 1,001 are refused, at any depth', () => {
    const members = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m,${i}`, [i]]));
    assert.equal(problemOf(members(MAX_OBJECT_MEMBERS)), null);
    assert.match(problemOf({ a: [members(MAX_OBJECT_MEMBERS + 1)] }) ?? '', /more than 1,000 members/);
    // An array of as many items is not an object: only the value count bounds it.
    assert.equal(problemOf(Array.from({ length: 5000 }, (_, i) => i)), null);
    assert.match(problemOf(Array.from({ length: 30_001 }, (_, i) => i)) ?? '', /more than 30,000 JSON values/);
    // Values are the body and each item or member's value: an empty array or object is one.
    assert.equal(problemOf(Array.from({ length: 29_999 }, () => [])), null);
    assert.equal(problemOf(Array.from({ length: 29_999 }, () => ({}))), null);
    assert.match(problemOf(Array.from({ length: 30_000 }, () => [])) ?? '', /more than 30,000 JSON values/);
    // {a: [[1], …]}: the body, a's array, and each [1] with its 1: 2 + 2 × n.
    assert.equal(problemOf({ a: Array.from({ length: 14_999 }, () => [1]) }), null);
    assert.match(problemOf({ a: Array.from({ length: 15_000 }, () => [1]) }) ?? '', /more than 30,000 JSON values/);
  });

  it('when a string never closes, or is all backslashes, then the check ends and passes it to the parser', () => {
    for (const text of ['"abc', `"${'\\'.repeat(100_001)}"`, `["${'\\"'.repeat(50_000)}"]`, '', 'nul']) {
      assert.equal(jsonShapeProblem(Buffer.from(text)), null, text.slice(0, 20));
    }
  });
});
