// The one filter vocabulary of event search, sensors and beat clauses (v1 document: sensor
// filter, beat clause, event search request; decisions.md: "Event search", "Beats").
// This file holds its meaning, which four faces answer alike:
// - the SQL face, filter-sql.ts: queries over the whole corpus, which filtered-events.ts runs;
// - the matching face, matching.ts: one changed event against many saved filters;
// - the search index in memory, search/index/memory-index.ts: a search's count and newest
//   events without reading the database's rows;
// - the day counts, search/index/day-counts.ts: the widest searches (a type and min_reports
//   at most) counted by day.
// test/filters/filter-faces.test.ts holds the first three to one another on random filters;
// test/search/search-counts.test.ts holds the day counts (and the index's own day tallies) to
// the SQL face.
import { storableInstant } from '../../platform/instants.js';

export type ReportSourceKind = 'ANY' | 'ARTICLES_ONLY' | 'USER_REPORTS_ONLY' | 'REPRESENTED_ONLY';
export type EntityScope = 'MENTIONED' | 'PARTICIPANT';

export type RoleFilter =
  | { kind: 'amount_gte'; role_code_name: string; min_value: number; unit?: string }
  | { kind: 'amount_lte'; role_code_name: string; max_value: number; unit?: string }
  | { kind: 'date_after'; role_code_name: string; after_iso: string }
  | { kind: 'date_before'; role_code_name: string; before_iso: string }
  | { kind: 'entity_in'; role_code_name: string; canonical_ids?: string[]; entity_list_ids?: string[] };

/** A filter as saved or sent, ids as given (lists unexpanded, entities maybe merged away). */
export interface EventFilter {
  event_type_id: string | null;
  involved_entity_ids: string[];
  involved_entity_list_ids: string[];
  /** Beat clauses choose; search and sensors match MENTIONED. */
  scope: EntityScope;
  required_source_news_outlet_ids: string[];
  report_source_kind: ReportSourceKind;
  represented_entity_ids: string[];
  represented_entity_list_ids: string[];
  min_reports: number;
  /** Independent sources at least (decisions.md, "independent sources"); 1 filters nothing. */
  min_independent_sources: number;
  role_filters: RoleFilter[];
}

/**
 * Units compare case-insensitively, folding ASCII letters only, so the SQL face (translate)
 * and the matching face agree whatever the database's locale.
 */
export const foldUnit = (unit: string): string => unit.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * What a schema lets through in role filters but cannot be compared: a timestamp its
 * date-time format accepts that reads as no instant (a leap second) or that the database
 * cannot store (year 0, year 10000), and an amount beyond double range (1e309). Errors point
 * under `at`.
 */
export function roleFilterValueErrors(roleFilters: readonly RoleFilter[] | undefined, at: string): { pointer: string; detail: string }[] {
  return (roleFilters ?? []).flatMap((rf, i) => valueErrors(rf, (member) => `${at}/role_filters/${i}/${member}`));
}

/** One role filter's values that cannot be compared, each pointed at by `pointer(member)`. */
function valueErrors(rf: RoleFilter, pointer: (member: string) => string): { pointer: string; detail: string }[] {
  switch (rf.kind) {
    case 'date_after':
    case 'date_before': {
      const [member, iso] = rf.kind === 'date_after' ? ['after_iso', rf.after_iso] : ['before_iso', rf.before_iso];
      return storableInstant(iso) ? [] : [{ pointer: pointer(member), detail: 'is not a timestamp between the years 1 and 9999' }];
    }
    case 'amount_gte':
      return Number.isFinite(rf.min_value) ? [] : [{ pointer: pointer('min_value'), detail: 'is not a finite number' }];
    case 'amount_lte':
      return Number.isFinite(rf.max_value) ? [] : [{ pointer: pointer('max_value'), detail: 'is not a finite number' }];
    case 'entity_in':
      return [];
  }
}

/** A filter as saved or sent: any field may be omitted, or `null` (a merge patch's reset). */
export type FilterInput = { [K in keyof EventFilter]?: EventFilter[K] | null };

