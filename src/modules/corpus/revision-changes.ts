// What changed between two states of an event's search-event view (decisions.md, "events by
// id, revisions and update deliveries"): per field that differs, `{from, to}`, and for
// `involved_entities` the entities `added` and `removed` (by id). A revision lists the changes
// since the revision before it; an `event.updated` delivery those since its sensor's previous
// delivery for the event, the same comparison over a longer span.
import type { InvolvedEntity, SearchEvent } from './event-view.js';

/** The fields of the search-event view that can change, as a revision records them. */
export type RevisionState = Omit<SearchEvent, 'object' | 'id' | 'event_type'>;

export const SCALAR_FIELDS = [
  'sentence',
  'happened_at',
  'first_report_date',
  'last_report_date',
  'matched_report_count',
  'distinct_outlet_count',
  'independent_source_count',
] as const satisfies readonly (keyof RevisionState)[];

export type ScalarField = (typeof SCALAR_FIELDS)[number];
export type RevisionChanges = { [K in ScalarField]?: { from: RevisionState[K]; to: RevisionState[K] } } & {
  involved_entities?: { added: InvolvedEntity[]; removed: InvolvedEntity[] };
};

/**
 * The fields whose change makes an `event.updated` delivery (decisions.md); a report that only
 * moves `matched_report_count` and `last_report_date` does not. A merge into the event does,
 * whatever changed.
 */
export const UPDATE_FIELDS: readonly (keyof RevisionState)[] = [
  'distinct_outlet_count',
  'independent_source_count',
  'sentence',
  'happened_at',
  'first_report_date',
  'involved_entities',
];

export function revisionStateOf(event: SearchEvent): RevisionState {
  return {
    sentence: event.sentence,
    happened_at: event.happened_at,
    first_report_date: event.first_report_date,
    last_report_date: event.last_report_date,
    matched_report_count: event.matched_report_count,
    distinct_outlet_count: event.distinct_outlet_count,
    independent_source_count: event.independent_source_count,
    involved_entities: event.involved_entities,
  };
}

/** The changes from `before` to `after`, fields in the view's order; empty when nothing differs. */
export function changesBetween(before: RevisionState, after: RevisionState): RevisionChanges {
  const changes: RevisionChanges = {};
  for (const field of SCALAR_FIELDS) {
    if (before[field] !== after[field]) (changes as Record<ScalarField, unknown>)[field] = { from: before[field], to: after[field] };
  }
  const had = new Set(before.involved_entities.map((entity) => entity.id));
  const has = new Set(after.involved_entities.map((entity) => entity.id));
  const added = after.involved_entities.filter((entity) => !had.has(entity.id));
  const removed = before.involved_entities.filter((entity) => !has.has(entity.id));
  if (added.length > 0 || removed.length > 0) changes.involved_entities = { added, removed };
  return changes;
}

/** Whether these changes (with `merged` telling whether an event was merged in meanwhile) make an `event.updated`. */
export function warrantsUpdate(changes: RevisionChanges, merged: boolean): boolean {
  return merged || UPDATE_FIELDS.some((field) => field in changes);
}
