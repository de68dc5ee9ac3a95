// What the matching face needs to know about one event, read in a few indexed queries.
import type { Queryable } from '../../platform/db/database.js';

export interface ReportFacts {
  sourceKind: 'ARTICLE' | 'STRUCTURED';
  /** The outlet, or for a structured report its filing account (one "outlet" per account). */
  sourceId: string;
  outletId: string | null;
  /** Live canonical entities pinned by the report's grant (represented entities). */
  represented: ReadonlySet<string>;
  values: readonly RoleValueFacts[];
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

/** Loads an event's facts, counting the reports received up to the receive sequence value `countedUpTo` (null: all). */
export async function loadEventFacts(db: Queryable, eventId: string, countedUpTo: number | null): Promise<EventFacts | null> {
  const [event] = await db.query<{ id: string; event_type_id: string; live: boolean }>(
    `SELECT id, event_type_id, merged_into_event_id IS NULL AND deleted_at IS NULL AS live FROM events WHERE id = $1`,
    [eventId],
  );
  if (!event) return null;
  const entities = await db.query<{ entity_id: string; participant: boolean }>(
    'SELECT entity_id, participant FROM event_entities WHERE event_id = $1',
    [eventId],
  );
  const reports = await db.query<{ id: string; source_kind: 'ARTICLE' | 'STRUCTURED'; outlet_id: string | null; account_id: string | null }>(
    'SELECT id, source_kind, outlet_id, account_id FROM reports WHERE event_id = $1 AND received_seq <= COALESCE($2::bigint, received_seq) ORDER BY id',
    [eventId, countedUpTo],
  );
  const values = await db.query<{ report_id: string; role: string; entity_id: string | null; date_value: string | null; amount_value: number | null; amount_unit: string | null }>(
    `SELECT rr.report_id, role.code_name AS role, live.id AS entity_id, to_char(rr.date_value, 'YYYY-MM-DD') AS date_value, rr.amount_value, rr.amount_unit
       FROM report_roles rr
       JOIN reports r ON r.id = rr.report_id
       JOIN event_type_roles role ON role.id = rr.role_id
       LEFT JOIN entities e ON e.id = rr.entity_id
       LEFT JOIN entities live ON live.id = e.canonical_id AND live.deleted_at IS NULL
      WHERE r.event_id = $1 AND r.received_seq <= COALESCE($2::bigint, r.received_seq)`,
    [eventId, countedUpTo],
  );
  const byReport = new Map<string, RoleValueFacts[]>();
  for (const v of values) {
    const list = byReport.get(v.report_id) ?? [];
    list.push({
      role: v.role,
      entityId: v.entity_id,
      dateMs: v.date_value ? Date.parse(`${v.date_value}T00:00:00Z`) : null,
      amount: v.amount_value === null ? null : { value: v.amount_value, unit: v.amount_unit ?? '' },
    });
    byReport.set(v.report_id, list);
  }
  return {
    eventId: event.id,
    eventTypeId: event.event_type_id,
    live: event.live,
    involved: new Set(entities.map((e) => e.entity_id)),
    participants: new Set(entities.filter((e) => e.participant).map((e) => e.entity_id)),
    reports: reports.map((r) => ({
      sourceKind: r.source_kind,
      sourceId: r.outlet_id ?? r.account_id ?? r.id,
      outletId: r.outlet_id,
      // Grants arrive with structured reporting; until then no report represents anyone.
      represented: new Set<string>(),
      values: byReport.get(r.id) ?? [],
    })),
  };
}
