// An event's entities as filters, matching and the search index read them (migration 040):
// the event row's involved_entity_ids through their live survivors, each a participant when
// it has a row in event_participants. An entity's merge or deletion moves or drops the
// participant rows at once; the event row keeps the merged or deleted id until the refresh job
// recomputes the event, so every read goes through the survivor.

/** SQL of the id of entity row `ent`'s canonical entity while that one is live (null: deleted). */
const liveCanonicalOf = (ent: string) => `(SELECT c.id FROM entities c WHERE c.id = ${ent}.canonical_id AND c.deleted_at IS NULL)`;

/**
 * SQL of the live survivors (column `entity_id`, once each) of the entities event `e` (an
 * alias of `events`) involves; no row for an event merged away or deleted. Most entities are
 * their own live survivor: one look-up each.
 */
export const indexedEntityIds = (e: string) => `SELECT DISTINCT s.id AS entity_id
    FROM unnest(${e}.involved_entity_ids) AS x(id)
    JOIN entities ent ON ent.id = x.id
   CROSS JOIN LATERAL (SELECT CASE WHEN ent.canonical_id = ent.id THEN CASE WHEN ent.deleted_at IS NULL THEN ent.id END
                                   ELSE ${liveCanonicalOf('ent')} END AS id) AS s
   WHERE s.id IS NOT NULL AND ${e}.merged_into_event_id IS NULL AND ${e}.deleted_at IS NULL`;

/**
 * SQL of the entities that are not their own live survivor (merged into another, or deleted),
 * each with its live survivor (`survivor`, null: none): few, on a partial index (migration 040).
 * The survivor is looked up per row: the planner, which cannot count the index's rows, would
 * hash every entity for a join.
 */
export const ENTITIES_NOT_SURVIVORS = `SELECT ent.id, ${liveCanonicalOf('ent')} AS survivor
    FROM entities ent WHERE ent.canonical_id <> ent.id OR ent.deleted_at IS NOT NULL`;

/** indexedEntityIds in code: these entity ids through their live survivors (`survivorOf`: ENTITIES_NOT_SURVIVORS' rows), once each. */
export function liveSurvivors(entityIds: readonly string[], survivorOf: ReadonlyMap<string, string | null>): Set<string> {
  const live = new Set<string>();
  for (const id of entityIds) {
    const survivor = survivorOf.has(id) ? survivorOf.get(id)! : id;
    if (survivor !== null) live.add(survivor);
  }
  return live;
}

/** indexedEntityIds' rows with `participant`: whether the entity fills a role in event `e`'s reports. */
export const indexedEntities = (e: string) => `SELECT i.entity_id,
         EXISTS (SELECT 1 FROM event_participants p WHERE p.event_id = ${e}.id AND p.entity_id = i.entity_id) AS participant
    FROM (${indexedEntityIds(e)}) AS i`;

/**
 * SQL of the ids of the events (live or not: the caller keeps to live ones) that involve one
 * of `ids` (an SQL array of live survivors' ids): as a participant (its rows name survivors),
 * or mentioned by a report, itself or through an alias merged into it. Both on indexes that
 * no update of an event touches (the participants' by entity, the reports' GIN of
 * mention_ids), so an event's updates stay on their page (HOT) when its entities change.
 * UNION ALL (an event may come twice): the planner may then check a few candidate events one
 * by one, each on the tables' event indexes, instead of reading every event of the entity.
 */
export const eventsInvolving = (ids: string) => `SELECT p.event_id FROM event_participants p WHERE p.entity_id = ANY(${ids})
   UNION ALL
  SELECT r.event_id FROM reports r WHERE r.mention_ids && ARRAY(SELECT ent.id FROM entities ent WHERE ent.canonical_id = ANY(${ids}))`;
