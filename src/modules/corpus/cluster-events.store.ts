// SQL for the reads of a bulk ingest's clustering (article-batch.ts): the corpus events a batch
// can reach and what clustering reads of them. Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import { ENTITIES_NOT_SURVIVORS } from './event-entities.js';
import type { EventRow } from './events.store.js';

/** One (type, participant) pair of a batch and the stretch of window anchors its reports reach (ms). */
export interface ReachPair {
  typeId: string;
  entityId: string;
  from: number;
  to: number;
}

export type EventFate = Pick<EventRow, 'id' | 'event_type_id' | 'merged_into_event_id' | 'deleted_at'>;

/** An event as clustering reads it: its fate, first report date, happened_on, and the report that gave its happened_at. */
export type ClusterEventRow = EventFate & {
  first_report_date: Date;
  happened_on: string | null;
  happened_from_date: Date | null;
  happened_from_id: string | null;
};

export const clusterEventsStore = {
  /**
   * The live events of each pair's type that have its entity as a participant with a window
   * anchor in the pair's stretch. On the participants' anchor index, as clusterQuery's is: per
   * pair, only the events around its reports' anchors are read, however many events its entity
   * is named in. (OFFSET 0 keeps each lookup per pair: joined as sets, a planner with lagging
   * statistics may hash whole tables.)
   */
  async reachedEvents(tx: Queryable, pairs: readonly ReachPair[]): Promise<string[]> {
    if (pairs.length === 0) return [];
    const rows = await tx.query<{ id: string }>(
      `SELECT DISTINCT reached.id
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS p(entity_id, type_id, reach_from, reach_to)
         CROSS JOIN LATERAL (
           SELECT e.id FROM event_participants ep JOIN events e ON e.id = ep.event_id
            WHERE ep.entity_id = p.entity_id AND ep.anchor BETWEEN p.reach_from AND p.reach_to
              AND e.event_type_id = p.type_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL
           OFFSET 0) reached`,
      [pairs.map((p) => p.entityId), pairs.map((p) => p.typeId), pairs.map((p) => new Date(p.from)), pairs.map((p) => new Date(p.to))],
    );
    return rows.map((row) => row.id);
  },

  /** The events these ids name, each with the event it was merged into (if any). */
  namedEvents(tx: Queryable, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx.query<{ id: string; merged_into_event_id: string | null }>('SELECT id, merged_into_event_id FROM events WHERE id = ANY($1::uuid[])', [ids]);
  },

  /** These events as clustering reads them (the caller holds their rows locked). */
  clusterEvents(tx: Queryable, ids: readonly string[]) {
    return tx.query<ClusterEventRow>(
      `SELECT e.id, e.event_type_id, e.merged_into_event_id, e.deleted_at, e.first_report_date, to_char(e.happened_on, 'YYYY-MM-DD') AS happened_on,
              h.report_date AS happened_from_date, h.id AS happened_from_id
         FROM events e
         LEFT JOIN LATERAL (SELECT r.report_date, r.id FROM reports r WHERE r.event_id = e.id AND r.happened_at IS NOT NULL
                             ORDER BY r.report_date, r.id LIMIT 1) h ON true
        WHERE e.id = ANY($1::uuid[])`,
      [ids],
    );
  },

  /** The participants (canonical entities in roles) of these events. */
  participantsOf(tx: Queryable, ids: readonly string[]) {
    return tx.query<{ event_id: string; entity_id: string }>('SELECT event_id, entity_id FROM event_participants WHERE event_id = ANY($1::uuid[])', [ids]);
  },

  /**
   * The entities each role of these events names, as live survivors (what the search index
   * holds); the values of every event given, live or not (clustering compares live ones only).
   * Each (event, role, entity) is read once from the reports; an entity stands for itself unless
   * the partial index of entities that are not their own live survivor (few) holds it. At ten
   * million events' density a batch reaches about 9,000 events naming 16,000 entities: 0.3 to
   * 0.4 s a batch through roleValuesWhere, which looked up every entity, 0.14 to 0.21 s this way
   * (bench/RESULTS.md, "eleventh step"). Duplicates a merge makes are left to the caller's sets.
   */
  roleEntitiesOf(tx: Queryable, ids: readonly string[]) {
    return tx.query<{ event_id: string; role_id: string; entity_id: string }>(
      `WITH v AS MATERIALIZED (
         SELECT DISTINCT r.event_id, rr.role_number, rr.entity_id
           FROM reports r CROSS JOIN LATERAL unnest(r.role_numbers, r.role_entity_ids) AS rr(role_number, entity_id)
          WHERE r.event_id = ANY($1::uuid[]) AND rr.entity_id IS NOT NULL
       ), moved AS MATERIALIZED (
         SELECT m.id, m.survivor FROM (${ENTITIES_NOT_SURVIVORS}) AS m WHERE m.id IN (SELECT entity_id FROM v)
       )
       SELECT v.event_id, role.id AS role_id, s.entity_id
         FROM v LEFT JOIN moved ON moved.id = v.entity_id
         JOIN event_type_roles role ON role.number = v.role_number
        CROSS JOIN LATERAL (SELECT CASE WHEN moved.id IS NULL THEN v.entity_id ELSE moved.survivor END AS entity_id) AS s
        WHERE s.entity_id IS NOT NULL`,
      [ids],
    );
  },
};
