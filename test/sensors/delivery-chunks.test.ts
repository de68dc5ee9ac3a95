// How a change's matches are cut into statements (src/modules/sensors/sensor-matching.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliveryChunks } from '../../src/modules/sensors/sensor-matching.js';

const match = (eventId: string, n: number) => ({ eventId, sensorIds: Array.from({ length: n }, (_, i) => `s${String(n - i).padStart(3, '0')}`) });
const sizes = (chunks: { sensorIds: readonly string[] }[][]) => chunks.map((chunk) => chunk.reduce((sum, event) => sum + event.sensorIds.length, 0));

describe('delivery chunks', () => {
  it('hold at most the limit, an event whole, every delivery once, in (event, sensor) order', () => {
    const events = [match('e3', 400), match('e1', 700), match('e2', 0), match('e5', 1_200), match('e4', 300)];
    const chunks = deliveryChunks(events, 1_000);
    assert.deepEqual(sizes(chunks), [700, 700, 1_200], 'e1; e3 and e4; e5 alone (more than the limit)');
    assert.deepEqual(
      chunks.map((chunk) => chunk.map((event) => event.eventId)),
      [['e1'], ['e3', 'e4'], ['e5']],
      'events in id order, the one without deliveries left out',
    );
    const sensors = chunks.flat().find((event) => event.eventId === 'e4')!.sensorIds;
    assert.deepEqual(sensors, [...sensors].sort(), 'sensors in id order');
    assert.equal(sensors.length, 300);
  });

  it('fill a chunk up to the limit exactly', () => {
    assert.deepEqual(sizes(deliveryChunks([match('a', 600), match('b', 400), match('c', 1)], 1_000)), [1_000, 1]);
    assert.deepEqual(deliveryChunks([], 1_000), []);
  });
});
