// Account self-service (decisions.md, "Account self-service"): what any key reads of its own
// account. One schema per operation.
import { Type } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, Nullable, StringEnum, Timestamp, Uuid } from '../../platform/http/schema-kit.js';

/** The plan values an account reads of its own plan. */
export const SELF_PLAN_FIELDS = [
  'search_credit_cost',
  'beat_entry_credit_cost',
  'rest_requests_per_minute',
  'mcp_requests_per_minute',
  'beats_max',
  'clauses_max',
  'default_spend_cap_credits',
  'retention_days',
  'backfill_days',
] as const;

export const SelfAccount = Type.Object(
  {
    object: Type.Literal('account'),
    id: Uuid,
    display_name: Nullable(Type.String()),
    kind: StringEnum(['INDIVIDUAL', 'ORGANIZATION'] as const),
    credit_balance: Type.Integer(),
    entitlements: Type.Object({ structured_reporting: Type.Boolean(), entity_reporting: Type.Boolean(), beats: Type.Boolean() }),
    plan: Type.Object({ name: Type.String(), ...Object.fromEntries(SELF_PLAN_FIELDS.map((field) => [field, Type.Integer()])) }),
    usage_this_month: Type.Object(
      {
        searches: Type.Integer({ description: 'Charged search executions this UTC month.' }),
        beat_entries: Type.Integer({ description: 'Charged beat entries this UTC month (carried entries are free and not counted).' }),
        credits_spent: Type.Integer({ description: 'Credits charged for both this UTC month.' }),
      },
      { description: 'The current UTC month, from the ledger.' },
    ),
  },
  { $id: 'SelfAccount' },
);

export const LEDGER_KINDS = ['SEARCH', 'BEAT_ENTRY', 'GRANT', 'ADJUSTMENT'] as const;

export const CreditTransaction = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('credit_transaction'),
    amount: Type.Integer({ description: 'Negative for charges.' }),
    balance_after: Type.Integer(),
    kind: StringEnum(LEDGER_KINDS, { description: "SEARCH and BEAT_ENTRY are charges; GRANT and ADJUSTMENT are the operator's." }),
    beat_id: Nullable(Uuid),
    execution_id: Nullable(Uuid),
    reason: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'CreditTransaction' },
);
export const CreditTransactionList = ListEnvelope(CreditTransaction);
export const CreditTransactionsQuery = ListQuery;
