// The filter vocabulary as request schemas, shared by event search, sensor filters and beat
// clauses (each states its own limits where the v1 document gives them different ones).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StrictObject, StringEnum, Text, Uuid } from '../../platform/http/schema-kit.js';

const RoleCodeName = Text({ minLength: 1, maxLength: 200, description: 'A role code name of the event type.' });
const IsoTimestamp = Type.String({ format: 'date-time', description: 'An ISO 8601 timestamp with offset.' });
const Amount = Type.Number({ description: "Compared with the role value; `unit`, when given, must equal the value's unit (case-insensitive)." });
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
  description:
    'Tagged by `kind`. The filters naming one role hold together for one value of that role: some report of the event carries a value for the role that satisfies all of them.',
});
export type RoleFilterBody = RoleFilterBranch;

export const REPORT_SOURCE_KINDS = ['ANY', 'ARTICLES_ONLY', 'USER_REPORTS_ONLY', 'REPRESENTED_ONLY'] as const;
const Ids = (description: string) => Type.Array(Uuid, { maxItems: 500, description: `${description} Up to 500.` });

/** The fields of a saved filter (sensor filter, beat clause), with the `min_reports` ceiling of each. */
export const savedFilterFields = (maxMinReports: number) => ({
  event_type_id: Nullable(Uuid),
  involved_entity_ids: Ids("Wanted entities (with the lists' members, one set; any of them)."),
  involved_entity_list_ids: Ids('Entity lists the account owns, or public ones.'),
  required_source_news_outlet_ids: Ids('At least one counted report from one of these outlets.'),
  report_source_kind: StringEnum(REPORT_SOURCE_KINDS, { description: 'Which reports count. Default ANY.' }),
  represented_entity_ids: Ids('With REPRESENTED_ONLY: reports filed under a grant pinning one of these.'),
  represented_entity_list_ids: Ids('With REPRESENTED_ONLY, as lists.'),
  min_reports: Type.Integer({
    minimum: 1,
    maximum: maxMinReports,
    description: `Minimum distinct outlets among counted reports, 1 to ${maxMinReports}. Default 1.`,
  }),
});
