// Operator calls of the event pipeline: article ingest, event reads, merges and deletions.
import type { TypedApp } from '../../platform/http/typed-app.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import { problemBody, ProblemError } from '../../platform/problems.js';
import { ingestChecked } from './article-import.js';
import { ArticleBulkResult, IncidentReport, IngestArticleBody, MergeEventBody, OpsEvent } from './events.schemas.js';
import type { EventsService } from './events.service.js';

/** operations.md: at most 10,000 lines and 16 MiB per bulk request. */
export const BULK_MAX_LINES = 10_000;
export const BULK_MAX_BYTES = 16 * 1024 * 1024;

const ops = { access: 'ops' as const };
const tags = ['Operator: corpus'];

export function eventsOpsRoutes(app: TypedApp, events: EventsService, docsUrl: string): void {
  app.post(
    '/articles',
    {
      config: ops,
      schema: {
        operationId: 'opsIngestArticle',
        tags,
        summary: 'Ingest one report taken from a news article',
        description:
          'Clustering happens in the request: the answer names the event. Role values follow the rules of structured reports. ' +
          'An article is identified by `outlet_id` and `url`: one whose outlet and url match a stored report is that report, ' +
          'answered 200 with it, and nothing is added or changed. Articles without `url` are always new.',
        body: IngestArticleBody,
        response: { 200: IncidentReport, 201: IncidentReport },
      },
    },
    async (request, reply) => {
      const { existing, ...report } = await events.ingestArticle(request.body);
      return reply.code(existing ? 200 : 201).send(report);
    },
  );

  app.post(
    '/articles/bulk',
    {
      config: { ...ops, ndjson: true },
      bodyLimit: BULK_MAX_BYTES,
      schema: {
        operationId: 'opsIngestArticlesBulk',
        tags,
        summary: 'Ingest many articles (NDJSON), answered line by line',
        description:
          'The body is `application/x-ndjson`: one POST /ops/v1/articles body per line, at most 10,000 lines (blank ones not counted) and 16 MiB. ' +
          'Each line is judged and ingested by the rules of the single call; the valid lines are written in one transaction. ' +
          '`results` has one item per non-blank line, in order: 201 with the new report, 200 with the stored one (the same outlet and url), ' +
          'or 400 with the problem the single call would answer.',
        response: { 200: ArticleBulkResult },
      },
    },
    async (request) => {
      const lines = (typeof request.body === 'string' ? request.body : '').split('\n');
      const checked = await events.checkLines(lines);
      if (checked.length > BULK_MAX_LINES) {
        throw new ProblemError('validation-failed', `A bulk request holds at most ${BULK_MAX_LINES} lines; this one holds ${checked.length}. Split it.`);
      }
      const outcomes = await ingestChecked(events, checked);
      const count = (status: number) => outcomes.filter((outcome) => outcome.status === status).length;
      return {
        object: 'article_bulk_result' as const,
        accepted: count(201),
        existing: count(200),
        refused: count(400),
        results: outcomes.map((outcome) =>
          outcome.status === 400
            ? {
                line: outcome.line,
                status: 400 as const,
                problem: problemBody(docsUrl, outcome.problem.slug, outcome.problem.detail, request.id, outcome.problem.extras),
              }
            : outcome,
        ),
      };
    },
  );

  app.get(
    '/events/:id',
    { config: ops, schema: { operationId: 'opsGetEvent', summary: 'Read an event', tags, params: IdParams, response: { 200: OpsEvent } } },
    async (request) => events.getEvent(request.params.id),
  );

  app.post(
    '/events/:id/merge',
    {
      config: ops,
      schema: {
        operationId: 'opsMergeEvent',
        summary: 'Merge an event into another',
        tags,
        params: IdParams,
        body: MergeEventBody,
        response: { 200: OpsEvent },
      },
    },
    async (request) => events.mergeEvent(request.params.id, request.body.into_event_id),
  );

  app.delete(
    '/events/:id',
    { config: ops, schema: { operationId: 'opsDeleteEvent', summary: 'Delete an event', tags, params: IdParams } },
    async (request, reply) => {
      await events.deleteEvent(request.params.id);
      return reply.code(204).send();
    },
  );
}
