// The single path of ingest: one report, whatever its source, clustered into an event (or
// joined to the one its incident_id names), written with its values and mentions, the event's
// state updated and the change published, all in the caller's transaction. An article first
// takes its locks and is looked up as stored. The rules it follows are new-report.ts's, which
// the bulk path (article-batch.ts) follows too.
import type { Clock } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { clusterQuery } from './clustering.js';
import type { EventChanges } from './event-changes.js';
import { refreshEvent } from './event-refresh.js';
import { eventState, newReportState } from './event-state.js';
import type { EventTypeCache } from './event-type-cache.js';
import type { IngestArticleBody } from './events.schemas.js';
import type { TextShingles } from './copy-fingerprint.js';
import { type EventRow, eventsStore } from './events.store.js';
import { ingestLocksStore } from './ingest-locks.store.js';
import {
  articleEntityIds,
  articleReport,
  copyJoins,
  incidentTarget,
  namedEntities,
  type NewReport,
  noSuchOutlet,
  placementOf,
  survivorsOf,
} from './new-report.js';
import { type FoundCopy, findCopy } from './copy-detection.js';
import type { RecentCopies } from './recent-copies.js';

export interface ReportIngestDeps {
  clock: Clock;
  newId: IdGenerator;
  changes: EventChanges;
  eventTypes: EventTypeCache;
  copies: RecentCopies;
}

const incidentReport = (id: string, incidentId: string, reportDate: Date, copyOf: string | null) => ({
  object: 'incident_report' as const,
  id,
  incident_id: incidentId,
  report_date: reportDate.toISOString(),
  copy_of_report_id: copyOf,
});

/**
 * Ingests one report taken from a news article: the article's own checks (outlet, entities,
 * timestamps), then the source-neutral path. Answers its id, event and report date, and
 * whether it was stored already (the same outlet and url), in which case nothing changed.
 */
export async function ingestArticle(tx: Queryable, deps: ReportIngestDeps, input: IngestArticleBody, text: TextShingles | null) {
  const opened = await ingestLocksStore.openArticle(tx, { outletId: input.outlet_id, eventTypeId: input.event_type_id, url: input.url ?? null });
  if (!opened.outlet) throw noSuchOutlet();
  // Every entity the report names, resolved (live ones with their survivors) with the
  // look-up of the stored article.
  const { stored, entities } = await ingestLocksStore.storedArticle(tx, input.outlet_id, input.url ?? null, articleEntityIds(input));
  if (stored) return { ...incidentReport(stored.id, stored.incident_id, stored.report_date, stored.copy_of_report_id), existing: true };
  const known = await deps.eventTypes.get(tx, input.event_type_id, opened.typeVersion);
  const report = await articleReport(input, known, survivorsOf(entities), deps.clock.now(), text);
  const added = await addReport(tx, deps, report);
  return { ...incidentReport(added.reportId, added.eventId, added.reportDate, added.copyOf), existing: false };
}

/**
 * Adds one checked report to the corpus, whatever its source: clustered into an event (or
 * joined to `incidentId`), written with its values and mentions, the event's state updated
 * and the change published, in the caller's transaction.
 */
export async function addReport(
  tx: Queryable,
  { clock, newId, changes, copies }: ReportIngestDeps,
  report: NewReport,
): Promise<{ reportId: string; eventId: string; reportDate: Date; copyOf: string | null }> {
  const now = clock.now();
  const { type } = report;
  const placement = placementOf(report);
  const { date, participants } = placement;
  // A text is judged against those received before it, one writer at a time.
  let copy: FoundCopy | null = null;
  if (report.text) {
    await ingestLocksStore.lockCopies(tx, type.id);
    copy = await findCopy(tx, copies, { text: report.text, receivedAt: report.receivedAt, entities: namedEntities(placement) });
  }
  // Reports that share a participant cluster one at a time, so two at once cannot both
  // open an event for it.
  await ingestLocksStore.lockReportClustering(tx, type.id, participants);
  const reportId = newId();
  const rows = (eventId: string) => placement.rows({ id: reportId, eventId, copyGroup: copy?.copied.copy_group ?? null });
  const inPlace = (event: EventRow) => placement.inPlace(event, now);
  let joined: { event: EventRow; inPlace: boolean } | null = null; // the event the report joined, its row as locked before
  // An event checked to take the report (its type, live) and locked: the report is written into it.
  const joinChecked = async (event: EventRow) => {
    const { written, inPlace: updated } = await eventsStore.joinReport(tx, rows(event.id), { inPlace: inPlace(event) });
    if (!written) throw new Error(`report ${reportId} was not written into event ${event.id}, whose type was checked to be its own`);
    return { event, inPlace: updated };
  };
  if (report.incidentId) {
    const event = await eventsStore.getEvent(tx, report.incidentId, true);
    const survivor = !event || event.deleted_at || !event.merged_into_event_id ? event : await eventsStore.getEvent(tx, event.merged_into_event_id, true);
    joined = await joinChecked(incidentTarget(event, survivor, type.id));
  } else if (copy) {
    // A copy joins the event of the report it copies, whatever clustering would choose, when
    // that event can take it (live, of its type); else it is clustered as any report.
    const event = await eventsStore.getEvent(tx, copy.copied.event_id, true);
    if (event && copyJoins(event, type.id)) joined = await joinChecked(event);
  }
  if (joined === null) {
    // (An incident_id has joined its event or been refused.)
    const roles = placement.namedRoles;
    const query = clusterQuery({ eventTypeId: type.id, participantIds: participants, namedRoles: roles, anchor: new Date(placement.anchor) });
    // The event found is locked in the same statement, before the report row's foreign key
    // share-locks it: two reports joining one event (through different participants) would
    // otherwise each hold that share lock while waiting for the other's to update it. An
    // event deleted since it was found takes no more reports (merges wait for the type's
    // clustering lock); one that took a report naming another entity in one of this report's
    // roles meanwhile (read again by the insert, under the lock) is passed over, and the
    // search runs again (it no longer finds that one).
    for (let attempt = 0; query && attempt < 3 && joined === null; attempt++) {
      const found = await eventsStore.lockedEventOf(tx, query);
      if (!found) break;
      if (found.deleted_at || found.merged_into_event_id) continue;
      const written = await eventsStore.joinReport(tx, rows(found.id), { unlessNamingOthers: roles, inPlace: inPlace(found) });
      if (written.written) joined = { event: found, inPlace: written.inPlace };
    }
  }
  if (joined === null) {
    // A new event: its state is its one report's, computed here as a refresh would read it back.
    const eventId = newId();
    const state = eventState([newReportState(report, { id: reportId, date, mentioned: placement.mentioned })], {
      template: type.sentence_template,
      roles: report.roles,
    });
    await eventsStore.insertEventWithReport(tx, rows(eventId), { at: now, state, typeVersion: type.version });
    await changes.publish(tx, { kind: 'report-added', eventId, reportId });
    return { reportId, eventId, reportDate: date, copyOf: copy?.originId ?? null };
  }
  const { event } = joined;
  if (!joined.inPlace) await refreshEvent(tx, event.id, type.id, now, { type, roles: report.roles }, true);
  await changes.publish(tx, { kind: 'report-added', eventId: event.id, reportId });
  return { reportId, eventId: event.id, reportDate: date, copyOf: copy?.originId ?? null };
}
