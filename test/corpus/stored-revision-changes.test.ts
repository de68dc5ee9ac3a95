// A revision's changes as event_revisions keeps them (stored-revision-changes.ts): entity ids
// in 22 characters since the tenth step of the compact corpus, rows written before in 36, and
// both read back as the API writes ids.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RevisionChanges } from '../../src/modules/corpus/revision-changes.js';
import { changesOfStored, entityIdsOf, storedChanges } from '../../src/modules/corpus/stored-revision-changes.js';

const added = { id: '01a22f5f-ac74-70f6-8fc2-6bcd5e62ab08', name: 'Party Co', type: 'ORGANIZATION' };
const removed = { id: 'ffffffff-0000-4000-8000-00000000000a', name: 'Gone Co', type: null };
const entities = new Map([added, removed].map((entity) => [entity.id, entity]));
const changes = {
  last_report_date: { from: '2026-11-20T12:00:00.000Z', to: '2026-11-21T08:30:00.125Z' },
  matched_report_count: { from: 1, to: 2 },
  involved_entities: { added: [added], removed: [removed] },
} as unknown as RevisionChanges;

describe('stored revision changes', () => {
  it('when changes are stored, then each entity id takes 22 characters and reads back as written', () => {
    const stored = storedChanges(changes);
    const [addedIds, removedIds] = stored.e as [string[], string[]];
    assert.deepEqual(
      [...addedIds, ...removedIds].map((id) => id.length),
      [22, 22],
    );
    assert.deepEqual(entityIdsOf(stored), [added.id, removed.id]);
    assert.deepEqual(changesOfStored(JSON.parse(JSON.stringify(stored)), entities), changes);
  });

  it('when a row holds the ids in their long form (stored before), then it reads the same', () => {
    const stored = { ...storedChanges(changes), e: [[added.id], [removed.id]] as [unknown, unknown] };
    assert.deepEqual(entityIdsOf(stored), [added.id, removed.id]);
    assert.deepEqual(changesOfStored(stored, entities), changes);
  });
});
