// A process's compiled saved filters (sensor filters, beat clauses), kept in memory and built
// again when a filter version they depend on moved: the filters themselves were written, or
// an entity was merged or deleted (filters resolve entity ids to survivors).
import type { Queryable } from '../../platform/db/database.js';
import { readFilterVersions, type FilterVersionName } from '../corpus/filter-versions.store.js';

export interface FilterIndexCache<T> {
  /** An index at least as new as the versions committed when it was called. */
  current(): Promise<T>;
}

export function filterIndexCache<T>(db: Queryable, versions: readonly FilterVersionName[], build: () => Promise<T>): FilterIndexCache<T> {
  let latest: { version: string; index: T } | null = null;
  let building: Promise<{ version: string; index: T }> | null = null;
  const read = () => readFilterVersions(db, versions);

  return {
    // A build reads the versions before the filters, so what it loads is as new as its
    // version; a caller that saw a newer version than a build in progress waits for that
    // build and then builds again.
    async current() {
      for (;;) {
        const version = await read();
        if (latest?.version === version) return latest.index;
        building ??= read()
          .then(async (seen) => (latest = { version: seen, index: await build() }))
          .finally(() => (building = null));
        const built = await building;
        if (built.version === version) return built.index;
      }
    },
  };
}
