// Event types with their roles, kept in memory per process for ingest, which needs them for
// every report. Exact, not merely fresh: the caller reads the type's version (migration 015:
// it moves with every change to the type or its roles, in the changing transaction) in its
// own transaction, and a type held at another version is read again there. So an ingest
// never uses roles older than what had committed when its transaction began, whichever
// process changed them. No LISTEN connection: the version rides on a statement the ingest
// runs anyway.
import type { Queryable } from '../../platform/db/database.js';
import { referenceStore, type EventTypeWithRoles } from './reference.store.js';

export function eventTypeCache() {
  const held = new Map<string, EventTypeWithRoles>();
  return {
    /**
     * The type `id` at `version` (as the caller's transaction read it; null: no such type), or
     * newer. A type read again is held at the version read with it: roles read after it may be
     * newer still, which only makes the next caller read them once more.
     */
    async get(tx: Queryable, id: string, version: number | null): Promise<EventTypeWithRoles | null> {
      if (version === null) return null;
      const hit = held.get(id);
      if (hit && hit.type.version === version) return hit;
      const read = (await referenceStore.eventTypesWithRoles(tx, [id])).get(id) ?? null;
      if (read) held.set(id, read);
      else held.delete(id);
      return read;
    },
  };
}

export type EventTypeCache = ReturnType<typeof eventTypeCache>;
