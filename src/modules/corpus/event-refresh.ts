// An event's stored state recomputed from all its reports: after a report that could not be
// added in place, a merge, or an entity merged or deleted (the refresh job).
import type { Queryable } from '../../platform/db/database.js';
import { eventState, storedReportState } from './event-state.js';
import { eventsStore } from './events.store.js';
import { sourceSeqs } from './new-report.js';
import { type EventTypeRow, referenceStore, type RoleRow } from './reference.store.js';
import { reportsStore } from './reports.store.js';

/** Recomputes an event's stored state from all its reports. */
export async function refreshEvent(
  tx: Queryable,
  eventId: string,
  eventTypeId: string,
  at: Date,
  known?: { type: EventTypeRow; roles: RoleRow[] }, // passed by callers that have them already
  lockHeld = false, // the caller holds the event row's lock already
): Promise<void> {
  // The event row lock orders this after any merge or refresh of the same event in flight.
  if (!lockHeld) await eventsStore.getEvent(tx, eventId, true);
  const reports = await reportsStore.reportsWithValues(tx, eventId);
  if (reports.length === 0) return;
  const { type, roles } = known ?? (await referenceStore.eventTypesWithRoles(tx, [eventTypeId])).get(eventTypeId)!;
  const state = eventState(reports.map(storedReportState), { template: type.sentence_template, roles });
  await eventsStore.writeSummary(tx, eventId, { ...state, sourceSeqs: sourceSeqs(reports), typeVersion: type.version, at });
}
