// Schemas of the corpus reference data: outlets, entities, entity lists, event types.
import { Type, type Static } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Text, Uuid, UUID_PATTERN } from '../../platform/http/schema-kit.js';

export const ROLE_VALUE_TYPES = [
  'NAMED_ENTITY',
  'DATE',
  'CURRENCY',
  'NUMBER',
  'DISTANCE',
  'WEIGHT',
  'LENGTH',
  'AREA',
  'VOLUME',
  'TEMPERATURE',
  'SPEED',
  'DURATION',
  'NONE',
  'CATEGORICAL',
] as const;
export type RoleValueType = (typeof ROLE_VALUE_TYPES)[number];

const CodeName = Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'lower_snake_case, up to 64 characters.' });

export const Outlet = Type.Object(
  { object: Type.Literal('news_outlet'), id: Uuid, name: Type.String(), domain: Nullable(Type.String()) },
  { $id: 'NewsOutlet' },
);
export const ListOutletsQuery = StrictObject({
  ...ListQuery.properties,
  query: Type.Optional(Text({ minLength: 1, maxLength: 200, description: 'Case-insensitive substring of the name or the domain.' })),
});
export type ListOutletsQuery = Static<typeof ListOutletsQuery>;
export const OutletList = ListEnvelope(Outlet);
export const CreateOutletBody = StrictObject({
  name: Text({ minLength: 1, maxLength: 200 }),
  domain: Type.Optional(Nullable(Text({ minLength: 1, maxLength: 253 }))),
});

export const Entity = Type.Object(
  { object: Type.Literal('entity'), id: Uuid, name: Type.String(), type: Nullable(Type.String()) },
  { $id: 'Entity', description: 'Listed by its current canonical id.' },
);
export type Entity = Static<typeof Entity>;
export const CreateEntityBody = StrictObject({
  name: Text({ minLength: 1, maxLength: 300 }),
  type: Type.Optional(Nullable(Text({ minLength: 1, maxLength: 64 }))),
});
export const MergeEntityBody = StrictObject({ into_entity_id: Uuid });

export const EntityList = Type.Object(
  { object: Type.Literal('entity_list'), id: Uuid, name: Type.String(), owner_account_id: Nullable(Uuid), entity_ids: Type.Array(Uuid) },
  { $id: 'EntityList' },
);
export const CreateEntityListBody = StrictObject({
  name: Text({ minLength: 1, maxLength: 200 }),
  owner_account_id: Type.Optional(Nullable(Type.String({ pattern: UUID_PATTERN }))),
  entity_ids: Type.Array(Uuid, { maxItems: 10_000 }),
});

const ExpectedType = Nullable(StringEnum(ROLE_VALUE_TYPES));
export const RoleDefinition = Type.Object({ id: Uuid, code_name: Type.String(), name: Type.String(), expected_type: ExpectedType }, { $id: 'RoleDefinition' });
export type RoleDefinition = Static<typeof RoleDefinition>;
const RoleInput = StrictObject({
  id: Type.Optional(Uuid),
  code_name: CodeName,
  name: Text({ minLength: 1, maxLength: 200 }),
  expected_type: ExpectedType,
});
export type RoleInput = Static<typeof RoleInput>;

export const OpsEventType = Type.Object(
  {
    object: Type.Literal('event_type'),
    id: Uuid,
    code_name: Type.String(),
    name: Type.String(),
    description: Type.String(),
    roles: Type.Array(RoleDefinition),
    sentence_template: Type.String(),
    accepting_reports: Type.Boolean(),
  },
  { $id: 'OpsEventType' },
);
export type OpsEventType = Static<typeof OpsEventType>;
export const CreateEventTypeBody = StrictObject({
  code_name: CodeName,
  name: Text({ minLength: 1, maxLength: 200 }),
  description: Text({ maxLength: 5000 }),
  roles: Type.Array(RoleInput, { maxItems: 50 }),
  sentence_template: Text({ minLength: 1, maxLength: 1000, description: 'Role code names in braces: "{acquirer} acquired {target}".' }),
  accepting_reports: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateEventTypeBody = Static<typeof CreateEventTypeBody>;
export const UpdateEventTypeBody = StrictObject({
  name: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
  description: Type.Optional(Text({ maxLength: 5000 })),
  roles: Type.Optional(Type.Array(RoleInput, { maxItems: 50, description: 'The complete role list; echo a role id to keep it.' })),
  sentence_template: Type.Optional(Text({ minLength: 1, maxLength: 1000 })),
  accepting_reports: Type.Optional(Type.Boolean()),
});
export type UpdateEventTypeBody = Static<typeof UpdateEventTypeBody>;

/** The public event type (GET /v1/event-types). */
export const EventType = Type.Object(
  {
    object: Type.Literal('event_type'),
    id: Uuid,
    code_name: Type.String(),
    name: Type.String(),
    description: Type.String(),
    roles: Type.Array(RoleDefinition),
  },
  { $id: 'EventType' },
);
export type EventType = Static<typeof EventType>;
export const EventTypeList = ListEnvelope(EventType);

export const EntitySearchQuery = StrictObject({
  query: Text({ minLength: 1, maxLength: 200, description: 'Case-insensitive substring of the name.' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  starting_after: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
});
export const EntityList_ = ListEnvelope(Entity);
