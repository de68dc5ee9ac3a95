// SQL for the corpus reference data. Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { bumpFilterVersion } from './filter-versions.store.js';

export interface EntityRow {
  id: string;
  name: string;
  type: string | null;
  canonical_id: string;
  merged_into: string | null;
  deleted_at: Date | null;
}

export interface EventTypeRow {
  id: string;
  code_name: string;
  name: string;
  description: string;
  sentence_template: string;
  accepting_reports: boolean;
  /** Moves with every change to the type or its roles (migration 015). */
  version: number;
}

export interface RoleRow {
  id: string;
  event_type_id: string;
  code_name: string;
  name: string;
  expected_type: string | null;
  position: number;
  /** Its number, by which reports name it (migration 039): unique across event types, never reused. */
  number: number;
}

/** An event type with its roles, as those who check a filter or a report against it need them. */
export interface EventTypeWithRoles {
  type: EventTypeRow;
  /** Its current roles, in their order. */
  roles: RoleRow[];
  /** The code names of every role it has or had: a saved filter may name a role removed since. */
  codeNames: ReadonlySet<string>;
}

const ENTITY_COLUMNS = 'id, name, type, canonical_id, merged_into, deleted_at';

/** An entity with its survivor's row as read under the survivor's share lock. */
export interface LockedSurvivor {
  id: string;
  canonical_id: string;
  name: string;
  deleted: boolean;
  /** False when the survivor was merged away before the lock was had: look it up again. */
  survivor: boolean;
}

/**
 * FROM items giving `e` (id, canonical_id) for each entity of the uuid[] parameter `ids`, each
 * looked up by its key (OFFSET 0 keeps the planner from it). A bulk batch names thousands of
 * entities, for which a planner reading the table's statistics chose to scan every entity
 * twice and join them by hash: 0.3 s a batch at 276,000 entities, where the look-ups take 0.04 s.
 */
export const entitiesByKey = (ids: string) =>
  `(SELECT DISTINCT id FROM unnest(${ids}::uuid[]) AS u (id)) AS x
   CROSS JOIN LATERAL (SELECT e.id, e.canonical_id FROM entities e WHERE e.id = x.id OFFSET 0) AS e`;

/**
 * The entities of the uuid[] parameter `ids` with their survivors, whose rows it share-locks
 * in id order: one statement, the lock re-reading the survivor's row as it is once held (a
 * survivor merged meanwhile then shows `survivor` false; deleted meanwhile, `deleted`).
 */
export const lockedSurvivors = (ids: string) =>
  `SELECT e.id, c.id AS canonical_id, c.name, c.deleted_at IS NOT NULL AS deleted, c.canonical_id = c.id AS survivor
     FROM ${entitiesByKey(ids)} JOIN entities c ON c.id = e.canonical_id
    ORDER BY c.id FOR SHARE OF c`;

const EVENT_TYPE_COLUMNS = 'id, code_name, name, description, sentence_template, accepting_reports, version';
const ROLE_COLUMNS = 'id, event_type_id, code_name, name, expected_type, position, number';

