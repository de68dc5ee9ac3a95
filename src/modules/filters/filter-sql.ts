// The SQL face of the filter vocabulary: a compiled filter as conditions on `events e`, for
// queries over the whole corpus (filtered-events.ts, for event search and beat backfill). It
// means exactly what matchesFilter (matching.ts) means; test/filters/filter-faces.test.ts
// holds the two to it.
import type { SqlParams } from '../../platform/db/sql-params.js';
import type { CompiledFilter, RoleValueTest } from './filter.js';
import { eventsInvolving } from '../corpus/event-entities.js';
import { independentSourcesSql } from '../corpus/independent-sources.js';

export interface FilterScope {
  /** Only reports received up to this receive-sequence value count. */
  countedUpTo: number;
  /** Only events first reported at or after this (a search's lookback); the index look-ups prune by it too. */
  windowStart?: Date;
  /**
   * The role ids of each role code name the filter names, when the caller has looked them
   * up: as literal values they let the planner estimate role-filter selectivity.
   */
  roleIds?: ReadonlyMap<string, readonly string[]>;
}

/**
 * Conditions (to be joined with AND) under which the event `e` satisfies the filter,
 * counting only the reports received up to `scope.countedUpTo`. Live events only.
 */
export function filterConditions(filter: CompiledFilter, params: SqlParams, scope: FilterScope): string[] {
  const conditions = ['e.merged_into_event_id IS NULL', 'e.deleted_at IS NULL'];
  const kind = countedKind(filter.sourceKind);
  if (filter.sourceKind === 'REPRESENTED_ONLY' && !filter.represented?.size) return [...conditions, 'FALSE'];
  if (filter.eventTypeId !== null) conditions.push(`e.event_type_id = ${params.add(filter.eventTypeId, '::uuid')}`);
  const windowStart = scope.windowStart ? params.add(scope.windowStart, '::timestamptz') : null;
  if (windowStart) conditions.push(`e.first_report_date >= ${windowStart}`);
  const cutOff = params.add(scope.countedUpTo, '::bigint');
  // REPRESENTED_ONLY counts the reports filed under a grant that pins a wanted entity, found
  // from the entities' side (entity → grants → reports): such reports are few.
  const represented =
    filter.sourceKind === 'REPRESENTED_ONLY'
      ? `(SELECT r.event_id, r.received_seq, r.account_id
          FROM entities ent
          JOIN reporting_grant_entities ge ON ge.entity_id = ent.id
          JOIN reports r ON r.grant_id = ge.grant_id
         WHERE ent.canonical_id = ANY(${params.add([...filter.represented!], '::uuid[]')}) AND r.received_seq <= ${cutOff})`
      : null;

  if (filter.entities !== null) {
    // The wanted entities are live survivors, as participant rows name them (event-entities.ts).
    const wanted = params.add([...filter.entities], '::uuid[]');
    conditions.push(
      `e.id IN (${filter.scope === 'PARTICIPANT' ? `SELECT p.event_id FROM event_participants p WHERE p.entity_id = ANY(${wanted})` : eventsInvolving(wanted)})`,
    );
  }
  if (filter.outlets !== null) {
    // From the event's own reports (by event): no index finds reports by outlet.
    conditions.push(
      `EXISTS (SELECT 1 FROM reports r
                WHERE r.event_id = e.id AND r.outlet_id = ANY(${params.add([...filter.outlets], '::uuid[]')}) AND r.received_seq <= ${cutOff}${kind('r')})`,
    );
  }
  // Independent sources are never more than distinct ones: the larger minimum prunes first.
  const minSources = Math.max(filter.minReports, filter.minIndependent);
  if (filter.sourceKind === 'ANY') {
    // source_seqs[N] is when the event reached its N-th distinct source.
    conditions.push(`e.source_seqs[${params.add(minSources, '::int')}] <= ${cutOff}`);
  } else if (represented !== null) {
    // One source per filing account, as event_sources counts structured reports.
    conditions.push(
      `e.id IN (SELECT rep.event_id FROM ${represented} rep GROUP BY rep.event_id HAVING count(DISTINCT rep.account_id) >= ${params.add(minSources, '::int')})`,
    );
  } else {
    conditions.push(
      `(SELECT count(*) FROM event_sources s WHERE s.event_id = e.id AND s.first_seq <= ${cutOff}${kind('s')}) >= ${params.add(minSources, '::int')}`,
    );
  }
  // Structured reports are each a copy group of their own: under USER_REPORTS_ONLY and
  // REPRESENTED_ONLY independent sources are the distinct ones, counted above.
  if (filter.minIndependent > 1 && (filter.sourceKind === 'ANY' || filter.sourceKind === 'ARTICLES_ONLY')) {
    const articles = filter.sourceKind === 'ARTICLES_ONLY' ? ` AND r.source_kind = 'ARTICLE'` : '';
    conditions.push(`${independentSourcesSql('e.id', `r.received_seq <= ${cutOff}${articles}`)} >= ${params.add(filter.minIndependent, '::int')}`);
  }
  // A role value counts when its report does (v.seq is the report's receive sequence value).
  // The filters naming one role hold for one value row: their tests share the row `v`.
  const representedValue = represented === null ? '' : ` AND v.seq IN (SELECT rep.received_seq FROM ${represented} rep)`;
  for (const roleFilter of filter.roleFilters) {
    const tests = roleFilter.tests.map((test) => rolePredicate(test, params)).join(' AND ');
    conditions.push(
      `e.id IN (SELECT v.event_id FROM event_role_values v
                 WHERE ${roleIdCondition(roleFilter.role, scope.roleIds, params)}
                   AND v.seq <= ${cutOff}${kind('v')} AND ${tests}${representedValue})`,
    );
  }
  return conditions;
}

