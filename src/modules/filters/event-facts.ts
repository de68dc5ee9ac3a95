// What the matching face needs to know about one event, read in a few indexed queries.
import type { Queryable } from '../../platform/db/database.js';
import { indexedEntities, indexedEntityIds } from '../corpus/event-entities.js';
import { reportRolesOf } from '../corpus/reports.store.js';

export interface ReportFacts {
  sourceKind: 'ARTICLE' | 'STRUCTURED';
  /** The outlet, or for a structured report its filing account (one "outlet" per account). */
  sourceId: string;
  outletId: string | null;
  /** Live canonical entities pinned by the report's grant (represented entities). */
  represented: ReadonlySet<string>;
  values: readonly RoleValueFacts[];
  /** Its copy group, report date (ms) and receive order: which report of a group is its origin (independent sources). */
  group: string;
  date: number;
  seq: number;
}

export interface RoleValueFacts {
  role: string; // role code name
  entityId: string | null; // live canonical id
  dateMs: number | null; // a DATE value at 00:00 UTC
  amount: { value: number; unit: string } | null;
}

export interface EventFacts {
  eventId: string;
  eventTypeId: string;
  live: boolean; // neither merged away nor deleted
  involved: ReadonlySet<string>; // live canonical ids
  participants: ReadonlySet<string>;
  reports: readonly ReportFacts[];
}

/** The facts as read from the database, with the dates a reader may want beside them. */
export interface StoredEventFacts extends EventFacts {
  happenedAt: string | null;
  firstReportDate: Date;
}

/**
 * Loads an event's facts, counting the reports received up to the receive sequence value
 * `countedUpTo` (null: all). This runs for every subscriber of every event change.
 */
export async function loadEventFacts(db: Queryable, eventId: string, countedUpTo: number | null): Promise<StoredEventFacts | null> {
  return (await loadEventFactsOf(db, [eventId], countedUpTo)).get(eventId) ?? null;
}

/** What decides which saved filters an event is a candidate of, read before its facts. */
export interface EventKeys {
  live: boolean;
  eventTypeId: string;
  involved: ReadonlySet<string>; // live canonical ids
  /** Its reports' outlets, when the reader asked for them (else empty). */
  outletIds: readonly string[];
}

/** Which of the events read a matcher needs in full (a FilterIndex is one). */
export interface FactsSelection {
  /** Could an event with these keys match? null: any live event could (read them all in full). */
  readonly mayMatch: ((keys: EventKeys) => boolean) | null;
  /** Does `mayMatch` look at outlets? */
  readonly keyedByOutlet: boolean;
  /** Does matching this event need its reports' role values? */
  readonly wantsRoleValues: (event: EventFacts) => boolean;
}

/** Every event in full, with its role values. */
const EVERY_EVENT: FactsSelection = { mayMatch: null, keyedByOutlet: false, wantsRoleValues: () => true };

/**
 * The same for many events (a bulk ingest's change names many), by event id, in three
 * statements at most, each for fewer events:
 * - the keys of the live ones (type, entities, and outlets when asked), when `selection` can
 *   rule events out by them; only those it cannot are read further (events left out could
 *   not match: the map holds none of them);
 * - those events with their entities and reports;
 * - their reports' role values, only for the events `selection.wantsRoleValues` asks for
 *   (the others' reports keep no values).
 * Most events a bulk load changes are no saved filter's candidate; their reports and role
 * values were most of the cost of the read.
 */
export async function loadEventFactsOf(
  db: Queryable,
  eventIds: readonly string[],
  countedUpTo: number | null,
  selection: FactsSelection = EVERY_EVENT,
): Promise<Map<string, StoredEventFacts>> {
  const found = new Map<string, StoredEventFacts>();
  const { mayMatch } = selection;
  const candidates = mayMatch === null ? eventIds : (await readKeys(db, eventIds, selection.keyedByOutlet)).filter(mayMatch).map((keys) => keys.eventId);
  if (candidates.length === 0) return found;
  const events = await db.query<FactsRow>(
    `SELECT e.id, e.event_type_id, e.merged_into_event_id IS NULL AND e.deleted_at IS NULL AS live, e.happened_at, e.first_report_date,
            COALESCE((SELECT json_agg(json_build_array(i.entity_id, i.participant)) FROM (${indexedEntities('e')}) AS i), '[]') AS entities,
            COALESCE((SELECT json_agg(json_build_array(r.id, r.source_kind, r.outlet_id, r.account_id,
                                 -- the live survivors of the entities its grant pins (represented entities)
                                 CASE WHEN r.grant_id IS NULL THEN '[]' ELSE
                                 (SELECT COALESCE(json_agg(DISTINCT c.id), '[]') FROM reporting_grant_entities ge
                                    JOIN entities ent ON ent.id = ge.entity_id
                                    JOIN entities c ON c.id = ent.canonical_id AND c.deleted_at IS NULL
                                   WHERE ge.grant_id = r.grant_id) END,
                                 COALESCE(r.copy_group, r.received_seq)::text, (extract(epoch FROM r.report_date) * 1000)::float8, r.received_seq) ORDER BY r.id)
                        FROM reports r WHERE r.event_id = e.id AND r.received_seq <= COALESCE($2::bigint, r.received_seq)), '[]') AS reports
       FROM events e WHERE e.id = ANY($1::uuid[])`,
    [candidates, countedUpTo],
    { prepared: true },
  );
  const valuesOf = new Map<string, RoleValueFacts[]>();
  for (const event of events) {
    const facts = factsOf(event, valuesOf);
    found.set(event.id, facts);
    if (!selection.wantsRoleValues(facts)) for (const [reportId] of event.reports) valuesOf.delete(reportId);
  }
  if (valuesOf.size > 0) await readRoleValues(db, valuesOf);
  return found;
}

