// The SQL face of the filter vocabulary: a compiled filter as conditions on `events e`, for
// queries over the whole corpus (event search, beat backfill). It means exactly what
// matchesFilter (matching.ts) means; test/filters/filter-faces.test.ts holds the two to it.
import type { CompiledFilter, CompiledRoleFilter } from './filter.js';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz'; // foldUnit (filter.ts) in SQL

/** Positional parameters collected while conditions are written. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and answers its placeholder, cast when given. */
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

export interface FilterScope {
  /** Only reports received up to this receive-sequence value count. */
  countedUpTo: number;
  /** The query also requires `e.first_report_date >= windowStart`; entity look-ups prune by it. */
  windowStart?: Date;
}

/**
 * Conditions (to be joined with AND) under which the event `e` satisfies the filter,
 * counting only the reports received up to `scope.countedUpTo`. Live events only.
 */
export function filterConditions(filter: CompiledFilter, params: SqlParams, scope: FilterScope): string[] {
  const conditions = ['e.merged_into_event_id IS NULL', 'e.deleted_at IS NULL'];
  if (filter.eventTypeId !== null) conditions.push(`e.event_type_id = ${params.add(filter.eventTypeId, '::uuid')}`);
  if (filter.entities !== null) {
    const participant = filter.scope === 'PARTICIPANT' ? ' AND ee.participant' : '';
    // event_entities.first_report_date is the event's own, written with it.
    const window = scope.windowStart ? ` AND ee.first_report_date >= ${params.add(scope.windowStart, '::timestamptz')}` : '';
    conditions.push(
      `e.id IN (SELECT ee.event_id FROM event_entities ee WHERE ee.entity_id = ANY(${params.add([...filter.entities], '::uuid[]')})${window}${participant})`,
    );
  }

  const kind = countedKind(filter);
  if (kind === null) return [...conditions, 'FALSE'];
  const cutOff = params.add(scope.countedUpTo, '::bigint');
  const counted = `r.event_id = e.id AND r.received_seq <= ${cutOff}${kind}`;

  if (filter.outlets !== null) {
    conditions.push(`EXISTS (SELECT 1 FROM reports r WHERE ${counted} AND r.outlet_id = ANY(${params.add([...filter.outlets], '::uuid[]')}))`);
  }
  if (filter.minReports > 1) {
    // A structured report counts as one outlet per filing account.
    conditions.push(`(SELECT count(DISTINCT COALESCE(r.outlet_id, r.account_id, r.id)) FROM reports r WHERE ${counted}) >= ${params.add(filter.minReports, '::int')}`);
  } else if (kind === '') {
    // Any report counts: the event's first report to arrive says whether one had arrived.
    conditions.push(`e.first_report_seq <= ${cutOff}`);
  } else {
    conditions.push(`EXISTS (SELECT 1 FROM reports r WHERE ${counted})`);
  }
  for (const roleFilter of filter.roleFilters) {
    conditions.push(
      `EXISTS (SELECT 1 FROM reports r JOIN report_roles rr ON rr.report_id = r.id JOIN event_type_roles role ON role.id = rr.role_id${roleFilter.kind === 'entity_in' ? ' JOIN entities ent ON ent.id = rr.entity_id' : ''}
                WHERE ${counted} AND role.code_name = ${params.add(roleFilter.role, '::text')} AND ${rolePredicate(roleFilter, params)})`,
    );
  }
  return conditions;
}

/** The extra condition on `r` for the reports a filter counts; null when none can count. */
function countedKind(filter: CompiledFilter): string | null {
  switch (filter.sourceKind) {
    case 'ANY':
      return '';
    case 'ARTICLES_ONLY':
      return ` AND r.source_kind = 'ARTICLE'`;
    case 'USER_REPORTS_ONLY':
      return ` AND r.source_kind = 'STRUCTURED'`;
    case 'REPRESENTED_ONLY':
      // No report represents an entity until reporting grants exist (matching.ts agrees).
      return null;
  }
}

function rolePredicate(filter: CompiledRoleFilter, params: SqlParams): string {
  switch (filter.kind) {
    case 'amount': {
      const parts = ['rr.amount_value IS NOT NULL'];
      if (filter.unit !== null) parts.push(`translate(COALESCE(rr.amount_unit, ''), '${UPPER}', '${LOWER}') = ${params.add(filter.unit, '::text')}`);
      if (Number.isFinite(filter.min)) parts.push(`rr.amount_value >= ${params.add(filter.min, '::float8')}`);
      if (Number.isFinite(filter.max)) parts.push(`rr.amount_value <= ${params.add(filter.max, '::float8')}`);
      return parts.join(' AND ');
    }
    case 'date': {
      // A DATE value stands for 00:00 UTC of its day; the bounds are exclusive.
      const day = `(rr.date_value::timestamp AT TIME ZONE 'UTC')`;
      const parts = ['rr.date_value IS NOT NULL'];
      if (Number.isFinite(filter.afterMs)) parts.push(`${day} > ${params.add(new Date(filter.afterMs), '::timestamptz')}`);
      if (Number.isFinite(filter.beforeMs)) parts.push(`${day} < ${params.add(new Date(filter.beforeMs), '::timestamptz')}`);
      return parts.join(' AND ');
    }
    case 'entity_in':
      return `ent.canonical_id = ANY(${params.add([...filter.entities], '::uuid[]')})`;
  }
}
