// GET /v1/events/{id} and GET /v1/events/{id}/revisions (EVENTS_READ, not billed).
import type { TypedApp } from '../../platform/http/typed-app.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import type { EventReads } from './event-reads.js';
import { Event, EventRevisionList, RevisionsQuery } from './events.schemas.js';

const read = { scope: 'EVENTS_READ' as const };
const tags = ['Events'];

export function eventReadRoutes(app: TypedApp, reads: EventReads): void {
  app.get(
    '/events/:id',
    {
      config: read,
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'Read an event as it stands (not billed)',
        description:
          'The search-event fields counted over every report received so far, with `revision` and `updated_at`. ' +
          'An id merged away answers its surviving event, whose `id` differs. A deleted event or an unknown id is 404.',
        params: IdParams,
        response: { 200: Event },
      },
    },
    async (request) => reads.get(request.params.id),
  );

  app.get(
    '/events/:id/revisions',
    {
      config: read,
      schema: {
        operationId: 'listEventRevisions',
        tags,
        summary: "List an event's revisions, newest first (not billed)",
        description:
          "Each revision lists what changed since the one before. An id merged away lists its survivor's revisions. " +
          'Revisions are kept 90 days; the latest is kept whatever its age. `next_cursor` is a revision number, for `starting_after`.',
        params: IdParams,
        querystring: RevisionsQuery,
        response: { 200: EventRevisionList },
      },
    },
    async (request) => reads.revisions(request.params.id, request.query),
  );
}
