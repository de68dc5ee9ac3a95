// The MCP tools (v1 document, "MCP endpoint"; decisions.md, 2026-11-25): each wraps one REST
// operation and calls the service its route calls, its input schema derived from that
// operation's request schema (one schema per operation), with `additionalProperties: false`,
// and answers the REST JSON envelope. Descriptions are short: the workflow (where ids come
// from, what is charged) is said once, in the server's instructions (mcp-dispatch.ts).
import { OptionalKind, Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { StrictObject, Uuid } from '../platform/http/schema-kit.js';
import type { Scope } from '../platform/scopes.js';
import type { BeatEntriesService } from '../modules/beats/beat-entries.service.js';
import { ClauseInput, CreateBeatBody, EntriesBody } from '../modules/beats/beats.schemas.js';
import type { BeatsService } from '../modules/beats/beats.service.js';
import { EntitySearchQuery } from '../modules/corpus/reference.schemas.js';
import type { ReferenceService } from '../modules/corpus/reference.service.js';
import type { EventReads } from '../modules/corpus/event-reads.js';
import { LOOKBACK_DAYS, SearchBody } from '../modules/search/search.schemas.js';
import type { SearchService } from '../modules/search/search.service.js';
import type { CommitAnswer } from '../platform/idempotency-claims.js';

export interface ToolCaller {
  accountId: string;
  keyId: string;
}

export interface McpTool {
  name: string;
  title: string;
  scope: Scope;
  annotations: ToolAnnotations;
  description: string;
  input: TObject;
  /** `commitAnswer`, taken by tools that create something, stores the answer with the effect. */
  run(caller: ToolCaller, args: Record<string, unknown>, commitAnswer?: CommitAnswer<unknown>): Promise<unknown>;
}

export interface ToolServices {
  search: SearchService;
  eventReads: EventReads;
  reference: ReferenceService;
  beats: BeatsService;
  beatEntries: BeatEntriesService;
}

/** The default page size when a call omits `limit` (a continue call's never carries over). */
const DEFAULT_LIMIT = 20;

/** The schema with the description a model reads for it, or none (validation is the schema's own). */
const described = <T extends TSchema>(schema: T, description?: string): T => {
  const { description: _rest, ...bare } = schema;
  return (description === undefined ? bare : { ...bare, description }) as T;
};
/** A member optional in the REST body that the tool requires (a continue call's cursor). */
const required = <T extends TSchema>(schema: T): T => {
  const { [OptionalKind]: _optional, ...rest } = schema as T & { [OptionalKind]?: string };
  return rest as unknown as T;
};
/** The page size, its default a schema `default` (filled in when the arguments are checked). */
const PageSize = (limit: TSchema) => Type.Optional({ ...described(required(limit)), default: DEFAULT_LIMIT });

/**
 * The minimums of sources as a model reads them: the names say "minimum" and a default of 1
 * filters nothing, so the words are what the names leave out (tools/list stays within 7 KB).
 */
const minimums = <T extends { min_reports: TSchema; min_independent_sources: TSchema }>(fields: T): T => ({
  ...fields,
  min_reports: described(fields.min_reports, 'Distinct outlets.'),
  min_independent_sources: described(fields.min_independent_sources, 'Wire copies counted once.'),
});
const { cursor: searchCursor, limit: searchLimit, lookback_days: _lookbackDays, ...searchFilterFields } = SearchBody.properties;
const searchFilter = minimums(searchFilterFields);
const { cursor: entriesCursor, limit: entriesLimit, ...entriesModes } = EntriesBody.properties;
const { spend_cap_credits: _spendCap, ...createBeatFields } = CreateBeatBody.properties;
// A clause `id` only keeps a clause on replace; create refuses it, so the tool does not offer it.
const { id: _clauseId, ...clauseFields } = ClauseInput.properties;
const newClauseFields = minimums(clauseFields);
const { limit: entitiesLimit, query: entitiesQuery, ...entitiesPaging } = EntitySearchQuery.properties;
/** Where ids of beats come from is said once, in the server's instructions. */
const BeatId = described(Uuid);
/** What a cursor is, and that `limit` does not carry over, the continue tools' descriptions say. */
const Continue = (cursor: TSchema, limit: TSchema) => ({ cursor: described(required(cursor)), limit: PageSize(limit) });

const SearchEventsInput = StrictObject({
  // Required here (the REST body may omit it with a cursor, which this tool refuses).
  lookback_days: Type.Unsafe<(typeof LOOKBACK_DAYS)[number]>({
    type: 'integer',
    enum: [...LOOKBACK_DAYS],
    description: 'Days back, by first report date.',
  }),
  ...searchFilter,
  limit: PageSize(searchLimit),
});

const CreateBeatInput = StrictObject({
  ...createBeatFields,
  name: described(createBeatFields.name), // its bounds are checked, not listed
  clauses: { ...createBeatFields.clauses, items: StrictObject(newClauseFields, { description: ClauseInput.description }) },
});

const BeatEntriesInput = StrictObject({
  beat_id: BeatId,
  // The modes are told in the tool's description.
  ...Object.fromEntries(Object.entries(entriesModes).map(([name, schema]) => [name, described(schema)])),
  limit: PageSize(entriesLimit),
});

/** Reads nothing but the account's own data, changes nothing, spends nothing. */
const READS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Spends credits or creates something: neither read-only nor idempotent, never destructive. */
const SPENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export function mcpTools({ search, eventReads, reference, beats, beatEntries }: ToolServices): McpTool[] {
  const limitOf = (args: Record<string, unknown>) => (args.limit as number | undefined) ?? DEFAULT_LIMIT;
  return [
    {
      name: 'search_events',
      title: 'Search events',
      scope: 'EVENTS_READ',
      annotations: SPENDS,
      description:
        'Events, newest first, and their count. CHARGED once per call. Filters AND; ids: ' +
        'list_event_types, search_entities. Pages: search_events_continue.',
      input: SearchEventsInput,
      run: (caller, args) => search.search(caller, args, 'entity-list-inaccessible'),
    },
    {
      name: 'search_events_continue',
      title: 'Next page of a search',
      scope: 'EVENTS_READ',
      annotations: READS,
      description: 'Next page of search_events, free: its `next_cursor`; `limit` does not carry over.',
      input: StrictObject(Continue(searchCursor, searchLimit)),
      run: (caller, args) => search.search(caller, { cursor: args.cursor as string, limit: limitOf(args) }),
    },
    {
      name: 'get_event',
      title: 'Read an event',
      scope: 'EVENTS_READ',
      annotations: READS,
      description: 'An event by id as it stands now (a merged id: its survivor). Free.',
      input: StrictObject({ event_id: described(Uuid) }),
      run: (_caller, args) => eventReads.get(args.event_id as string),
    },
    {
      name: 'list_event_types',
      title: 'List event types',
      scope: 'REPORTS_READ',
      annotations: READS,
      description: 'Event types and their roles (code names for `role_filters`). Free.',
      input: StrictObject({}),
      run: () => reference.listEventTypes(),
    },
    {
      name: 'search_entities',
      title: 'Find entities',
      scope: 'REPORTS_READ',
      annotations: READS,
      description: 'Entities whose name contains `query` (any case). Free. Next page: `starting_after` = `next_cursor`.',
      input: StrictObject({ query: described(entitiesQuery), ...entitiesPaging, limit: PageSize(entitiesLimit) }),
      run: (_caller, args) => reference.searchEntities(args.query as string, limitOf(args), args.starting_after as string | undefined),
    },
    {
      name: 'list_beats',
      title: 'List beats',
      scope: 'BEATS_READ',
      annotations: READS,
      description: "The account's beats, newest first, with this month's spend. Free.",
      input: StrictObject({}),
      run: (caller) => beats.list(caller.accountId),
    },
    {
      name: 'get_beat',
      title: 'Read a beat',
      scope: 'BEATS_READ',
      annotations: READS,
      description: "One beat, with this month's spend and gaps (when its cap paused it). Free.",
      input: StrictObject({ beat_id: BeatId }),
      run: (caller, args) => beats.get(caller.accountId, args.beat_id as string),
    },
    {
      name: 'create_beat',
      title: 'Create a beat',
      scope: 'BEATS_WRITE',
      annotations: SPENDS,
      description:
        'Records matching events as entries, recent ones at once. Each entry is CHARGED, up to the monthly cap. Ids: ' + 'list_event_types, search_entities.',
      input: CreateBeatInput,
      run: (caller, args, commitAnswer) => beats.create(caller.accountId, args as never, commitAnswer),
    },
    {
      name: 'get_beat_entries',
      title: 'Read beat entries',
      scope: 'BEATS_READ',
      annotations: READS,
      description:
        'A beat\'s entries, free: a window (`last`, or `from` to `until`, on `axis`), newest first; or a poll (`since` "", then ' +
        'each `poll_since`), oldest first. More: get_beat_entries_continue.',
      input: BeatEntriesInput,
      run: (caller, { beat_id: beatId, ...body }) => beatEntries.read(caller.accountId, beatId as string, body as never),
    },
    {
      name: 'get_beat_entries_continue',
      title: 'Next page of beat entries',
      scope: 'BEATS_READ',
      annotations: READS,
      description: 'Next page of get_beat_entries, free: the beat id and its `next_cursor`; `limit` does not carry over.',
      input: StrictObject({ beat_id: BeatId, ...Continue(entriesCursor, entriesLimit) }),
      run: (caller, args) => beatEntries.read(caller.accountId, args.beat_id as string, { cursor: args.cursor as string, limit: limitOf(args) }),
    },
  ];
}

/** A schema as a self-contained JSON Schema, as arguments are validated: no `$id`s (they name REST components). */
export function toolInputSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value))) as Record<string, unknown>;
}
