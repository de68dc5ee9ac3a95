// The search-event shape (v1 document, "Search event"): what event search returns, what the
// operator reads, and what sensor deliveries carry. One query for any number of events.
import { queryOne, type Queryable } from '../../platform/db/database.js';
import { independentSourcesSql } from './independent-sources.js';

export interface InvolvedEntity {
  id: string;
  name: string;
  type: string | null;
}

export interface SearchEvent {
  object: 'event';
  id: string;
  event_type: { code_name: string };
  sentence: string | null;
  happened_at: string | null;
  first_report_date: string;
  last_report_date: string;
  matched_report_count: number;
  distinct_outlet_count: number;
  independent_source_count: number;
  involved_entities: InvolvedEntity[];
}

/**
 * The last receive-sequence value handed out, as SQL, for a statement that reads it beside what
 * it counts (search/index/day-counts.ts, search/index/memory-index.store.ts). That every report committed
 * in the statement's snapshot is at or below it relies on the sequence handing values out one
 * at a time (CACHE 1, the default of the serial column): with a cache, a session could hold
 * values above what another session last read.
 */
export const RECEIVED_UP_TO = `pg_sequence_last_value(pg_get_serial_sequence('reports', 'received_seq')::regclass)`;

/**
 * The last receive-sequence value handed out: the cut-off of "reports received up to now".
 * (A report still being written may hold a lower value and be counted once it commits.)
 */
export async function receivedUpTo(db: Queryable): Promise<number> {
  const row = await queryOne<{ seq: number | null }>(db, `SELECT ${RECEIVED_UP_TO} AS seq`);
  return row?.seq ?? 0;
}

interface ViewRow {
  id: string;
  code_name: string;
  sentence: string | null;
  happened_at: string | null;
  first_report_date: Date;
  last_report_date: Date;
  /** The stored involved entities, in their order, each as its live canonical entity (deleted ones left out). */
  entities: { canonical_id: string; name: string; type: string | null }[];
  reports: number;
  outlets: number;
  independent: number;
  merged_into_event_id: string | null;
  deleted: boolean;
  revision?: number | null;
  revised_at?: Date;
}

/** An event's view with its fate (merged away, deleted), and with its latest revision when asked for. */
export type EventView = SearchEvent & { merged_into_event_id: string | null; deleted: boolean; revision?: { number: number; at: string } };

/**
 * The events with these ids, in the order given (missing ids left out). Dates and entities
 * are as currently known; the counts cover the reports that had arrived by the receive
 * sequence value `seq` (search), whose receive time is not after `at` (reading now), or all
 * of them (`'all'`: a revision, or an event read by id). With `revision`, each carries its
 * latest revision number and when it was made.
 */
