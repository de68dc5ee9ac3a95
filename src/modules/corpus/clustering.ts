// The clustering rule, in one replaceable function: a report without an explicit event joins
// the most recently first-reported live event of the same type that shares a participant
// entity, whose happened_at (or, when that does not read as a date, first report) lies
// within CLUSTER_WINDOW_DAYS of the report's own happened_at (or report date), and whose
// reports name no other entity in a NAMED_ENTITY role the report fills ("Casper LLC acquires
// Casper Group" is not the event "Casper LLC agreed to acquire Spencer LLC"); otherwise it
// opens a new event. Entities are compared by survivor (the search index keeps them so).
import { isRealDate } from './role-values.js';

export const CLUSTER_WINDOW_DAYS = 3;

/** Where an event's or a report's window sits: its happened_on day (00:00 UTC), else its (first) report date. */
export function windowAnchor(happenedOn: string | null, reportDate: Date | number): number {
  return happenedOn ? Date.parse(`${happenedOn}T00:00:00Z`) : new Date(reportDate).getTime();
}

/** The same in SQL, over a date expression and a timestamptz one (event_participants.anchor keeps it per participant). */
export const windowAnchorSql = (happenedOn: string, firstReportDate: string) => `COALESCE((${happenedOn})::timestamp AT TIME ZONE 'UTC', ${firstReportDate})`;

export interface ClusterCandidate {
  eventTypeId: string;
  /** Canonical ids of the entities playing roles in the report. */
  participantIds: readonly string[];
  /** The report's NAMED_ENTITY roles and the canonical id of the entity in each. */
  namedRoles: readonly { roleId: string; entityId: string }[];
  /** The report's happened_at read as a date, else its report date. */
  anchor: Date;
}

/**
 * Whether event `e` names, in one of the report's NAMED_ENTITY roles (`roles`), an entity the
 * report does not name in that role (`entities`, paired with `roles`): SQL over `e`.
 */
export const namesOthers = (roles: string, entities: string) => `EXISTS (
          SELECT 1 FROM event_role_values v
           WHERE v.event_id = e.id AND v.entity_id IS NOT NULL AND v.role_id = ANY(${roles}::uuid[])
             AND NOT EXISTS (SELECT 1 FROM unnest(${roles}::uuid[], ${entities}::uuid[]) AS mine (role_id, entity_id)
                              WHERE mine.role_id = v.role_id AND mine.entity_id = v.entity_id))`;

/**
 * The statement that finds the event a report joins (its id, or no row); null when the report
 * has no participant (it opens an event). eventsStore.lockedEventOf runs it.
 */
export function clusterQuery(candidate: ClusterCandidate): { sql: string; params: unknown[] } | null {
  if (candidate.participantIds.length === 0) return null;
  // Driven from the participants' anchor index: only events that share a participant and sit
  // within the window are read, however many events an entity is named in. The fences (OFFSET
  // 0, the LATERAL) keep that order when the statistics lag behind a growing table: planned on
  // those of a nearly empty one, a join walked every live event of the type instead.
  return {
    sql: `SELECT e.id
       FROM (SELECT DISTINCT p.event_id FROM event_participants p
              WHERE p.entity_id = ANY($2::uuid[])
                AND p.anchor BETWEEN $3::timestamptz - make_interval(secs => $4 * 86400) AND $3::timestamptz + make_interval(secs => $4 * 86400)
             OFFSET 0) AS near
      CROSS JOIN LATERAL (
        SELECT e.id, e.first_report_date FROM events e
         WHERE e.id = near.event_id AND e.event_type_id = $1
           AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
           AND NOT ${namesOthers('$5', '$6')}
        OFFSET 0) AS e
      ORDER BY e.first_report_date DESC, e.id DESC
      LIMIT 1`,
    params: [
      candidate.eventTypeId,
      candidate.participantIds,
      candidate.anchor,
      CLUSTER_WINDOW_DAYS,
      candidate.namedRoles.map((role) => role.roleId),
      candidate.namedRoles.map((role) => role.entityId),
    ],
  };
}

/** Days already read, by happened_at: a load reads each report's several times (to cluster it, then for each state of its event). */
const daysRead = new Map<string, string | null>();
const DAYS_KEPT = 10_000;

/** A date-like happened_at ("2026-11-20", "2026-11-20T08:00:00Z") as a UTC day, else null. */
export function readHappenedOn(happenedAt: string | null | undefined): string | null {
  if (!happenedAt) return null;
  const known = daysRead.get(happenedAt);
  if (known !== undefined) return known;
  const day = dayOf(happenedAt);
  if (daysRead.size >= DAYS_KEPT) daysRead.clear();
  daysRead.set(happenedAt, day);
  return day;
}

function dayOf(happenedAt: string): string | null {
  const match = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(happenedAt.trim());
  if (!match || !isRealDate(match[1]!)) return null; // Date would roll 02-30 over to 03-02
  const instant = new Date(match[1] === happenedAt.trim() ? `${match[1]}T00:00:00Z` : happenedAt.trim());
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString().slice(0, 10);
}
