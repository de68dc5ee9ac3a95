// Resolves the entity references of a filter against the database.
import type { Queryable } from '../../platform/db/database.js';
import { compileFilter, type CompiledFilter, type EntityResolver, type EventFilter } from './filter.js';

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

/**
 * A resolver answering from two queries made up front, for compiling many filters at once:
 * every id and list the filters name is looked up together.
 */
export async function preloadedEntityResolver(db: Queryable, ids: readonly string[], listIds: readonly string[]): Promise<EntityResolver> {
  const live = databaseEntityResolver(db);
  const members =
    listIds.length === 0
      ? []
      : await db.query<{ list_id: string; entity_id: string }>('SELECT list_id, entity_id FROM entity_list_members WHERE list_id = ANY($1::uuid[])', [listIds]);
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

/** Compiles many saved filters (sensor filters, beat clauses) with one preloaded resolver. */
export async function compileAll(db: Queryable, filters: readonly EventFilter[]): Promise<CompiledFilter[]> {
  const roleEntities = (f: EventFilter) => f.role_filters.flatMap((rf) => (rf.kind === 'entity_in' ? (rf.canonical_ids ?? []) : []));
  const roleLists = (f: EventFilter) => f.role_filters.flatMap((rf) => (rf.kind === 'entity_in' ? (rf.entity_list_ids ?? []) : []));
  const ids = new Set(filters.flatMap((f) => [...f.involved_entity_ids, ...f.represented_entity_ids, ...roleEntities(f)]));
  const lists = new Set(filters.flatMap((f) => [...f.involved_entity_list_ids, ...f.represented_entity_list_ids, ...roleLists(f)]));
  const resolver = await preloadedEntityResolver(db, [...ids], [...lists]);
  const compiled: CompiledFilter[] = [];
  for (const filter of filters) compiled.push(await compileFilter(filter, resolver));
  return compiled;
}
