// The matching face of the filter vocabulary: which of many saved filters one changed event
// now satisfies, without looking at them all. Filters are indexed by what narrows them most:
// their wanted entities, else their event type, else their outlets; an event looks up only
// the entries of its own entities, type and outlets, and checks those candidates in full.
import { foldUnit, type CompiledFilter, type CompiledRoleFilter, type RoleValueTest } from './filter.js';
import type { EventFacts, EventKeys, ReportFacts, RoleValueFacts } from './event-facts.js';
import { independentSourceCount } from '../corpus/independent-sources.js';

/** Does the event satisfy the filter? (The full check, for one candidate.) */
export function matchesFilter(filter: CompiledFilter, event: EventFacts): boolean {
  if (!event.live) return false;
  if (filter.eventTypeId !== null && filter.eventTypeId !== event.eventTypeId) return false;
  if (filter.entities !== null) {
    const pool = filter.scope === 'PARTICIPANT' ? event.participants : event.involved;
    if (!someIn(filter.entities, pool)) return false;
  }
  const counted = event.reports.filter((report) => counts(filter, report));
  if (filter.outlets !== null && !counted.some((r) => r.outletId !== null && filter.outlets!.has(r.outletId))) return false;
  if (new Set(counted.map((r) => r.sourceId)).size < filter.minReports) return false;
  if (filter.minIndependent > 1 && independentSourceCount(counted) < filter.minIndependent) return false;
  return filter.roleFilters.every((rf) => counted.some((report) => report.values.some((value) => roleFilterHolds(rf, value))));
}

/** Do the role's filters all hold for this one value? */
function roleFilterHolds(rf: CompiledRoleFilter, value: RoleValueFacts): boolean {
  return value.role === rf.role && rf.tests.every((test) => testHolds(test, value));
}

/** Which reports a filter counts, by its report source kind. */
function counts(filter: CompiledFilter, report: ReportFacts): boolean {
  switch (filter.sourceKind) {
    case 'ANY':
      return true;
    case 'ARTICLES_ONLY':
      return report.sourceKind === 'ARTICLE';
    case 'USER_REPORTS_ONLY':
      return report.sourceKind === 'STRUCTURED';
    case 'REPRESENTED_ONLY':
      return report.sourceKind === 'STRUCTURED' && filter.represented !== null && someIn(filter.represented, report.represented);
  }
}

function testHolds(rf: RoleValueTest, value: RoleValueFacts): boolean {
  switch (rf.kind) {
    case 'amount':
      return (
        value.amount !== null && (rf.unit === null || foldUnit(value.amount.unit) === rf.unit) && value.amount.value >= rf.min && value.amount.value <= rf.max
      );
    case 'date':
      return value.dateMs !== null && value.dateMs > rf.afterMs && value.dateMs < rf.beforeMs;
    case 'entity_in':
      return value.entityId !== null && rf.entities.has(value.entityId);
  }
}

function someIn(wanted: ReadonlySet<string>, present: ReadonlySet<string>): boolean {
  const [small, large] = wanted.size <= present.size ? [wanted, present] : [present, wanted];
  for (const id of small) if (large.has(id)) return true;
  return false;
}

/**
 * Ids under one index key. Most keys (an entity) are named by one filter, so a lone id is kept
 * as itself rather than in a Set: with hundreds of thousands of saved filters, the Sets would
 * be most of the index's memory.
 */
type Bucket<Id> = Id | Set<Id>;

function addTo<Id>(map: Map<string, Bucket<Id>>, key: string, id: Id): void {
  const bucket = map.get(key);
  if (bucket === undefined) map.set(key, id);
  else if (bucket instanceof Set) bucket.add(id);
  else if (bucket !== id) map.set(key, new Set([bucket, id]));
}

function removeFrom<Id>(map: Map<string, Bucket<Id>>, key: string, id: Id): void {
  const bucket = map.get(key);
  if (bucket === id) map.delete(key);
  else if (bucket instanceof Set) {
    bucket.delete(id);
    if (bucket.size === 1) map.set(key, bucket.values().next().value as Id);
  }
}

