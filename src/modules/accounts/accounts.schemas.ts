// Operator API schemas for accounts, API keys, credits and plans (operations.md).
import { Type, type Static, type TInteger } from '@sinclair/typebox';
import { Nullable, StrictObject, StringEnum, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
import { SCOPES } from '../../platform/scopes.js';
import { PLAN_FIELD_MINIMUM, PLAN_FIELDS } from './accounts.store.js';

const Kind = StringEnum(['INDIVIDUAL', 'ORGANIZATION']);
const PlanName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$' });
const DisplayName = Nullable(Text({ minLength: 1, maxLength: 200 }));

const EntitlementsInput = StrictObject({
  structured_reporting: Type.Optional(Type.Boolean()),
  entity_reporting: Type.Optional(Type.Boolean()),
  beats: Type.Optional(Type.Boolean()),
});

export const Account = Type.Object(
  {
    object: Type.Literal('account'),
    id: Uuid,
    display_name: Nullable(Type.String()),
    kind: Kind,
    plan: Type.String(),
    credit_balance: Type.Integer(),
    entitlements: Type.Object({ structured_reporting: Type.Boolean(), entity_reporting: Type.Boolean(), beats: Type.Boolean() }),
    created_at: Timestamp,
  },
  { $id: 'Account' },
);
export type Account = Static<typeof Account>;

export const CreateAccountBody = StrictObject({
  display_name: Type.Optional(DisplayName),
  kind: Type.Optional(Kind),
  plan: Type.Optional(PlanName),
  credit_balance: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  entitlements: Type.Optional(EntitlementsInput),
});
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const UpdateAccountBody = StrictObject({
  display_name: Type.Optional(DisplayName),
  kind: Type.Optional(Kind),
  plan: Type.Optional(PlanName),
  entitlements: Type.Optional(EntitlementsInput),
});
export type UpdateAccountBody = Static<typeof UpdateAccountBody>;

export const CreditsBody = StrictObject({
  amount: Type.Integer({
    minimum: -1_000_000_000_000,
    maximum: 1_000_000_000_000,
    not: { const: 0 },
    description: 'Credits to grant (positive) or debit (negative).',
  }),
  reason: Type.Optional(Text({ minLength: 1, maxLength: 500 })),
});

export const ApiKey = Type.Object(
  {
    object: Type.Literal('api_key'),
    id: Uuid,
    account_id: Uuid,
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    prefix: Type.String(),
    key: Type.Optional(Type.String({ description: 'The raw key. Present only in the response that creates it.' })),
    created_at: Timestamp,
    revoked_at: Nullable(Timestamp),
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'When the key last authenticated a request, to within about a minute; null if never.' }),
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreateApiKeyBody = StrictObject({
  name: Text({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
});

export const PlanBody = StrictObject(
  Object.fromEntries(PLAN_FIELDS.map((field) => [field, Type.Integer({ minimum: PLAN_FIELD_MINIMUM[field], maximum: 2_147_483_647 })])) as Record<
    (typeof PLAN_FIELDS)[number],
    ReturnType<typeof Type.Integer>
  >,
);

const planValues = Object.fromEntries(PLAN_FIELDS.map((field) => [field, Type.Integer()])) as Record<(typeof PLAN_FIELDS)[number], TInteger>;
export const Plan = Type.Object({ object: Type.Literal('plan'), name: Type.String(), ...planValues }, { $id: 'Plan' });
export type Plan = Static<typeof Plan>;

export const PlanParams = StrictObject({ name: PlanName });
