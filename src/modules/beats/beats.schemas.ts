// Beats (v1 document: Beat, Clause, Beat entry, Beat entries response, the Beats endpoints,
// "Reading entries"; decisions.md: "Beats"). One schema per operation.
import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { Nullable, StrictObject, StringEnum, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
import { RoleFilter, savedFilterFields } from '../filters/filter.schemas.js';

export const BEAT_STATUSES = ['ACTIVE', 'PAUSED_SPEND_CAP', 'DISABLED'] as const;
export type BeatStatus = (typeof BEAT_STATUSES)[number];
export const ENTRY_AXES = ['occurred_at', 'added_at'] as const;
export const LAST_WINDOWS = ['24h', '7d', '30d'] as const;
export const MAX_SPEND_CAP = 1_000_000_000;

const clauseFields = {
  ...savedFilterFields(10),
  scope: StringEnum(['MENTIONED', 'PARTICIPANT'] as const, {
    description: 'Entities anywhere (MENTIONED, default) or in a NAMED_ENTITY role (PARTICIPANT).',
  }),
  role_filters: Type.Array(RoleFilter, { maxItems: 10, description: 'All must hold.' }),
};

const optional = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)])) as { [K in keyof T]: TOptional<T[K]> };

const CLAUSE_DESCRIPTION = 'Without `event_type_id`, it names an entity or list.';

/** A clause as sent: `id` only on replace, to keep that clause. */
export const ClauseInput = StrictObject(
  {
    id: Type.Optional(Type.String({ pattern: Uuid.pattern, description: 'On replace: a current clause id, to keep that clause. Refused on create.' })),
    ...optional(clauseFields),
  },
  { description: CLAUSE_DESCRIPTION },
);
export type ClauseInput = Static<typeof ClauseInput>;

/** A clause as read back: every field, defaults filled in. */
export const Clause = Type.Object({ id: Uuid, ...clauseFields }, { $id: 'BeatClause' });
export type Clause = Static<typeof Clause>;

const Name = Text({ minLength: 1, maxLength: 120, description: '1 to 120 characters.' });
const Description = Nullable(Text({ maxLength: 2000 }));
const Clauses = Type.Array(ClauseInput, { minItems: 1, maxItems: 20, description: '1 to 20, combined with OR.' });
const SpendCap = Type.Integer({ minimum: 0, maximum: MAX_SPEND_CAP, description: 'Monthly cap in credits, per UTC month.' });

export const CreateBeatBody = StrictObject({
  name: Name,
  description: Type.Optional(Description),
  spend_cap_credits: Type.Optional({ ...SpendCap, description: "Monthly cap in credits. Omitted: the plan's default cap." }),
  clauses: Clauses,
});
export type CreateBeatBody = Static<typeof CreateBeatBody>;

export const ReplaceBeatBody = StrictObject(
  { name: Name, description: Type.Optional(Description), clauses: Clauses },
  {
    description:
      'A whole-shape replace: an omitted description clears it, an omitted clause field resets to its default. Echo a clause `id` to keep ' +
      'that clause; a clause without one is new; a dropped id removes its clause. The spend cap and the enabled state are not part of it.',
  },
);
export type ReplaceBeatBody = Static<typeof ReplaceBeatBody>;

export const SpendCapBody = StrictObject({ spend_cap_credits: SpendCap });
export type SpendCapBody = Static<typeof SpendCapBody>;

const Gap = Type.Object(
  { from: Timestamp, until: Nullable(Timestamp) },
  { description: 'A spend-cap pause; `until` is null while still paused. No entries exist inside a gap.' },
);

export const Beat = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('beat'),
    name: Type.String(),
    description: Nullable(Type.String()),
    status: StringEnum(BEAT_STATUSES),
    enabled: Type.Boolean(),
    spend_cap_credits: Type.Integer(),
    spent_this_month: Type.Integer({ description: 'Credits spent on entries this UTC month. Display only.' }),
    entries_this_month: Type.Integer(),
    last_entry_at: Nullable(Timestamp),
    retention_days: Type.Integer({ description: "How far back entries can be read (the plan's)." }),
    backfill_days: Type.Integer({ description: "How far back a new beat looks for existing matches (the plan's)." }),
    clauses: Type.Array(Clause),
    gaps: Type.Array(Gap),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Beat' },
);
export type Beat = Static<typeof Beat>;

export const BeatList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Beat),
  has_more: Type.Literal(false),
  next_cursor: Type.Null(),
});

const IsoWithOffset = Type.String({ format: 'date-time', description: 'ISO 8601 with offset.' });

export const EntriesBody = StrictObject(
  {
    from: Type.Optional({ ...IsoWithOffset, description: 'Window start, inclusive. Requires `until`, and must be before it.' }),
    until: Type.Optional({ ...IsoWithOffset, description: 'Window end, exclusive. Requires `from`.' }),
    last: Type.Optional(StringEnum(LAST_WINDOWS, { description: 'A window ending now. Not with `from`/`until`.' })),
    axis: Type.Optional(StringEnum(ENTRY_AXES, { description: 'Window mode only. Default `occurred_at`.' })),
    since: Type.Optional(
      Type.String({ maxLength: 8192, description: 'Poll mode: the `poll_since` of an earlier response, or "" to start at the oldest retained entry.' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: "Page size, 1 to 50, default 20 (with a cursor: the cursor's). Larger is refused." }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'A `next_cursor`. Only `limit` may go with it.' })),
  },
  {
    description:
      'Exactly one mode: a window (`from` and `until`, or `last`; newest first) or a poll (`since`; oldest first by `added_at`); or a `cursor` ' +
      'to continue either.',
  },
);
export type EntriesBody = Static<typeof EntriesBody>;

export const BeatEntry = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('beat_entry'),
    matched_clause_id: Type.String({ description: 'The first clause, in list order, the event matched. May name a clause a later replace removed.' }),
    occurred_at: Timestamp,
    added_at: Timestamp,
    backfilled: Type.Boolean(),
    carried_from_event_id: Nullable(Uuid),
    superseded_by_event_id: Nullable(Uuid),
    event: Type.Union(
      [
        Type.Object({
          id: Uuid,
          event_type: Type.Object({ code_name: Type.String() }),
          sentence: Nullable(Type.String()),
          happened_at: Nullable(Type.String()),
        }),
        Type.Null(),
      ],
      { description: "The summary of the entry's own event (a superseded one's too). Null when the event was deleted; clients skip such entries." },
    ),
  },
  { $id: 'BeatEntry' },
);
export type BeatEntry = Static<typeof BeatEntry>;

export const BeatEntries = Type.Object(
  {
    object: Type.Literal('beat_entries'),
    beat: Type.Object({ id: Uuid, status: StringEnum(BEAT_STATUSES), gaps: Type.Array(Gap) }),
    data: Type.Array(BeatEntry),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
    poll_since: Nullable(Type.String({ description: 'Poll mode: the position after this page. Persist it; send it as `since` next time.' })),
    total_count: Nullable(Type.Integer({ description: 'Window mode: the exact number of entries in the window. Null in poll mode.' })),
  },
  { $id: 'BeatEntries' },
);
export type BeatEntries = Static<typeof BeatEntries>;
