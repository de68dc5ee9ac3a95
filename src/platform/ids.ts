// Identifiers are UUIDv7 stamped from the injected clock. The generator keeps its own
// monotonic (msecs, seq) state, as the uuid package does for Date.now(), so ids made while
// the test clock is frozen (or set back) still sort in creation order within a process.
import { randomFillSync, randomInt } from 'node:crypto';
import { v7 as uuidv7, validate as uuidValidate } from 'uuid';
import type { Clock } from './clock.js';

export type IdGenerator = () => string;

/**
 * 16 random bytes per id, from a pool filled 256 ids at a time: the uuid package asks the
 * system for 16 bytes per id, a cost a bulk load (one id per report and event) felt.
 */
function randomBytesPool(): () => Uint8Array {
  const pool = new Uint8Array(16 * 256);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    next += 16;
    return pool.subarray(next - 16, next);
  };
}

export function idGenerator(clock: Clock): IdGenerator {
  const random = randomBytesPool();
  let lastMsecs = -Infinity;
  let seq = 0;
  return () => {
    const now = clock.nowMs();
    if (now > lastMsecs) {
      lastMsecs = now;
      seq = randomInt(0, 2 ** 30); // leaves room to count up within one millisecond
    } else {
      seq = (seq + 1) | 0;
      if (seq === 0) lastMsecs += 1;
    }
    return uuidv7({ msecs: lastMsecs, seq, random: random() });
  };
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_SHAPE.test(value) && uuidValidate(value);
}
