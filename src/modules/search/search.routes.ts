// POST /v1/events/search: execute (no cursor, charged) or continue (cursor, free).
import { principalOf } from '../../platform/http/guard.js';
import { billedWhen } from '../../platform/http/idempotency.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { SearchBody, SearchResult } from './search.schemas.js';
import type { SearchService } from './search.service.js';
import { feature } from '../../platform/http/feature.js';

/** A cursor-less search charges; its idempotency claim is never taken over after a crash. */
const isBilled = (body: unknown) => body === null || typeof body !== 'object' || !('cursor' in body);

export function searchRoutes(app: TypedApp, search: SearchService): void {
  app.post(
    '/events/search',
    {
      config: { scope: 'EVENTS_READ', idempotency: billedWhen(isBilled) },
      schema: {
        operationId: 'searchEvents',
        tags: ['Event search'],
        summary: 'Search events (billed per execution)',
        description:
          "Without `cursor`: a new execution, charged the plan's `search_credit_cost` once, answering its first page. " +
          'With `cursor` (and optionally `limit`): the next page of that execution, not charged. Results are ordered by ' +
          '`first_report_date`, newest first, ties by `id` descending.',
        body: SearchBody,
        response: { 200: SearchResult },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return search.search({ accountId: principal.accountId, keyId: principal.keyId }, request.body);
    },
  );
}

export const searchFeature = (search: SearchService) => feature({ v1: (app) => searchRoutes(app, search) });