function roleIdCondition(codeName: string, known: FilterScope['roleIds'], params: SqlParams): string {
  const ids = known?.get(codeName);
  if (ids) return `v.role_id = ANY(${params.add(ids, '::uuid[]')})`;
  return `v.role_id IN (SELECT id FROM event_type_roles WHERE code_name = ${params.add(codeName, '::text')})`;
}

/** The condition on an index row's source kind for the reports a filter counts. */
function countedKind(sourceKind: CompiledFilter['sourceKind']): (alias: string) => string {
  switch (sourceKind) {
    case 'ANY':
      return () => '';
    case 'ARTICLES_ONLY':
      return (alias) => ` AND ${alias}.source_kind = 'ARTICLE'`;
    case 'USER_REPORTS_ONLY':
    case 'REPRESENTED_ONLY': // and, further, filed under a grant pinning a wanted entity
      return (alias) => ` AND ${alias}.source_kind = 'STRUCTURED'`;
  }
}

function rolePredicate(filter: RoleValueTest, params: SqlParams): string {
  switch (filter.kind) {
    case 'amount': {
      // v.amount_unit is stored folded as foldUnit folds (filter.ts).
      const parts = ['v.amount_value IS NOT NULL'];
      if (filter.unit !== null) parts.push(`v.amount_unit = ${params.add(filter.unit, '::text')}`);
      if (Number.isFinite(filter.min)) parts.push(`v.amount_value >= ${params.add(filter.min, '::float8')}`);
      if (Number.isFinite(filter.max)) parts.push(`v.amount_value <= ${params.add(filter.max, '::float8')}`);
      return parts.join(' AND ');
    }
    case 'date': {
      // A DATE value stands for 00:00 UTC of its day; the bounds are exclusive.
      const day = `(v.date_value::timestamp AT TIME ZONE 'UTC')`;
      const parts = ['v.date_value IS NOT NULL'];
      if (Number.isFinite(filter.afterMs)) parts.push(`${day} > ${params.add(new Date(filter.afterMs), '::timestamptz')}`);
      if (Number.isFinite(filter.beforeMs)) parts.push(`${day} < ${params.add(new Date(filter.beforeMs), '::timestamptz')}`);
      return parts.join(' AND ');
    }
    case 'entity_in':
      return `v.entity_id = ANY(${params.add([...filter.entities], '::uuid[]')})`;
  }
}
