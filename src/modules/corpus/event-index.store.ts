// The search index of events: per event, its distinct sources (with when each first reported)
// and its role values, each beside the event's first report date, so the filter's SQL face
// answers outlet, min_reports and role-filter questions from indexes pruned by a search's
// window instead of walking every report of every candidate event. Rebuilt from the reports
// whenever an event is refreshed, in the same transaction.
import type { Queryable } from '../../platform/db/database.js';
import type { SqlParams } from '../../platform/db/sql-params.js';

/**
 * The role values of the reports `where` selects (over rr, r and e): entities by live survivor,
 * units folded as the filter folds them (ASCII letters only).
 */
function insertRoleValues(where: string): string {
  return `INSERT INTO event_role_values (event_id, role_id, source_kind, seq, first_report_date, entity_id, date_value, amount_value, amount_unit)
     SELECT r.event_id, rr.role_id, r.source_kind, r.received_seq, e.first_report_date, live.id, rr.date_value, rr.amount_value,
            translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
       FROM report_roles rr
       JOIN reports r ON r.id = rr.report_id
       JOIN events e ON e.id = r.event_id
       LEFT JOIN entities ent ON ent.id = rr.entity_id
       LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
      WHERE ${where} AND (rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL)`;
}

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
  await tx.query(insertRoleValues('r.event_id = ANY($1::uuid[]) AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL'), [eventIds]);
}

/** Adds the index rows of new reports of live events whose first report date they did not change. */
export async function indexNewReports(tx: Queryable, reportIds: readonly string[]): Promise<void> {
  if (reportIds.length === 0) return;
  // One statement: each new source (unless the event has it already, from an earlier report),
  // then the reports' role values.
  await tx.query(
    `WITH source AS (
       INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
       SELECT r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, min(r.received_seq), e.first_report_date
         FROM reports r JOIN events e ON e.id = r.event_id WHERE r.id = ANY($1::uuid[])
        GROUP BY r.event_id, COALESCE(r.outlet_id, r.account_id, r.id), r.source_kind, e.first_report_date
       ON CONFLICT (event_id, source_id) DO NOTHING
     )
     ${insertRoleValues('rr.report_id = ANY($1::uuid[])')}`,
    [reportIds],
  );
}

/** An event's index rows as a writer that holds them in memory sees them (a bulk ingest). */
export interface IndexRows {
  sources: { eventId: string; sourceId: string; sourceKind: string; firstSeq: number; firstReportDate: Date }[];
  values: {
    eventId: string;
    roleId: string;
    sourceKind: string;
    seq: number;
    firstReportDate: Date;
    /** The live survivor. */
    entityId: string | null;
    date: string | null;
    amount: { value: number; unit: string } | null;
  }[];
}

/** Whether the search index keeps a role value: an entity, a date or an amount (as insertRoleValues's WHERE). */
const keptByIndex = (v: { entityId: string | null; date: string | null; amount: unknown }) => v.entityId !== null || v.date !== null || v.amount !== null;

/** Units folded as the filter folds them: ASCII letters only (as insertRoleValues's translate). */
export const foldUnit = (unit: string) => unit.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * Writes index rows held in memory: the same rows insertRoleValues and the sources' statement
 * make from the reports. The sources are the ones the caller found new to their events; an
 * INSERT that passes over one the event has already (not a COPY, which would fail the batch)
 * keeps a stray row from stopping every later batch that reaches its event.
 */
export async function insertIndexRows(tx: Queryable, rows: IndexRows): Promise<void> {
  const { sources, values } = rows;
  if (sources.length > 0) {
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
  await tx.copyRows(
    'event_role_values',
    ['event_id', 'role_id', 'source_kind', 'seq', 'first_report_date', 'entity_id', 'date_value', 'amount_value', 'amount_unit'],
    values
      .filter(keptByIndex)
      .map((v) => [v.eventId, v.roleId, v.sourceKind, v.seq, v.firstReportDate, v.entityId, v.date, v.amount?.value ?? null, foldUnit(v.amount?.unit ?? '')]),
  );
}

/**
 * The sub-statements `sourced` and `indexed` of a statement that writes one report (its CTE
 * `report`, RETURNING received_seq): the index rows that report adds to event `eventId`, made
 * from the values it was written with (as insertRoleValues would read them back), with the
 * event's first report date, when `when` holds. `values` are the report's role values, each
 * entity as given and `survivors` mapping the live ones to their survivors.
 */
export function newReportIndexSql(
  params: SqlParams,
  report: {
    eventId: string;
    source: { kind: string; id: string };
    firstReportDate: Date;
    values: readonly { roleId: string; entityId: string | null; date: string | null; amount: { value: number; unit: string } | null }[];
    survivors: ReadonlyMap<string, string>;
  },
  when: string,
): string {
  const kept = report.values.filter(keptByIndex); // by the entity as given: a deleted survivor still leaves its row
  const event = params.add(report.eventId, '::uuid');
  const kind = params.add(report.source.kind);
  const first = params.add(report.firstReportDate, '::timestamptz');
  return `sourced AS (
         INSERT INTO event_sources (event_id, source_id, source_kind, first_seq, first_report_date)
         SELECT ${event}, ${params.add(report.source.id, '::uuid')}, ${kind}, report.received_seq, ${first} FROM report WHERE ${when}
         ON CONFLICT (event_id, source_id) DO NOTHING
       ), indexed AS (
         INSERT INTO event_role_values (event_id, role_id, source_kind, seq, first_report_date, entity_id, date_value, amount_value, amount_unit)
         SELECT ${event}, v.role_id, ${kind}, report.received_seq, ${first}, v.entity_id, v.date_value, v.amount_value, v.amount_unit
           FROM report, unnest(${params.add(kept.map((v) => v.roleId))}::uuid[],
                               ${params.add(kept.map((v) => (v.entityId === null ? null : (report.survivors.get(v.entityId) ?? null))))}::uuid[],
                               ${params.add(kept.map((v) => v.date))}::date[], ${params.add(kept.map((v) => v.amount?.value ?? null))}::float8[],
                               ${params.add(kept.map((v) => foldUnit(v.amount?.unit ?? '')))}::text[])
                AS v(role_id, entity_id, date_value, amount_value, amount_unit)
          WHERE ${when}
       )`;
}

/** Removes the index rows of events merged away or deleted (they match nothing). */
export async function clearEventIndex(tx: Queryable, eventIds: readonly string[]): Promise<void> {
  await tx.query('DELETE FROM event_sources WHERE event_id = ANY($1::uuid[])', [eventIds]);
  await tx.query('DELETE FROM event_role_values WHERE event_id = ANY($1::uuid[])', [eventIds]);
}
