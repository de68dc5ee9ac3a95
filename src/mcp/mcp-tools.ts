// The MCP tools (v1 document, "MCP endpoint"): each wraps one REST operation, its input schema
// derived from that operation's request schema (one schema per operation), with
// `additionalProperties: false`, and answers the REST JSON envelope.
import { OptionalKind, Type, type TObject, type TSchema } from '@sinclair/typebox';
import { StrictObject, Uuid } from '../platform/http/schema-kit.js';
import type { Scope } from '../platform/scopes.js';
import type { BeatEntriesService } from '../modules/beats/beat-entries.service.js';
import { CreateBeatBody, EntriesBody } from '../modules/beats/beats.schemas.js';
import type { BeatsService } from '../modules/beats/beats.service.js';
import { LOOKBACK_DAYS, SearchBody } from '../modules/search/search.schemas.js';
import type { SearchService } from '../modules/search/search.service.js';

export interface ToolCaller {
  accountId: string;
  keyId: string;
}

export interface McpTool {
  name: string;
  scope: Scope;
  description: string;
  input: TObject;
  run(caller: ToolCaller, args: Record<string, unknown>): Promise<unknown>;
}

export interface ToolServices {
  search: SearchService;
  beats: BeatsService;
  beatEntries: BeatEntriesService;
}

/** The default page size when a continue call omits `limit` (it never carries over). */
const DEFAULT_LIMIT = 20;

const { cursor: searchCursor, limit: searchLimit, lookback_days: _lookbackDays, ...searchFilter } = SearchBody.properties;
const { cursor: entriesCursor, limit: entriesLimit, ...entriesModes } = EntriesBody.properties;
const { spend_cap_credits: _spendCap, ...createBeatFields } = CreateBeatBody.properties;
const BeatId = { ...Uuid, description: 'The beat id (from list_beats or create_beat).' };
/** A member optional in the REST body that the tool requires (a continue call's cursor). */
const required = <T extends TSchema>(schema: T): T => {
  const { [OptionalKind]: _optional, ...rest } = schema as T & { [OptionalKind]?: string };
  return rest as unknown as T;
};
const ContinueLimit = (limit: TSchema) =>
  Type.Optional({ ...limit, description: `Page size, 1 to 50. Omitted: ${DEFAULT_LIMIT}, whatever the first call asked for.` });

const SearchEventsInput = StrictObject({
  // Required here (the REST body may omit it with a cursor, which this tool refuses).
  lookback_days: Type.Unsafe<(typeof LOOKBACK_DAYS)[number]>({
    type: 'integer',
    enum: [...LOOKBACK_DAYS],
    description: 'Required. How many days back to look, by the date events were first reported: 7, 30, 90, 180 or 365.',
  }),
  ...searchFilter,
  limit: Type.Optional({ ...required(searchLimit), description: 'Page size, 1 to 50, default 20.' }),
});

export function mcpTools({ search, beats, beatEntries }: ToolServices): McpTool[] {
  return [
    {
      name: 'search_events',
      scope: 'EVENTS_READ',
      description:
        "Search the news-event corpus. Each call is a new search and is CHARGED (the plan's search credit cost, usually 1 credit), whatever " +
        'it finds. Results: events newest first by first report, each with a one-line sentence, when it happened, report and outlet counts, ' +
        'and the entities involved; `total_count` is the number of matches. Filters combine with AND: `event_type_id` (one type), ' +
        '`involved_entity_ids` / `involved_entity_list_ids` (any of these entities appears), `required_source_news_outlet_ids` (reported by ' +
        'one of these outlets), `min_reports` (at least this many distinct outlets), `role_filters` (amounts, dates or entities of a role; ' +
        'several on one role hold for one value). To read more of the same results, call search_events_continue with `next_cursor`: it is ' +
        'free. Do not search again to page.',
      input: SearchEventsInput,
      run: (caller, args) => search.search(caller, args),
    },
    {
      name: 'search_events_continue',
      scope: 'EVENTS_READ',
      description:
        'The next page of an earlier search_events, free of charge. Pass its `next_cursor`; only `limit` may go with it (default 20 per page, ' +
        'it does not carry over). When `has_more` is false there is nothing more. A cursor expires with its search (about a day).',
      input: StrictObject({ cursor: required(searchCursor), limit: ContinueLimit(searchLimit) }),
      run: (caller, args) => search.search(caller, { cursor: args.cursor as string, limit: (args.limit as number | undefined) ?? DEFAULT_LIMIT }),
    },
    {
      name: 'list_beats',
      scope: 'BEATS_READ',
      description: 'Every beat of the account, newest first, with its status (ACTIVE, PAUSED_SPEND_CAP, DISABLED), clauses, monthly spend and cap. Free.',
      input: StrictObject({}),
      run: (caller) => beats.list(caller.accountId),
    },
    {
      name: 'get_beat',
      scope: 'BEATS_READ',
      description: 'One beat by id: status, clauses, spend this month, cap, and gaps (spans when the spend cap paused recording). Free.',
      input: StrictObject({ beat_id: BeatId }),
      run: (caller, args) => beats.get(caller.accountId, args.beat_id as string),
    },
    {
      name: 'create_beat',
      scope: 'BEATS_WRITE',
      description:
        'Create a beat: a saved watch whose matching events are recorded as entries, read later with get_beat_entries. Creating is free, but ' +
        "every entry recorded is charged (usually 1 credit), up to the plan's default monthly cap. Clauses combine with OR; each clause takes " +
        'the search filters plus `scope` and `report_source_kind`. The beat backfills the last days of matching events at once.',
      input: StrictObject(createBeatFields),
      run: (caller, args) => beats.create(caller.accountId, args as never),
    },
    {
      name: 'get_beat_entries',
      scope: 'BEATS_READ',
      description:
        "Read a beat's entries, free. Either a window (`last`: 24h, 7d or 30d; or `from` and `until`), newest first, with an exact " +
        '`total_count`; or a poll (`since`: "" for the oldest, then the `poll_since` of the previous answer), oldest first. More pages: ' +
        'get_beat_entries_continue with `next_cursor`.',
      input: StrictObject({
        beat_id: BeatId,
        ...entriesModes,
        limit: Type.Optional({ ...required(entriesLimit), description: 'Page size, 1 to 50, default 20.' }),
      }),
      run: (caller, { beat_id: beatId, ...body }) => beatEntries.read(caller.accountId, beatId as string, body as never),
    },
    {
      name: 'get_beat_entries_continue',
      scope: 'BEATS_READ',
      description: 'The next page of entries of get_beat_entries, free: pass the beat id and `next_cursor`; `limit` defaults to 20 and does not carry over.',
      input: StrictObject({ beat_id: BeatId, cursor: required(entriesCursor), limit: ContinueLimit(entriesLimit) }),
      run: (caller, args) =>
        beatEntries.read(caller.accountId, args.beat_id as string, {
          cursor: args.cursor as string,
          limit: (args.limit as number | undefined) ?? DEFAULT_LIMIT,
        }),
    },
  ];
}

/**
 * A schema as a self-contained JSON Schema: no `$id`s (they name REST components). Listed to
 * clients, it also drops `discriminator` (an OpenAPI keyword; validation keeps it, for its
 * clearer errors).
 */
export function toolInputSchema(schema: TSchema, options: { listed?: boolean } = {}): Record<string, unknown> {
  const dropped = new Set(options.listed ? ['$id', 'discriminator'] : ['$id']);
  return JSON.parse(JSON.stringify(schema, (key, value) => (dropped.has(key) ? undefined : value))) as Record<string, unknown>;
}
