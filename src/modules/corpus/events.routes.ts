// Operator calls of the event pipeline: article ingest, event reads, merges and deletions.
import type { TypedApp } from '../../platform/http/typed-app.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import { IncidentReport, IngestArticleBody, MergeEventBody, OpsEvent } from './events.schemas.js';
import type { EventsService } from './events.service.js';

const ops = { access: 'ops' as const };
const tags = ['Operator: corpus'];

export function eventsOpsRoutes(app: TypedApp, events: EventsService): void {
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
