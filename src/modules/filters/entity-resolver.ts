// Resolves the entity references of a filter against the database.
import type { Queryable } from '../../platform/db/database.js';
import type { EntityResolver } from './filter.js';

export function databaseEntityResolver(db: Queryable): EntityResolver {
  return {
    async canonical(ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.query<{ id: string; canonical_id: string }>(
        `SELECT e.id, c.id AS canonical_id FROM entities e JOIN entities c ON c.id = e.canonical_id
          WHERE e.id = ANY($1::uuid[]) AND c.deleted_at IS NULL`,
        [ids],
      );
      return new Map(rows.map((r) => [r.id, r.canonical_id]));
    },
    async listMembers(listIds) {
      const rows = await db.query<{ entity_id: string }>('SELECT entity_id FROM entity_list_members WHERE list_id = ANY($1::uuid[])', [listIds]);
      return rows.map((r) => r.entity_id);
    },
  };
}

/** Of these entity lists, those the account may use: its own and public ones. */
export async function usableEntityLists(db: Queryable, listIds: readonly string[], accountId: string): Promise<Set<string>> {
  if (listIds.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM entity_lists WHERE id = ANY($1::uuid[]) AND (owner_account_id IS NULL OR owner_account_id = $2)',
    [listIds, accountId],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * A resolver answering from two queries made up front, for compiling many filters at once:
 * every id and list the filters name is looked up together.
 */
export async function preloadedEntityResolver(db: Queryable, ids: readonly string[], listIds: readonly string[]): Promise<EntityResolver> {
  const live = databaseEntityResolver(db);
  const members = listIds.length === 0 ? [] : await db.query<{ list_id: string; entity_id: string }>(
    'SELECT list_id, entity_id FROM entity_list_members WHERE list_id = ANY($1::uuid[])',
    [listIds],
  );
  const canonical = await live.canonical([...new Set([...ids, ...members.map((m) => m.entity_id)])]);
  return {
    async canonical(wanted) {
      return new Map(wanted.flatMap((id) => (canonical.has(id) ? [[id, canonical.get(id)!] as const] : [])));
    },
    async listMembers(wanted) {
      const lists = new Set(wanted);
      return members.filter((m) => lists.has(m.list_id)).map((m) => m.entity_id);
    },
  };
}
