// Schemas of the event pipeline's operator calls: article ingest, event reads, merges.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StrictObject, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
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
