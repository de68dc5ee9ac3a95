// Maps of sets, grown one value at a time (clustering's indexes, the search index's facts).

/** Adds `value` to the set under `key`, made when missing. */
export function addTo<K, V>(sets: Map<K, Set<V>>, key: K, value: V): void {
  const set = sets.get(key);
  if (set) set.add(value);
  else sets.set(key, new Set([value]));
}
