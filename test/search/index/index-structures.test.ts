// The search index's two compact structures, against the plain JavaScript they replace: the
// id table (UUIDs numbered densely) against a Map and sorted strings, the posting lists
// (blocks in shared chunks) against arrays, across block sizes and chunk boundaries. Their
// use in the index is held to the SQL face in filter-faces.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { IdTable } from '../../../src/modules/search/index/id-table.js';
import { PostingLists } from '../../../src/modules/search/index/posting-lists.js';
import { seededUnit } from '../../helpers/seeded-random.js';

describe('id table', () => {
  it('when 50,000 ids (v4 and v7) are added, then each finds its number, reads back in lower case and sorts as the strings do', () => {
    const table = new IdTable();
    const ids: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const id = i % 2 === 0 ? randomUUID() : uuidv7();
      ids.push(id);
      assert.equal(table.add(i % 3 === 0 ? id.toUpperCase() : id), i);
    }
    assert.equal(table.count, 50_000);
    for (const [n, id] of ids.entries()) {
      assert.equal(table.find(id), n);
      assert.equal(table.find(id.toUpperCase()), n);
      assert.equal(table.id(n), id);
    }
    const random = seededUnit(7);
    for (let i = 0; i < 20_000; i++) {
      const a = Math.floor(random() * ids.length);
      const b = Math.floor(random() * ids.length);
      assert.equal(table.after(a, b), ids[a]! > ids[b]!, `${ids[a]} after ${ids[b]}`);
    }
    assert.equal(table.after(5, 5), false);
  });

  it('when an id is added again, then it finds its newest number and the old number keeps its id', () => {
    const table = new IdTable();
    const id = randomUUID();
    table.add(randomUUID());
    assert.equal(table.add(id), 1);
    assert.equal(table.add(id), 2);
    assert.equal(table.find(id), 2);
    assert.equal(table.id(1), id);
  });

  it('when a table is trimmed, then it finds what it held and takes new ids as before', () => {
    const table = new IdTable();
    const ids = Array.from({ length: 3_000 }, () => uuidv7());
    for (const id of ids) table.add(id);
    table.trim();
    const more = Array.from({ length: 3_000 }, () => uuidv7());
    for (const id of more) table.add(id);
    for (const [n, id] of [...ids, ...more].entries()) {
      assert.equal(table.find(id), n);
      assert.equal(table.id(n), id);
    }
    const empty = new IdTable();
    empty.trim();
    assert.equal(empty.code(ids[0]!), 0);
  });

  it('when an id is coded twice, in either case, then it keeps its first number', () => {
    const table = new IdTable();
    const ids = Array.from({ length: 5_000 }, () => uuidv7());
    for (const [n, id] of ids.entries()) assert.equal(table.code(id), n);
    for (const [n, id] of ids.entries()) assert.equal(table.code(id.toUpperCase()), n);
    assert.equal(table.count, ids.length);
  });

  it('when an id is unknown or not a UUID, then find answers -1 and add refuses it', () => {
    const table = new IdTable();
    table.add(randomUUID());
    assert.equal(table.find(randomUUID()), -1);
    assert.equal(table.find('not-a-uuid'), -1);
    assert.equal(table.find(''), -1);
    assert.equal(table.find('12345678-1234-1234-1234-1234567890123'), -1);
    assert.equal(table.find('12345678x1234-1234-1234-123456789012'), -1);
    assert.throws(() => table.add('12345678-1234-1234-1234-12345678901g'), /not a UUID/);
  });
});

/** The numbers of the key's list at or above `from`, as the index reads them (copyInto). */
function numbersOf(lists: PostingLists, key: number, from = 0): number[] {
  const into = new Uint32Array(lists.length(key));
  return [...into.subarray(0, lists.copyInto(key, from, into, 0))];
}

describe('posting lists', () => {
  it('when 20,000 keys get numbers in random order, a few of them hundreds of thousands, then each lists its own in the order pushed', () => {
    const lists = new PostingLists();
    const expected = new Map<number, number[]>();
    const random = seededUnit(11);
    // Three keys grow past several chunks of 2^20 numbers; the rest stay short, most of one.
    for (let i = 0; i < 1_600_000; i++) {
      const r = random();
      const key = r < 0.7 ? Math.floor(r * 3) : 3 + Math.floor(random() * 20_000);
      const n = Math.floor(random() * 2 ** 32);
      lists.push(key, n);
      const list = expected.get(key) ?? [];
      list.push(n);
      expected.set(key, list);
    }
    assert.ok(expected.get(0)!.length > 300_000);
    const holdsExpected = (held: PostingLists) => {
      for (const [key, numbers] of expected) {
        assert.equal(held.length(key), numbers.length);
        assert.deepEqual(numbersOf(held, key), numbers, `key ${key}`);
      }
    };
    holdsExpected(lists);
    // Packed, they hold the same; pushed to again, they grow as before.
    const packed = lists.packed();
    holdsExpected(packed);
    for (let i = 0; i < 50_000; i++) {
      const key = i % 7 === 0 ? 0 : 3 + (i % 25_000);
      packed.push(key, i);
      const list = expected.get(key) ?? [];
      list.push(i);
      expected.set(key, list);
    }
    holdsExpected(packed);
  });

  it('when numbers are pushed in ascending order, then a copy from a number starts at the first at or above it, in every block', () => {
    const lists = new PostingLists();
    const expected = new Map<number, number[]>();
    const random = seededUnit(5);
    // Ascending, with repeats (an event naming a key twice), over blocks of every size.
    for (let n = 0; n < 200_000; n += Math.floor(random() * 3)) {
      const key = random() < 0.5 ? 0 : 1 + Math.floor(random() * 300);
      lists.push(key, n);
      if (!expected.has(key)) expected.set(key, []);
      expected.get(key)!.push(n);
    }
    const packed = lists.packed();
    for (const held of [lists, packed]) {
      for (const [key, numbers] of expected) {
        for (const from of [0, numbers[0]!, numbers[0]! + 1, Math.floor(random() * 200_000), numbers.at(-1)!, numbers.at(-1)! + 1]) {
          assert.deepEqual(
            numbersOf(held, key, from),
            numbers.filter((n) => n >= from),
            `key ${key} from ${from}`,
          );
        }
      }
    }
  });

  it('when a key has no list, then it copies nothing and has length 0', () => {
    const lists = new PostingLists();
    lists.push(3, 7);
    for (const key of [0, 2, 4, 1_000_000]) {
      assert.deepEqual(numbersOf(lists, key), []);
      assert.equal(lists.length(key), 0);
    }
  });
});
