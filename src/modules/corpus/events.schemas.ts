// Schemas of the event pipeline's operator calls: article ingest, event reads, merges.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ListEnvelope, Nullable, StrictObject, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
import { RoleEntry } from './role-values.js';

export const IngestArticleBody = StrictObject({
  outlet_id: Uuid,
  event_type_id: Uuid,
  published_at: Type.Optional(Nullable(Timestamp)),
  received_at: Type.Optional(Timestamp),
  happened_at: Type.Optional(Nullable(Text({ maxLength: 100, description: 'When the event happened, as the source says it; date-like.' }))),
  roles: Type.Array(RoleEntry, { maxItems: 200 }),
  mentioned_entity_ids: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
  incident_id: Type.Optional(Uuid),
  headline: Type.Optional(Text({ maxLength: 1000 })),
  url: Type.Optional(Text({ maxLength: 2000 })),
  text: Type.Optional(
    Type.String({
      maxLength: 200_000,
      description: "The article's body as crawled, or at least its opening paragraphs. Kept only as a fingerprint, to find copies; returned nowhere.",
    }),
  ),
});
export type IngestArticleBody = Static<typeof IngestArticleBody>;

export const IncidentReport = Type.Object(
  {
    object: Type.Literal('incident_report'),
    id: Uuid,
    incident_id: Uuid,
    report_date: Timestamp,
    copy_of_report_id: Type.Union([Uuid, Type.Null()], {
      description: 'The origin of the copy group the article joined (its text copies an earlier report), or null.',
    }),
  },
  { $id: 'IncidentReport' },
);

/** One line of a bulk ingest: stored anew (201), stored already (200), or refused (400, the single call's problem). */
const ArticleLineResult = Type.Union([
  Type.Object({
    line: Type.Integer(),
    status: Type.Union([Type.Literal(201), Type.Literal(200)]),
    id: Uuid,
    incident_id: Uuid,
    copy_of_report_id: Nullable(Uuid),
  }),
  Type.Object({ line: Type.Integer(), status: Type.Literal(400), problem: Type.Ref('Problem') }),
]);

export const ArticleBulkResult = Type.Object(
  {
    object: Type.Literal('article_bulk_result'),
    accepted: Type.Integer({ description: 'Lines stored as new reports (201).' }),
    existing: Type.Integer({ description: 'Lines that are a stored report already, by outlet and url (200); nothing changed.' }),
    refused: Type.Integer({ description: 'Lines refused (400), each with its problem.' }),
    results: Type.Array(ArticleLineResult, { description: 'One item per non-blank line, in order; `line` counts from 1 over every line of the body.' }),
  },
  { $id: 'ArticleBulkResult' },
);

const InvolvedEntity = Type.Object({ id: Uuid, name: Type.String(), type: Nullable(Type.String()) });

const searchEventFields = {
  object: Type.Literal('event'),
  id: Type.String({ format: 'uuid', description: 'Canonical id, stable across merges.' }),
  event_type: Type.Object({ code_name: Type.String() }),
  sentence: Nullable(Type.String({ description: 'One-line generated summary.' })),
  happened_at: Nullable(Type.String({ description: 'When the event occurred, date-like, as reported; not a normalized timestamp.' })),
  first_report_date: Type.String({ format: 'date-time', description: 'Publish time of the earliest report: the ordering and lookback key.' }),
  last_report_date: Type.String({ format: 'date-time', description: 'Publish time of the latest report.' }),
  matched_report_count: Type.Integer({ description: 'Reports, counting those received up to the time of the search.' }),
  distinct_outlet_count: Type.Integer({ description: 'Distinct outlets (a structured report counts one per filing account); same cut-off.' }),
  independent_source_count: Type.Integer({
    description: 'Distinct outlets among the origins of the copy groups of the reports counted (wire copies counted once); same cut-off.',
  }),
  involved_entities: Type.Array(InvolvedEntity, { description: 'Role participants first, then mentioned entities; canonical ids, no duplicates.' }),
};

/** The search-event shape: every field always present, nullable ones as explicit null. */
export const SearchEvent = Type.Object(searchEventFields, { $id: 'SearchEvent' });

export const OpsEvent = Type.Object({ ...searchEventFields, merged_into_event_id: Nullable(Uuid), deleted: Type.Boolean() }, { $id: 'OpsEvent' });

export const MergeEventBody = StrictObject({ into_event_id: Uuid });

/** GET /v1/events/{id}: the search-event fields, counted over every report, with the event's latest revision. */
export const Event = Type.Object(
  {
    ...searchEventFields,
    matched_report_count: Type.Integer({ description: 'Reports received so far.' }),
    distinct_outlet_count: Type.Integer({ description: 'Distinct outlets (a structured report counts one per filing account) among every report.' }),
    independent_source_count: Type.Integer({
      description: 'Distinct outlets among the origins of the copy groups of every report (wire copies counted once).',
    }),
    revision: Type.Integer({ minimum: 1, description: 'Grows by one with each committed change of any field above.' }),
    updated_at: Type.String({ format: 'date-time', description: 'When the latest revision was made.' }),
  },
  { $id: 'Event' },
);

const change = <T extends TSchema>(value: T) => Type.Optional(Type.Object({ from: value, to: value }));

/** Per field that changed, `{from, to}`; `involved_entities` as the entities added and removed. */
export const EventFieldChanges = Type.Object(
  {
    sentence: change(Nullable(Type.String())),
    happened_at: change(Nullable(Type.String())),
    first_report_date: change(Type.String({ format: 'date-time' })),
    last_report_date: change(Type.String({ format: 'date-time' })),
    matched_report_count: change(Type.Integer()),
    distinct_outlet_count: change(Type.Integer()),
    independent_source_count: change(Type.Integer()),
    involved_entities: Type.Optional(Type.Object({ added: Type.Array(InvolvedEntity), removed: Type.Array(InvolvedEntity) })),
  },
  { additionalProperties: false, description: "What changed: since the revision before (revision 1: `{}`), or since a sensor's previous delivery." },
);

export const EventRevision = Type.Object(
  {
    object: Type.Literal('event_revision'),
    event_id: Uuid,
    revision: Type.Integer({ minimum: 1 }),
    created_at: Timestamp,
    changes: EventFieldChanges,
    merged_event_ids: Type.Array(Uuid, { description: 'Events merged into this one by this revision.' }),
  },
  { $id: 'EventRevision' },
);

export const EventRevisionList = ListEnvelope(EventRevision);

export const RevisionsQuery = StrictObject({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100. Larger is refused, not clamped.' }),
  starting_after: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The revision number of the last item of the previous page (its `next_cursor`).' }),
  ),
});