function someKeyIn(map: ReadonlyMap<string, unknown>, keys: Iterable<string>): boolean {
  for (const key of keys) if (map.has(key)) return true;
  return false;
}

function eachIn<Id>(bucket: Bucket<Id> | undefined, visit: (id: Id) => void): void {
  if (bucket instanceof Set) bucket.forEach(visit);
  else if (bucket !== undefined) visit(bucket);
}

/** Saved filters indexed for matching one event at a time. */
export class FilterIndex<Id extends string = string> {
  private readonly filters = new Map<Id, CompiledFilter>();
  private readonly byEntity = new Map<string, Bucket<Id>>();
  private readonly byType = new Map<string, Bucket<Id>>();
  private readonly byOutlet = new Map<string, Bucket<Id>>();
  /** Filters that name no entity, type or outlet: candidates for every event. */
  private readonly unkeyed = new Set<Id>();

  get size(): number {
    return this.filters.size;
  }

  set(id: Id, filter: CompiledFilter): void {
    this.delete(id);
    this.filters.set(id, filter);
    for (const [map, key] of this.keysOf(filter)) {
      if (map === null) this.unkeyed.add(id);
      else addTo(map, key, id);
    }
  }

  delete(id: Id): void {
    const filter = this.filters.get(id);
    if (!filter) return;
    for (const [map, key] of this.keysOf(filter)) {
      if (map === null) this.unkeyed.delete(id);
      else removeFrom(map, key, id);
    }
    this.filters.delete(id);
  }

  /** The ids of the filters the event satisfies. */
  match(event: EventFacts): Id[] {
    return [...this.candidates(event)].filter((id) => matchesFilter(this.filters.get(id)!, event));
  }

  /** Does matching the event need its reports' role values (is it a candidate of a filter with role filters)? */
  wantsRoleValues = (event: EventFacts): boolean => {
    for (const id of this.candidates(event)) if (this.filters.get(id)!.roleFilters.length > 0) return true;
    return false;
  };

  /**
   * Could an event with these keys satisfy any filter (is it any filter's candidate)? null when
   * every live event is one (a filter names no entity, type or outlet): keys decide nothing.
   */
  get mayMatch(): ((keys: EventKeys) => boolean) | null {
    if (this.unkeyed.size > 0) return null;
    return (keys) => keys.live && (this.byType.has(keys.eventTypeId) || someKeyIn(this.byEntity, keys.involved) || someKeyIn(this.byOutlet, keys.outletIds));
  }

  /** Does `mayMatch` look at outlets (some filter is found by its outlets)? */
  get keyedByOutlet(): boolean {
    return this.byOutlet.size > 0;
  }

  /** The filters the event's entities, type and outlets name (with those that name none): the only ones it can satisfy. */
  private candidates(event: EventFacts): Set<Id> {
    const candidates = new Set<Id>();
    if (!event.live) return candidates;
    const add = (id: Id) => candidates.add(id);
    this.unkeyed.forEach(add);
    for (const entityId of event.involved) eachIn(this.byEntity.get(entityId), add);
    eachIn(this.byType.get(event.eventTypeId), add);
    for (const report of event.reports) if (report.outletId) eachIn(this.byOutlet.get(report.outletId), add);
    return candidates;
  }

  /** The index entries of a filter: its entities, else its type, else its outlets. */
  private keysOf(filter: CompiledFilter): [Map<string, Bucket<Id>> | null, string][] {
    if (filter.entities !== null) return [...filter.entities].map((id) => [this.byEntity, id] as [Map<string, Bucket<Id>>, string]);
    if (filter.eventTypeId !== null) return [[this.byType, filter.eventTypeId]];
    if (filter.outlets !== null) return [...filter.outlets].map((id) => [this.byOutlet, id] as [Map<string, Bucket<Id>>, string]);
    return [[null, '']];
  }
}
