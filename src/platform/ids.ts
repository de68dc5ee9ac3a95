// Identifiers are UUIDv7 stamped from the injected clock. The generator keeps its own
// monotonic (msecs, seq) state, as the uuid package does for Date.now(), so ids made while
// the test clock is frozen (or set back) still sort in creation order within a process.
import { randomInt } from 'node:crypto';
import { v7 as uuidv7, validate as uuidValidate } from 'uuid';
import type { Clock } from './clock.js';

export type IdGenerator = () => string;

export function idGenerator(clock: Clock): IdGenerator {
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
    return uuidv7({ msecs: lastMsecs, seq });
  };
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_SHAPE.test(value) && uuidValidate(value);
}
