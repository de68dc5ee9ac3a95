// A revision's changes as event_revisions keeps them (migration 036): the API's form
// (revision-changes.ts) in fewer bytes. Each field is one letter, a change [from, to] instead
// of {from, to}, a date its epoch milliseconds instead of 24 characters, and an entity its id
// alone (names and types never change: they are read back with the revision). About 430
// bytes a revision in the API's form, the largest part of event_revisions; under half that so.
// Since the tenth step of the compact corpus an id is its 16 bytes in base64url, 22 characters
// instead of 36; rows written before keep the long form, and both read the same.
import { parse as parseUuid, stringify as stringifyUuid } from 'uuid';
import type { InvolvedEntity } from './event-view.js';
import { type RevisionChanges, SCALAR_FIELDS, type ScalarField } from './revision-changes.js';

/** Each scalar field's letter; the involved entities are `e`, [added ids, removed ids]. */
const LETTERS: Record<ScalarField, string> = {
  sentence: 's',
  happened_at: 'h',
  first_report_date: 'f',
  last_report_date: 'l',
  matched_report_count: 'm',
  distinct_outlet_count: 'o',
  independent_source_count: 'i',
};
const DATE_FIELDS: ReadonlySet<ScalarField> = new Set(['first_report_date', 'last_report_date']);

export type StoredChanges = { [letter: string]: [unknown, unknown] };

/** An entity id as stored: its 16 bytes in base64url. */
const storedId = (id: string) => Buffer.from(parseUuid(id)).toString('base64url');
/** An entity id as read: either stored form, as the API writes it (lower-case hex with dashes). */
const idOfStored = (stored: string) => (stored.length === 22 ? stringifyUuid(Buffer.from(stored, 'base64url')) : stored);

const toMillis = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) : iso);
const toIso = (millis: unknown) => (typeof millis === 'number' ? new Date(millis).toISOString() : millis);

export function storedChanges(changes: RevisionChanges): StoredChanges {
  const stored: StoredChanges = {};
  for (const field of SCALAR_FIELDS) {
    const change = changes[field];
    if (change) stored[LETTERS[field]] = DATE_FIELDS.has(field) ? [toMillis(change.from), toMillis(change.to)] : [change.from, change.to];
  }
  const entities = changes.involved_entities;
  if (entities) stored.e = [entities.added.map((entity) => storedId(entity.id)), entities.removed.map((entity) => storedId(entity.id))];
  return stored;
}

/** The ids of the entities these stored changes name, for a read to look up. */
export function entityIdsOf(stored: StoredChanges): string[] {
  const entities = stored.e as [string[], string[]] | undefined;
  return entities ? [...entities[0], ...entities[1]].map(idOfStored) : [];
}

/** The API's form of stored changes, fields in the view's order, with `entities` naming every id in them. */
export function changesOfStored(stored: StoredChanges, entities: ReadonlyMap<string, InvolvedEntity>): RevisionChanges {
  const changes: Record<string, unknown> = {};
  for (const field of SCALAR_FIELDS) {
    const change = stored[LETTERS[field]];
    if (change) changes[field] = DATE_FIELDS.has(field) ? { from: toIso(change[0]), to: toIso(change[1]) } : { from: change[0], to: change[1] };
  }
  const ids = stored.e as [string[], string[]] | undefined;
  if (ids) {
    // Entities are never removed (a deleted one keeps its row): a missing one is not expected.
    const named = (stored: string) => {
      const id = idOfStored(stored);
      return entities.get(id) ?? { id, name: '', type: null };
    };
    changes.involved_entities = { added: ids[0].map(named), removed: ids[1].map(named) };
  }
  return changes as RevisionChanges;
}
