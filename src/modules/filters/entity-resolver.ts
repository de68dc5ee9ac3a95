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
