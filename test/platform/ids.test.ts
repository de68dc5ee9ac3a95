// Ids are UUIDv7 from the injected clock, their random bits drawn from a pool (src/platform/ids.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../src/platform/clock.js';
import { idGenerator, isUuid } from '../../src/platform/ids.js';

describe('ids', () => {
  it('are valid UUIDv7, distinct, and sort in creation order across many refills of the random pool, the clock frozen', () => {
    const clock = manualClock(new Date('2026-11-26T12:00:00Z'));
    const newId = idGenerator(clock);
    const ids = Array.from({ length: 5_000 }, () => newId());
    assert.ok(ids.every(isUuid), 'every id is a valid UUID');
    assert.ok(
      ids.every((id) => id[14] === '7'),
      'version 7',
    );
    assert.equal(new Set(ids).size, ids.length, 'no id twice');
    assert.deepEqual([...ids].sort(), ids, 'creation order is sort order');
    // The random tails differ from id to id: the pool's bytes are not handed out twice.
    const tails = new Set(ids.map((id) => id.slice(-12)));
    assert.equal(tails.size, ids.length, 'no random tail twice');
  });

  it('carry the clock time', () => {
    const clock = manualClock(new Date('2026-11-26T12:00:00Z'));
    const id = idGenerator(clock)();
    assert.equal(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16), clock.nowMs());
  });
});