/** Fills the defaults of every omitted field; `null` counts as omitted. */
export function normalizeFilter(input: FilterInput): EventFilter {
  return {
    event_type_id: input.event_type_id ?? null,
    involved_entity_ids: input.involved_entity_ids ?? [],
    involved_entity_list_ids: input.involved_entity_list_ids ?? [],
    scope: input.scope ?? 'MENTIONED',
    required_source_news_outlet_ids: input.required_source_news_outlet_ids ?? [],
    report_source_kind: input.report_source_kind ?? 'ANY',
    represented_entity_ids: input.represented_entity_ids ?? [],
    represented_entity_list_ids: input.represented_entity_list_ids ?? [],
    min_reports: input.min_reports ?? 1,
    min_independent_sources: input.min_independent_sources ?? 1,
    role_filters: input.role_filters ?? [],
  };
}

/**
 * A filter with every entity reference resolved to live canonical ids (lists expanded,
 * merged-away ids replaced by survivors, deleted ones dropped). Matching works on this.
 */
export interface CompiledFilter {
  eventTypeId: string | null;
  /** Wanted entities, or null when the filter names none (any entity). */
  entities: ReadonlySet<string> | null;
  scope: EntityScope;
  outlets: ReadonlySet<string> | null;
  sourceKind: ReportSourceKind;
  represented: ReadonlySet<string> | null;
  minReports: number;
  minIndependent: number;
  roleFilters: CompiledRoleFilter[];
}

/** One role filter's test of one role value. */
export type RoleValueTest =
  | { kind: 'amount'; min: number; max: number; unit: string | null }
  | { kind: 'date'; afterMs: number; beforeMs: number }
  | { kind: 'entity_in'; entities: ReadonlySet<string> };

/**
 * The role filters naming one role, which hold together for one value of that role
 * (decisions.md, "Event search"): some counted report carries a value for `role` that passes
 * every test, so `amount_gte` 100 with `amount_lte` 1000 is a range, never "one report above
 * 100 and another below 1000". Different roles may be satisfied by different reports.
 */
export interface CompiledRoleFilter {
  role: string;
  tests: RoleValueTest[];
}

/** Resolves entity ids and lists to live canonical ids. */
export interface EntityResolver {
  canonical(ids: readonly string[]): Promise<Map<string, string>>; // id → live canonical id (deleted left out)
  listMembers(listIds: readonly string[]): Promise<string[]>; // member ids, as stored
}

export async function compileFilter(filter: EventFilter, resolver: EntityResolver): Promise<CompiledFilter> {
  const resolve = async (ids: readonly string[], listIds: readonly string[]): Promise<ReadonlySet<string> | null> => {
    if (ids.length === 0 && listIds.length === 0) return null;
    const members = listIds.length > 0 ? await resolver.listMembers(listIds) : [];
    const canonical = await resolver.canonical([...ids, ...members]);
    return new Set(canonical.values());
  };
  const byRole = new Map<string, RoleValueTest[]>();
  for (const rf of filter.role_filters) {
    const tests = byRole.get(rf.role_code_name) ?? [];
    byRole.set(rf.role_code_name, tests);
    if (rf.kind === 'amount_gte') tests.push({ kind: 'amount', min: rf.min_value, max: Infinity, unit: rf.unit === undefined ? null : foldUnit(rf.unit) });
    if (rf.kind === 'amount_lte') tests.push({ kind: 'amount', min: -Infinity, max: rf.max_value, unit: rf.unit === undefined ? null : foldUnit(rf.unit) });
    if (rf.kind === 'date_after') tests.push({ kind: 'date', afterMs: Date.parse(rf.after_iso), beforeMs: Infinity });
    if (rf.kind === 'date_before') tests.push({ kind: 'date', afterMs: -Infinity, beforeMs: Date.parse(rf.before_iso) });
    if (rf.kind === 'entity_in') tests.push({ kind: 'entity_in', entities: (await resolve(rf.canonical_ids ?? [], rf.entity_list_ids ?? [])) ?? new Set() });
  }
  const roleFilters = [...byRole].map(([role, tests]) => ({ role, tests }));
  return {
    eventTypeId: filter.event_type_id,
    entities: await resolve(filter.involved_entity_ids, filter.involved_entity_list_ids),
    scope: filter.scope,
    outlets: filter.required_source_news_outlet_ids.length > 0 ? new Set(filter.required_source_news_outlet_ids) : null,
    sourceKind: filter.report_source_kind,
    represented:
      filter.report_source_kind === 'REPRESENTED_ONLY'
        ? ((await resolve(filter.represented_entity_ids, filter.represented_entity_list_ids)) ?? new Set())
        : null,
    minReports: filter.min_reports,
    minIndependent: filter.min_independent_sources,
    roleFilters,
  };
}