export const referenceStore = {
  insertOutlet(db: Queryable, row: { id: string; name: string; domain: string | null; created_at: Date }) {
    return queryOne<{ id: string; name: string; domain: string | null }>(
      db,
      'INSERT INTO news_outlets (id, name, domain, created_at) VALUES ($1, $2, $3, $4) RETURNING id, name, domain',
      [row.id, row.name, row.domain, row.created_at],
    );
  },

  /** Outlets newest first (ids are time-ordered), after `afterId`; `query`: a substring of the name or domain, any case. */
  outlets(db: Queryable, query: string | null, limit: number, afterId: string | null) {
    // Case is folded by the database on both sides (JavaScript's folding differs for a few letters).
    const pattern = query === null ? null : `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return db.query<{ id: string; name: string; domain: string | null }>(
      `SELECT id, name, domain FROM news_outlets
        WHERE ($1::text IS NULL OR lower(name) LIKE lower($1) OR lower(domain) LIKE lower($1)) AND ($3::uuid IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $2`,
      [pattern, limit, afterId],
    );
  },

  insertEntity(db: Queryable, row: { id: string; name: string; type: string | null; created_at: Date }) {
    return queryOne<EntityRow>(db, `INSERT INTO entities (id, name, type, canonical_id, created_at) VALUES ($1, $2, $3, $1, $4) RETURNING ${ENTITY_COLUMNS}`, [
      row.id,
      row.name,
      row.type,
      row.created_at,
    ]);
  },

  bulkInsertOutlets(db: Queryable, rows: readonly { id: string; name: string; domain: string | null }[], at: Date) {
    return db.query(
      'INSERT INTO news_outlets (id, name, domain, created_at) SELECT id, name, domain, $4 FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(id, name, domain)',
      [rows.map((r) => r.id), rows.map((r) => r.name), rows.map((r) => r.domain), at],
    );
  },

  bulkInsertEntities(db: Queryable, rows: readonly { id: string; name: string; type: string | null }[], at: Date) {
    return db.query(
      `INSERT INTO entities (id, name, type, canonical_id, created_at)
       SELECT id, name, type, id, $4 FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(id, name, type)`,
      [rows.map((r) => r.id), rows.map((r) => r.name), rows.map((r) => r.type), at],
    );
  },

  getEntity(db: Queryable, id: string, forUpdate = false) {
    return queryOne<EntityRow>(db, `SELECT ${ENTITY_COLUMNS} FROM entities WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  },

  /** Entities by id, with their canonical survivor's row. */
  resolveEntities(db: Queryable, ids: readonly string[]) {
    return db.query<{ id: string; canonical_id: string; name: string; type: string | null; deleted: boolean }>(
      `SELECT e.id, c.id AS canonical_id, c.name, c.type, c.deleted_at IS NOT NULL AS deleted
         FROM ${entitiesByKey('$1')} JOIN entities c ON c.id = e.canonical_id`,
      [ids],
    );
  },

  /**
   * Resolves entities to their survivors and holds the survivors (share locks, taken in id
   * order) until the transaction ends, so a merge or deletion of one waits for it and then
   * sees what it wrote. A survivor merged between the look-up and the lock is looked up again.
   */
  async resolveEntitiesLocked(db: Queryable, ids: readonly string[]): Promise<LockedSurvivor[]> {
    for (;;) {
      const rows = await db.query<LockedSurvivor>(lockedSurvivors('$1'), [ids]);
      if (rows.every((row) => row.survivor)) return rows;
    }
  },

  /** Points every entity whose survivor was `from` (itself included) at `to`. */
  async mergeEntity(db: Queryable, from: string, to: string) {
    await db.query('UPDATE entities SET canonical_id = $2 WHERE canonical_id = $1', [from, to]);
    await bumpFilterVersion(db, 'entities'); // saved filters naming `from` now mean `to`
    await db.query('UPDATE entities SET merged_into = $2 WHERE id = $1', [from, to]);
    // The participant rows follow (the events' rows read their entities through survivors,
    // event-entities.ts): the survivor takes over the merged entity's events, which the caller
    // holds locked (no other writer adds the survivor's rows meanwhile, migration 035). Where
    // both take part in an event, the survivor's row stays.
    await db.query(
      `UPDATE event_participants merged SET entity_id = $2
        WHERE merged.entity_id = $1 AND NOT EXISTS (SELECT 1 FROM event_participants p WHERE p.event_id = merged.event_id AND p.entity_id = $2)`,
      [from, to],
    );
    await db.query('DELETE FROM event_participants WHERE entity_id = $1', [from]);
  },

  async deleteEntity(db: Queryable, id: string, at: Date) {
    await db.query('UPDATE entities SET deleted_at = $2 WHERE id = $1', [id, at]);
    await bumpFilterVersion(db, 'entities');
    await db.query('DELETE FROM event_participants WHERE entity_id = $1', [id]);
  },

  /**
   * Live entities whose name contains `query`, case-insensitively, ranked (names starting with
   * it first, then shorter names, then id), after the entity `afterId`. Ranks are computed by
   * PostgreSQL alone, for the anchor too, so pages neither repeat nor skip.
   */
  searchEntities(db: Queryable, query: string, limit: number, afterId: string | null) {
    const escaped = query.replace(/[\\%_]/g, (c) => `\\${c}`);
    return db.query<{ id: string; name: string; type: string | null }>(
      `WITH ranked AS (
         SELECT id, name, type, CASE WHEN lower(name) LIKE lower($1) || '%' THEN 0 ELSE 1 END AS rank, length(name) AS length
           FROM entities
          WHERE merged_into IS NULL AND deleted_at IS NULL AND lower(name) LIKE '%' || lower($1) || '%'
       ), anchor AS (
         SELECT CASE WHEN lower(name) LIKE lower($1) || '%' THEN 0 ELSE 1 END AS rank, length(name) AS length, id
           FROM entities WHERE id = $3::uuid
       )
       SELECT id, name, type FROM ranked
        WHERE $3::uuid IS NULL OR (rank, length, id) > (SELECT rank, length, id FROM anchor)
        ORDER BY rank, length, id
        LIMIT $2`,
      [escaped, limit, afterId],
    );
  },

  insertEntityList(db: Queryable, row: { id: string; name: string; owner_account_id: string | null; created_at: Date }, entityIds: readonly string[]) {
    return (async () => {
      await db.query('INSERT INTO entity_lists (id, name, owner_account_id, created_at) VALUES ($1, $2, $3, $4)', [
        row.id,
        row.name,
        row.owner_account_id,
        row.created_at,
      ]);
      if (entityIds.length > 0) {
        await db.query(
          `INSERT INTO entity_list_members (list_id, entity_id, position)
           SELECT $1, entity_id, position FROM unnest($2::uuid[]) WITH ORDINALITY AS t(entity_id, position)
           ON CONFLICT DO NOTHING`,
          [row.id, entityIds],
        );
      }
    })();
  },

  eventTypeByCode(db: Queryable, codeName: string) {
    return queryOne<EventTypeRow>(db, `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE code_name = $1`, [codeName]);
  },

  getEventType(db: Queryable, id: string, forUpdate = false) {
    return queryOne<EventTypeRow>(db, `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  },

  insertEventType(db: Queryable, row: Omit<EventTypeRow, 'version'> & { at: Date }) {
    return db.query(
      `INSERT INTO event_types (id, code_name, name, description, sentence_template, accepting_reports, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [row.id, row.code_name, row.name, row.description, row.sentence_template, row.accepting_reports, row.at],
    );
  },

  updateEventType(db: Queryable, row: Omit<EventTypeRow, 'version'> & { at: Date }) {
    return db.query(`UPDATE event_types SET name = $2, description = $3, sentence_template = $4, accepting_reports = $5, updated_at = $6 WHERE id = $1`, [
      row.id,
      row.name,
      row.description,
      row.sentence_template,
      row.accepting_reports,
      row.at,
    ]);
  },

  /**
   * Does each of these event types exist, and what are its roles: the one question ingest,
   * search, sensors and beats ask of an event type. Answers the types found, by id; an id that
   * names no event type is absent.
   */
  async eventTypesWithRoles(db: Queryable, ids: readonly string[]): Promise<Map<string, EventTypeWithRoles>> {
    const found = new Map<string, EventTypeWithRoles>();
    if (ids.length === 0) return found;
    const types = await db.query<EventTypeRow>(`SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE id = ANY($1::uuid[])`, [ids]);
    if (types.length === 0) return found;
    const roles = await db.query<RoleRow & { removed: boolean }>(
      `SELECT ${ROLE_COLUMNS}, removed_at IS NOT NULL AS removed FROM event_type_roles WHERE event_type_id = ANY($1::uuid[]) ORDER BY event_type_id, position`,
      [types.map((type) => type.id)],
    );
    for (const type of types) {
      const own = roles.filter((role) => role.event_type_id === type.id);
      found.set(type.id, {
        type,
        roles: own.filter((role) => !role.removed).map(({ removed: _removed, ...role }) => role),
        codeNames: new Set(own.map((role) => role.code_name)),
      });
    }
    return found;
  },

  /** The code names of an event type's roles, removed ones too (null: no such type), in one statement. */
  async roleCodeNames(db: Queryable, eventTypeId: string): Promise<Set<string> | null> {
    const [row] = await db.query<{ codes: string[] }>(
      'SELECT array(SELECT r.code_name FROM event_type_roles r WHERE r.event_type_id = t.id) AS codes FROM event_types t WHERE t.id = $1::uuid',
      [eventTypeId],
    );
    return row ? new Set(row.codes) : null;
  },

  /** Current roles of event types, in their order. */
  rolesOf(db: Queryable, eventTypeIds: readonly string[]) {
    return db.query<RoleRow>(
      `SELECT ${ROLE_COLUMNS} FROM event_type_roles WHERE event_type_id = ANY($1::uuid[]) AND removed_at IS NULL ORDER BY event_type_id, position`,
      [eventTypeIds],
    );
  },

  /** The numbers of these roles (migration 039), removed ones too, by role id. */
  async roleNumbers(db: Queryable, roleIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await db.query<{ id: string; number: number }>('SELECT id, number FROM event_type_roles WHERE id = ANY($1::uuid[])', [roleIds]);
    return new Map(rows.map((row) => [row.id, row.number]));
  },

  /** Replaces an event type's current roles: kept ones are updated in place, others removed (a role's number is the database's). */
  async replaceRoles(db: Queryable, eventTypeId: string, roles: readonly Omit<RoleRow, 'number'>[], at: Date) {
    await db.query(`UPDATE event_type_roles SET removed_at = $2 WHERE event_type_id = $1 AND removed_at IS NULL AND NOT (id = ANY($3::uuid[]))`, [
      eventTypeId,
      at,
      roles.map((r) => r.id),
    ]);
    // Current code names step aside first, so kept roles can swap code names without tripping
    // the unique index on (event type, code name) midway.
    await db.query(`UPDATE event_type_roles SET code_name = '~' || id::text WHERE event_type_id = $1 AND removed_at IS NULL`, [eventTypeId]);
    for (const role of roles) {
      await db.query(
        `INSERT INTO event_type_roles (id, event_type_id, code_name, name, expected_type, position)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET code_name = EXCLUDED.code_name, name = EXCLUDED.name,
           expected_type = EXCLUDED.expected_type, position = EXCLUDED.position`,
        [role.id, eventTypeId, role.code_name, role.name, role.expected_type, role.position],
      );
    }
  },

  /**
   * The names of these event types, entities, entity lists and outlets, and of the roles of
   * these event types (keyed "event type id:role code name"), to show saved filters in words.
   * Entity lists only where the account may use them (its own or public): a list given to
   * another owner since the filter was saved is not named to this account.
   */
  namesOf(
    db: Queryable,
    accountId: string,
    ids: { eventTypes: readonly string[]; entities: readonly string[]; entityLists: readonly string[]; outlets: readonly string[] },
  ) {
    return db.query<{ kind: 'event_type' | 'role' | 'entity' | 'entity_list' | 'outlet'; key: string; name: string }>(
      `SELECT 'event_type' AS kind, id::text AS key, name FROM event_types WHERE id = ANY($1::uuid[])
       UNION ALL SELECT 'role', event_type_id::text || ':' || code_name, name FROM event_type_roles WHERE event_type_id = ANY($1::uuid[]) AND removed_at IS NULL
       UNION ALL SELECT 'entity', id::text, name FROM entities WHERE id = ANY($2::uuid[])
       UNION ALL SELECT 'entity_list', id::text, name FROM entity_lists WHERE id = ANY($3::uuid[]) AND (owner_account_id IS NULL OR owner_account_id = $5)
       UNION ALL SELECT 'outlet', id::text, name FROM news_outlets WHERE id = ANY($4::uuid[])`,
      [ids.eventTypes, ids.entities, ids.entityLists, ids.outlets, accountId],
    );
  },

  acceptingEventTypes(db: Queryable) {
    return db.query<EventTypeRow>(`SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE accepting_reports ORDER BY code_name, id`);
  },

  accountExists(db: Queryable, id: string) {
    return queryOne<{ id: string }>(db, 'SELECT id FROM accounts WHERE id = $1', [id]);
  },
};
