// Event search (v1 document, "Event search"): one body schema for both calls. Which members
// may go together (a cursor alone with `limit`, `lookback_days` without one) is checked by
// the service, so each mistake is named by its own pointer.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StrictObject, Uuid } from '../../platform/http/schema-kit.js';
import { SearchEvent } from '../corpus/events.schemas.js';
import { RoleFilter } from '../filters/filter.schemas.js';

export const LOOKBACK_DAYS = [7, 30, 90, 180, 365] as const;

export const SearchBody = StrictObject(
  {
    lookback_days: Type.Optional(
      Type.Unsafe<(typeof LOOKBACK_DAYS)[number]>({
        type: 'integer',
        enum: [...LOOKBACK_DAYS],
        description: 'Required without `cursor`: 7, 30, 90, 180 or 365. Windows on `first_report_date`.',
      }),
    ),
    event_type_id: Type.Optional(Nullable(Uuid)),
    involved_entity_ids: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
    involved_entity_list_ids: Type.Optional(Type.Array(Uuid, { maxItems: 50, description: 'Own or public lists.' })),
    required_source_news_outlet_ids: Type.Optional(Type.Array(Uuid, { maxItems: 200 })),
    min_reports: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Minimum distinct outlets. Default 1.' })),
    min_independent_sources: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Minimum independent sources (wire copies counted once). Default 1.' }),
    ),
    role_filters: Type.Optional(Type.Array(RoleFilter, { maxItems: 10 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: "Page size, 1 to 50, default 20 (with a cursor: the cursor's). Larger is refused, not clamped." }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 8192, description: 'A `next_cursor` from an earlier response. Only `limit` may go with it.' }),
    ),
  },
  { description: 'Without `cursor`: a new, charged execution and its first page. With `cursor`: the next page of that execution, not charged.' },
);
export type SearchBody = Static<typeof SearchBody>;

/** The members that make up the filter (none may go with a cursor). */
export const FILTER_MEMBERS = [
  'lookback_days',
  'event_type_id',
  'involved_entity_ids',
  'involved_entity_list_ids',
  'required_source_news_outlet_ids',
  'min_reports',
  'min_independent_sources',
  'role_filters',
] as const;

export const SearchResult = Type.Object(
  {
    object: Type.Literal('search_result'),
    data: Type.Array(SearchEvent),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
    execution_id: Uuid,
    total_count: Type.Integer({ description: 'Matches at execution, corpus-wide; may exceed what can be paged. Branch on `has_more`.' }),
  },
  { $id: 'SearchResult' },
);
export type SearchResult = Static<typeof SearchResult>;
