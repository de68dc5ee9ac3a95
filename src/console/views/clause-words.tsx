// A beat's clauses, and a sensor's filter, in words: the event type and every entity, list and
// outlet by name, each filter as a phrase; fields left at their defaults say nothing. Names come from the reference
// data; an id with no name left (a deleted record) is shown as such rather than as a UUID.
import type { ComponentChildren } from 'preact';
import type { ReferenceNames } from '../../modules/corpus/reference.service.js';
import type { Clause } from '../../modules/beats/beats.schemas.js';
import type { RoleFilterBody } from '../../modules/filters/filter.schemas.js';

/** What a clause and a sensor's filter share; a sensor's has no scope (it reads as MENTIONED) and no role filters. */
export type WordedFilter = Omit<Clause, 'id' | 'scope' | 'role_filters'> & Partial<Pick<Clause, 'scope' | 'role_filters'>>;

/** Every id the clauses name, by kind, to look their names up in one go. */
export function clauseIds(clauses: readonly WordedFilter[]) {
  const roleLists = clauses.flatMap((c) => (c.role_filters ?? []).flatMap((f) => (f.kind === 'entity_in' ? [f] : [])));
  return {
    eventTypes: clauses.flatMap((c) => (c.event_type_id ? [c.event_type_id] : [])),
    entities: clauses.flatMap((c) => [...c.involved_entity_ids, ...c.represented_entity_ids]).concat(roleLists.flatMap((f) => f.canonical_ids ?? [])),
    entityLists: clauses
      .flatMap((c) => [...c.involved_entity_list_ids, ...c.represented_entity_list_ids])
      .concat(roleLists.flatMap((f) => f.entity_list_ids ?? [])),
    outlets: clauses.flatMap((c) => c.required_source_news_outlet_ids),
  };
}

const SOURCE_KINDS: Record<Clause['report_source_kind'], string | null> = {
  ANY: null,
  ARTICLES_ONLY: 'news articles only',
  USER_REPORTS_ONLY: 'structured reports only',
  REPRESENTED_ONLY: 'reports filed under a grant for the entities below only',
};

/** "A, B and C"; an id without a name reads as what it was. */
function named(ids: readonly string[], names: Map<string, string>, missing: string): string {
  const words = ids.map((id) => names.get(id) ?? missing);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

function Entities({ ids, listIds, names }: { ids: readonly string[]; listIds: readonly string[]; names: ReferenceNames }) {
  const lists = named(listIds, names.entityLists, 'a deleted list');
  return (
    <>
      {named(ids, names.entities, 'a deleted entity')}
      {ids.length > 0 && listIds.length > 0 && '; '}
      {listIds.length > 0 && `the members of ${listIds.length === 1 ? 'the list' : 'the lists'} ${lists}`}
    </>
  );
}

const withUnit = (value: number, unit: string | undefined) => (unit ? `${value} ${unit}` : String(value));

function rolePhrase(filter: RoleFilterBody, names: ReferenceNames): string {
  switch (filter.kind) {
    case 'amount_gte':
      return `at least ${withUnit(filter.min_value, filter.unit)}`;
    case 'amount_lte':
      return `at most ${withUnit(filter.max_value, filter.unit)}`;
    case 'date_after':
      return `after ${filter.after_iso}`;
    case 'date_before':
      return `before ${filter.before_iso}`;
    case 'entity_in': {
      const entities = named(filter.canonical_ids ?? [], names.entities, 'a deleted entity');
      const lists = named(filter.entity_list_ids ?? [], names.entityLists, 'a deleted list');
      return `one of ${[entities, lists && `the members of ${lists}`].filter(Boolean).join('; ')}`;
    }
  }
}

function Row({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function ClauseWords({ clause, names }: { clause: WordedFilter; names: ReferenceNames }) {
  const typeId = clause.event_type_id;
  const roleName = (code: string) => (typeId && names.roles.get(`${typeId}:${code}`)) || code;
  const wanted = clause.involved_entity_ids.length + clause.involved_entity_list_ids.length > 0;
  const represented = clause.represented_entity_ids.length + clause.represented_entity_list_ids.length > 0;
  return (
    <dl class="clause">
      <Row term="Event type">{typeId ? (names.eventTypes.get(typeId) ?? 'a deleted event type') : 'any'}</Row>
      {wanted && (
        <Row term={clause.scope === 'PARTICIPANT' ? 'Taking part' : 'Mentioned'}>
          <Entities ids={clause.involved_entity_ids} listIds={clause.involved_entity_list_ids} names={names} />
        </Row>
      )}
      {(clause.role_filters ?? []).map((filter) => (
        <Row term={`Role “${roleName(filter.role_code_name)}”`}>{rolePhrase(filter, names)}</Row>
      ))}
      {clause.required_source_news_outlet_ids.length > 0 && (
        <Row term="Reported by">{named(clause.required_source_news_outlet_ids, names.outlets, 'a deleted outlet')}</Row>
      )}
      {SOURCE_KINDS[clause.report_source_kind] && <Row term="Counting">{SOURCE_KINDS[clause.report_source_kind]}</Row>}
      {represented && (
        <Row term="Filed for">
          <Entities ids={clause.represented_entity_ids} listIds={clause.represented_entity_list_ids} names={names} />
        </Row>
      )}
      {clause.min_reports > 1 && <Row term="At least">{clause.min_reports} outlets reporting</Row>}
      {clause.min_independent_sources > 1 && <Row term="Independent">{clause.min_independent_sources} sources at least (wire copies counted once)</Row>}
    </dl>
  );
}
