// The search index of events in SQL: per event, its distinct sources, with when each first
// reported and the event's first report date, so the filter's SQL face answers outlet and
// min_reports questions without walking every report of every candidate event. Rebuilt from
// the reports whenever an event is refreshed, in the same transaction. Role values are read
// from the reports themselves (the view event_role_values, migration 031).
import type { Queryable } from '../../platform/db/database.js';
import type { SqlParams } from '../../platform/db/sql-params.js';

/**
 * Rebuilds the index rows of these events from their reports (live events only). A caller
 * that has written `events.source_seqs` itself, in its own update of the row, says so: one
 * update of an event row fewer (each writes an entry into every index of events).
 */
export async function rebuildEventIndex(tx: Queryable, eventIds: readonly string[], options: { sourceSeqsWritten?: boolean } = {}): Promise<void> {
  if (eventIds.length === 0) return;
  await clearEventIndex(tx, eventIds);
  // A structured report counts as one source per filing account (decisions.md, Beats).
  await tx.query(
    `INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
     SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, min(r.received_seq), e.first_report_date
       FROM reports r JOIN events e ON e.id = r.event_id
      WHERE r.event_id = ANY($1::uuid[]) AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
      GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date`,
    [eventIds],
  );
  if (!options.sourceSeqsWritten) {
    await tx.query(
      `UPDATE events e SET source_seqs = COALESCE((SELECT array_agg(s.first_seq ORDER BY s.first_seq) FROM event_sources s WHERE s.event_id = e.id), '{}')
        WHERE e.id = ANY($1::uuid[])`,
      [eventIds],
    );
  }
}

/** Adds the sources new reports of live events bring, where their first report date did not move. */
export async function indexNewReports(tx: Queryable, reportIds: readonly string[]): Promise<void> {
  if (reportIds.length === 0) return;
  // Each new source, unless the event has it already (from an earlier report).
  await tx.query(
    `INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
     SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, min(r.received_seq), e.first_report_date
       FROM reports r JOIN events e ON e.id = r.event_id WHERE r.id = ANY($1::uuid[])
      GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date
     ON CONFLICT (event_id, source_id) DO NOTHING`,
    [reportIds],
  );
}

/** A source new to its event, as a writer that holds it in memory sees it (a bulk ingest). */
export interface NewSource {
  eventId: string;
  sourceId: string;
  sourceKind: string;
  firstSeq: number;
  firstReportDate: Date;
}

/**
 * Writes sources held in memory: the rows the sources' statement makes from the reports, the
 * ones the caller found new to their events. An INSERT that passes over one the event has
 * already (not a COPY, which would fail the batch) keeps a stray row from stopping every later
 * batch that reaches its event.
 */
export async function insertNewSources(tx: Queryable, sources: readonly NewSource[]): Promise<void> {
  if (sources.length === 0) return;
  await tx.query(
    `INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::timestamptz[]) ON CONFLICT (event_id, source_id) DO NOTHING`,
    [
      sources.map((s) => s.eventId),
      sources.map((s) => s.sourceId),
      sources.map((s) => s.sourceKind),
      sources.map((s) => s.firstSeq),
      sources.map((s) => s.firstReportDate),
    ],
  );
}

/**
 * The sub-statement `sourced` of a statement that writes one report (its CTE `report`,
 * RETURNING received_seq): the source that report adds to event `eventId` when it is new there,
 * with the event's first report date, when `when` holds.
 */
export function newReportIndexSql(
  params: SqlParams,
  report: { eventId: string; source: { kind: string; id: string }; firstReportDate: Date },
  when: string,
): string {
  return `sourced AS (
         INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
         SELECT ${params.add(report.eventId, '::uuid')}, ${params.add(report.source.id, '::uuid')}, ${params.add(report.source.kind)}, report.received_seq,
                ${params.add(report.firstReportDate, '::timestamptz')}
           FROM report WHERE ${when}
         ON CONFLICT (event_id, source_id) DO NOTHING
       )`;
}

/** Removes the index rows of events merged away or deleted (they match nothing). */
export async function clearEventIndex(tx: Queryable, eventIds: readonly string[]): Promise<void> {
  await tx.query('DELETE FROM event_sources WHERE event_id = ANY($1::uuid[])', [eventIds]);
}