/**
 * The keys of the live events among these (the others match nothing), from the entities
 * their rows involve (through their survivors, event-entities.ts) and the events' reports. The outlets are every report's, whatever the cut-off: more keys only let more
 * events through.
 */
async function readKeys(db: Queryable, eventIds: readonly string[], withOutlets: boolean): Promise<(EventKeys & { eventId: string })[]> {
  if (eventIds.length === 0) return [];
  const rows = await db.query<{ id: string; event_type_id: string; entities: string[]; outlets: string[] | null }>(
    `SELECT e.id, e.event_type_id, ARRAY(${indexedEntityIds('e')}) AS entities,
            CASE WHEN $2::boolean THEN ARRAY(SELECT DISTINCT r.outlet_id FROM reports r WHERE r.event_id = e.id AND r.outlet_id IS NOT NULL) END AS outlets
       FROM events e WHERE e.id = ANY($1::uuid[]) AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL`,
    [eventIds, withOutlets],
    { prepared: true },
  );
  return rows.map((row) => ({ eventId: row.id, live: true, eventTypeId: row.event_type_id, involved: new Set(row.entities), outletIds: row.outlets ?? [] }));
}

/** Fills in the role values of reports, by report id (the lists the reports' facts hold). */
async function readRoleValues(db: Queryable, valuesOf: Map<string, RoleValueFacts[]>): Promise<void> {
  // The values are arrays on the report's row (migration 033), unnested report by report.
  const rows = await db.query<RoleValueRow>(
    `SELECT r.id AS report_id, rr.role_code_name AS code_name, live.id AS entity_id, to_char(rr.date_value, 'YYYY-MM-DD') AS date_value, rr.amount_value, rr.amount_unit
       FROM reports r
       CROSS JOIN LATERAL ${reportRolesOf('r')}
       LEFT JOIN entities ent ON ent.id = rr.entity_id
       LEFT JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
      WHERE r.id = ANY($1::uuid[])`,
    [[...valuesOf.keys()]],
    { prepared: true },
  );
  for (const row of rows) {
    valuesOf.get(row.report_id)!.push({
      role: row.code_name,
      entityId: row.entity_id,
      dateMs: row.date_value ? Date.parse(`${row.date_value}T00:00:00Z`) : null,
      amount: row.amount_value === null ? null : { value: row.amount_value, unit: row.amount_unit ?? '' },
    });
  }
}

interface RoleValueRow {
  report_id: string;
  code_name: string;
  entity_id: string | null;
  date_value: string | null;
  amount_value: number | null;
  amount_unit: string | null;
}

interface FactsRow {
  id: string;
  event_type_id: string;
  live: boolean;
  happened_at: string | null;
  first_report_date: Date;
  entities: [string, boolean][];
  reports: [string, 'ARTICLE' | 'STRUCTURED', string | null, string | null, string[], string, number, number][];
}

/** The facts of a row; each report's role values go in a list `valuesOf` keeps by report id, to be filled in. */
function factsOf(event: FactsRow, valuesOf: Map<string, RoleValueFacts[]>): StoredEventFacts {
  return {
    eventId: event.id,
    eventTypeId: event.event_type_id,
    live: event.live,
    happenedAt: event.happened_at,
    firstReportDate: event.first_report_date,
    involved: new Set(event.entities.map(([id]) => id)),
    participants: new Set(event.entities.filter(([, participant]) => participant).map(([id]) => id)),
    reports: event.reports.map(([id, sourceKind, outletId, accountId, represented, group, date, seq]) => ({
      sourceKind,
      sourceId: outletId ?? accountId ?? id,
      outletId,
      represented: new Set(represented),
      values: valuesOf.set(id, []).get(id)!,
      group,
      date,
      seq: Number(seq),
    })),
  };
}
