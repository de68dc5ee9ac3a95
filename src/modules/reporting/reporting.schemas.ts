// Schemas of structured reporting: reporting grants (operator create, public list) and reports
// (file, list, read). What the schema refuses is a 400 with `errors`; what it lets through is
// checked for content afterwards (decisions.md, "Settled details": reports, schema versus
// content), so lengths and counts with a content code of their own are not limited here.
import { Type, type Static } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
import { Entity } from '../corpus/reference.schemas.js';

const PinView = Type.Object({
  role_definition_id: Uuid,
  role: Nullable(Type.String({ description: "The role's code name; null when the role was removed from the event type (the grant is stale)." })),
  allowed_entities: Type.Array(Entity),
});

const grantFields = {
  id: Uuid,
  object: Type.Literal('reporting_grant'),
  label: Type.String({ description: 'The name reports filed under the grant are published as.' }),
  status: StringEnum(['ACTIVE', 'EXPIRED', 'REVOKED'] as const, { description: 'ACTIVE until it expires or is revoked.' }),
  is_stale: Type.Boolean({
    description: 'True when the grant no longer matches its event type (a pinned role was removed, or no longer takes entities). A stale grant cannot be used.',
  }),
  expires_at: Timestamp,
  event_type_id: Uuid,
  pins: Type.Array(PinView),
};

export const ReportingGrant = Type.Object(grantFields, { $id: 'ReportingGrant' });
export type ReportingGrant = Static<typeof ReportingGrant>;
export const ReportingGrantList = ListEnvelope(ReportingGrant);

export const OpsReportingGrant = Type.Object(
  { ...grantFields, account_id: Uuid, revoked_at: Nullable(Timestamp), created_at: Timestamp },
  { $id: 'OpsReportingGrant' },
);

export const CreateGrantBody = StrictObject({
  account_id: Uuid,
  label: Text({ minLength: 1, maxLength: 200 }),
  event_type_id: Uuid,
  expires_at: Timestamp,
  pins: Type.Array(
    StrictObject({
      role: Text({ minLength: 1, maxLength: 64, description: 'A NAMED_ENTITY role code name of the event type.' }),
      allowed_entity_ids: Type.Array(Uuid, { minItems: 1, maxItems: 500 }),
    }),
    { maxItems: 50 },
  ),
});
export type CreateGrantBody = Static<typeof CreateGrantBody>;

const AmountInput = StrictObject({ value: Type.Number(), unit: Text({ maxLength: 200 }) });

/**
 * A role entry: `role` names the role (its code name, or its role definition id), with exactly
 * one value field. Which field the role takes is a content rule (ROLE_VALUE_TYPE_MISMATCH).
 */
export const ReportRoleInput = StrictObject({
  role: Text({ minLength: 1, maxLength: 64, description: 'A role code name of the event type (or its role definition id).' }),
  entity_id: Type.Optional(Uuid),
  // Shaped as a day; anything after the day (a time) is the content refusal PARSED_DATE_TOO_LONG.
  date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}', maxLength: 100, description: 'YYYY-MM-DD, a real calendar day (no time).' })),
  amount: Type.Optional(AmountInput),
  text: Type.Optional(Text({ maxLength: 10_000 })),
});
export type ReportRoleInput = Static<typeof ReportRoleInput>;

export const CreateReportBody = StrictObject({
  event_type_id: Uuid,
  happened_at: Text({ maxLength: 1_000, description: 'ISO 8601 timestamp with a UTC offset, not in the future.' }),
  roles: Type.Array(ReportRoleInput, { description: '1 to 50 entries (fewer or more is a content refusal, NO_ROLES or TOO_MANY_ROLES).' }),
  description: Type.Optional(Nullable(Text({ maxLength: 100_000, description: 'Up to 5,000 characters after trimming; blank is dropped.' }))),
  grant_id: Type.Optional(Nullable(Uuid)),
});
export type CreateReportBody = Static<typeof CreateReportBody>;

const ReportRole = Type.Object({
  role: Type.String(),
  entity_id: Type.Optional(Uuid),
  name: Type.Optional(Type.String({ description: 'NAMED_ENTITY roles: the entity name the service recorded.' })),
  date: Type.Optional(Type.String()),
  amount: Type.Optional(Type.Object({ value: Type.Number(), unit: Type.String() })),
  text: Type.Optional(Type.String()),
});

export const Report = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('report'),
    status: Type.Literal('CONFIRMED'),
    event_type_id: Nullable(Uuid),
    happened_at: Nullable(Timestamp),
    roles: Type.Array(ReportRole),
    description: Nullable(Type.String()),
    grant_id: Nullable(Uuid),
    published_as: Nullable(Type.Object({ name: Type.String(), kind: StringEnum(['INDIVIDUAL', 'ORGANIZATION'] as const) })),
    incident_id: Nullable(
      Type.String({ format: 'uuid', description: 'The event the report contributed to (its survivor after a merge); null until processed.' }),
    ),
    incident_report_id: Nullable(Type.String({ format: 'uuid', description: "The report's entry in the event pipeline; null until processed." })),
    created_at: Timestamp,
  },
  { $id: 'Report' },
);
export type Report = Static<typeof Report>;
export const ReportList = ListEnvelope(Report);
export const ReportListQuery = ListQuery;
