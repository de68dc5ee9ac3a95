// The filter vocabulary as request schemas, shared by event search, sensor filters and beat
// clauses (each states its own limits where the v1 document gives them different ones).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StrictObject, StringEnum, Text, Uuid } from '../../platform/http/schema-kit.js';

const RoleCodeName = Text({ minLength: 1, maxLength: 200 });
const IsoTimestamp = Type.String({ format: 'date-time' });
const Amount = Type.Number({ description: "Compared with the role's value; `unit`, if given, must match its unit (any case)." });
const Unit = Type.Optional(Text({ maxLength: 50 }));

// A discriminated union: Ajv checks only the branch `kind` names, so errors point at what
// is wrong in that branch rather than listing every branch's failures. Each branch has an $id,
// so the OpenAPI document names it as a component the discriminator can select.
const roleFilterBranches = [
  StrictObject({ kind: Type.Literal('amount_gte'), role_code_name: RoleCodeName, min_value: Amount, unit: Unit }, { $id: 'RoleFilterAmountGte' }),
  StrictObject({ kind: Type.Literal('amount_lte'), role_code_name: RoleCodeName, max_value: Amount, unit: Unit }, { $id: 'RoleFilterAmountLte' }),
  StrictObject({ kind: Type.Literal('date_after'), role_code_name: RoleCodeName, after_iso: IsoTimestamp }, { $id: 'RoleFilterDateAfter' }),
  StrictObject({ kind: Type.Literal('date_before'), role_code_name: RoleCodeName, before_iso: IsoTimestamp }, { $id: 'RoleFilterDateBefore' }),
  StrictObject(
    {
      kind: Type.Literal('entity_in'),
      role_code_name: RoleCodeName,
      canonical_ids: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
      entity_list_ids: Type.Optional(Type.Array(Uuid, { maxItems: 50 })),
    },
    { $id: 'RoleFilterEntityIn' },
  ),
];
type RoleFilterBranch = Static<(typeof roleFilterBranches)[number]>;
export const RoleFilter = Type.Unsafe<RoleFilterBranch>({
  type: 'object',
  required: ['kind'],
  discriminator: { propertyName: 'kind' },
  oneOf: roleFilterBranches,
  description: 'Filters on one role hold for one value.',
});
export type RoleFilterBody = RoleFilterBranch;

export const REPORT_SOURCE_KINDS = ['ANY', 'ARTICLES_ONLY', 'USER_REPORTS_ONLY', 'REPRESENTED_ONLY'] as const;
const Ids = (description: string) => Type.Array(Uuid, { maxItems: 500, description });

/** The fields of a saved filter (sensor filter, beat clause), with the `min_reports` (and `min_independent_sources`) ceiling of each. */
export const savedFilterFields = (maxMinReports: number) => ({
  event_type_id: Nullable(Uuid),
  involved_entity_ids: Ids("Any of these entities (or the lists' members)."),
  involved_entity_list_ids: Ids('Own or public lists.'),
  required_source_news_outlet_ids: Ids('Reported by one of these.'),
  report_source_kind: StringEnum(REPORT_SOURCE_KINDS, { description: 'Which reports count. Default ANY.' }),
  represented_entity_ids: Ids('REPRESENTED_ONLY: filed under a grant pinning one.'),
  represented_entity_list_ids: Ids('The same, as lists.'),
  min_reports: Type.Integer({
    minimum: 1,
    maximum: maxMinReports,
    description: 'Minimum distinct outlets. Default 1.',
  }),
  min_independent_sources: Type.Integer({
    minimum: 1,
    maximum: maxMinReports,
    description: 'Minimum independent sources (wire copies counted once). Default 1.',
  }),
});
