// May this account use the entity lists a filter names? Its own lists and public ones, no
// others. Found once here; each caller answers a refusal as its contract says (event search:
// 400 with a pointer per reference; sensors and beats: 422 entity-list-inaccessible).
import type { Queryable } from '../../platform/db/database.js';
import { ProblemError } from '../../platform/problems.js';
import type { RoleFilter } from './filter.js';

/** One place a filter names an entity list: where (a JSON Pointer into the body) and which. */
export interface EntityListReference {
  pointer: string;
  id: string;
}

/** The members of a filter (as sent, or saved) that may name entity lists. */
interface NamesEntityLists {
  involved_entity_list_ids?: readonly string[] | null;
  represented_entity_list_ids?: readonly string[] | null;
  role_filters?: readonly RoleFilter[] | null;
}

/** Every entity list the filter names, in body order, each with its pointer under `at`. */
export function entityListReferences(filter: NamesEntityLists, at: string): EntityListReference[] {
  const under = (member: string, ids: readonly string[] | null | undefined) => (ids ?? []).map((id, i) => ({ pointer: `${at}/${member}/${i}`, id }));
  return [
    ...under('involved_entity_list_ids', filter.involved_entity_list_ids),
    ...under('represented_entity_list_ids', filter.represented_entity_list_ids),
    ...(filter.role_filters ?? []).flatMap((rf, i) => (rf.kind === 'entity_in' ? under(`role_filters/${i}/entity_list_ids`, rf.entity_list_ids) : [])),
  ];
}

/** The references to lists the account may not use (missing ones included), in the order given. */
export async function unusableEntityLists(db: Queryable, accountId: string, refs: readonly EntityListReference[]): Promise<EntityListReference[]> {
  const ids = [...new Set(refs.map((ref) => ref.id))];
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM entity_lists WHERE id = ANY($1::uuid[]) AND (owner_account_id IS NULL OR owner_account_id = $2)',
    [ids, accountId],
  );
  const usable = new Set(rows.map((row) => row.id));
  return refs.filter((ref) => !usable.has(ref.id));
}

/** The 422 of saved filters (sensors, beats): names each refused list once. */
export function entityListsInaccessible(refused: readonly EntityListReference[]): ProblemError {
  const ids = [...new Set(refused.map((ref) => ref.id))];
  return new ProblemError('entity-list-inaccessible', `This account cannot use the entity list${ids.length > 1 ? 's' : ''} ${ids.join(', ')}.`);
}