export async function loadEventViews(
  db: Queryable,
  ids: readonly string[],
  countedUpTo: { seq: number } | { at: Date } | 'all',
  options: { revision?: boolean } = {},
): Promise<EventView[]> {
  if (ids.length === 0) return [];
  // Counted at a receive-sequence value: the reports from the index of (event, sequence) alone,
  // and the distinct sources from the event's own row, whose source_seqs holds when it reached
  // each (the number min_reports compares, v1 document: "Same cut-off"; emptied when the event
  // is merged away, as its reports move). At a time: the reports themselves, their sources told
  // apart as source_seqs tells them. All of them: the sources are the event's source_seqs.
  const counts =
    countedUpTo === 'all'
      ? `SELECT (SELECT count(*)::int FROM reports r WHERE r.event_id = e.id) AS reports, cardinality(e.source_seqs) AS outlets,
                ${independentSourcesSql('e.id', 'true')} AS independent`
      : 'seq' in countedUpTo
        ? `SELECT (SELECT count(*)::int FROM reports r WHERE r.event_id = e.id AND r.received_seq <= $2::bigint) AS reports,
                (SELECT count(*)::int FROM unnest(e.source_seqs) AS s WHERE s <= $2::bigint) AS outlets,
                ${independentSourcesSql('e.id', 'r.received_seq <= $2::bigint')} AS independent`
        : `SELECT count(*)::int AS reports, count(DISTINCT COALESCE(r.outlet_id, r.account_id, r.id))::int AS outlets,
                ${independentSourcesSql('e.id', 'r.received_at <= $2::timestamptz')} AS independent
           FROM reports r WHERE r.event_id = e.id AND r.received_at <= $2::timestamptz`;
  // The latest revision is the head's: made when its row says, or (a first without a row,
  // implied) when the event was; events merged away or deleted before revisions were kept have
  // neither.
  const rows = await db.query<ViewRow>(
    `SELECT e.id, t.code_name, e.sentence, e.happened_at, e.first_report_date, e.last_report_date, ent.entities,
            e.merged_into_event_id, e.deleted_at IS NOT NULL AS deleted, c.reports, c.outlets, c.independent
            ${options.revision ? ', h.revision, COALESCE(rev.created_at, CASE WHEN h.event_id IS NOT NULL THEN e.created_at END, e.updated_at) AS revised_at' : ''}
       FROM events e
       JOIN event_types t ON t.id = e.event_type_id
       CROSS JOIN LATERAL (${counts}) c
       -- Stored entity ids were canonical when the event was last refreshed: mapped through
       -- once more, for entities merged or deleted since.
       CROSS JOIN LATERAL (
         SELECT COALESCE(json_agg(json_build_object('canonical_id', live.id, 'name', live.name, 'type', live.type) ORDER BY x.n), '[]') AS entities
           FROM unnest(e.involved_entity_ids) WITH ORDINALITY AS x(id, n)
           JOIN entities stored ON stored.id = x.id
           JOIN entities live ON live.id = stored.canonical_id AND live.deleted_at IS NULL
       ) ent
       ${options.revision ? 'LEFT JOIN event_revision_heads h ON h.event_id = e.id LEFT JOIN event_revisions rev ON rev.event_id = h.event_id AND rev.revision = h.revision' : ''}
      WHERE e.id = ANY($1::uuid[])`,
    countedUpTo === 'all' ? [ids] : [ids, 'seq' in countedUpTo ? countedUpTo.seq : countedUpTo.at],
  );
  const rowById = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = rowById.get(id);
    if (!row) return [];
    const involved = involvedOnce(row.entities);
    return [
      {
        object: 'event' as const,
        id: row.id,
        event_type: { code_name: row.code_name },
        sentence: row.sentence,
        happened_at: row.happened_at,
        first_report_date: row.first_report_date.toISOString(),
        last_report_date: row.last_report_date.toISOString(),
        matched_report_count: row.reports,
        distinct_outlet_count: row.outlets,
        independent_source_count: row.independent,
        involved_entities: involved,
        merged_into_event_id: row.merged_into_event_id,
        deleted: row.deleted,
        // An event merged away or deleted before revisions were kept has none: its first, when it last changed.
        ...(options.revision ? { revision: { number: row.revision ?? 1, at: row.revised_at!.toISOString() } } : {}),
      },
    ];
  });
}

/** Involved entities as the view shows them: each live survivor once, in the stored order. */
export function involvedOnce(entities: readonly { canonical_id: string; name: string; type: string | null }[]): InvolvedEntity[] {
  const involved: InvolvedEntity[] = [];
  const seen = new Set<string>();
  for (const entity of entities) {
    if (seen.has(entity.canonical_id)) continue;
    seen.add(entity.canonical_id);
    involved.push({ id: entity.canonical_id, name: entity.name, type: entity.type });
  }
  return involved;
}

/** The search-event shape alone, without the operator's `merged_into_event_id` and `deleted`. */
export function searchEventOf(view: EventView): SearchEvent {
  const { merged_into_event_id: _merged, deleted: _deleted, revision: _revision, ...event } = view;
  return event;
}
