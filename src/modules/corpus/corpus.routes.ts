// The corpus's HTTP surface: event types and entity search on the public API; reference data,
// articles and events on the operator API.
import { feature } from '../../platform/http/feature.js';
import type { EventsService } from './events.service.js';
import { eventsOpsRoutes } from './events.routes.js';
import { referenceOpsRoutes, referencePublicRoutes } from './reference.routes.js';
import type { ReferenceService } from './reference.service.js';

export const corpusFeature = (deps: { reference: ReferenceService; events: EventsService; docsUrl: string }) =>
  feature({
    v1: (app) => referencePublicRoutes(app, deps.reference),
    ops: (app) => {
      referenceOpsRoutes(app, deps.reference);
      eventsOpsRoutes(app, deps.events, deps.docsUrl);
    },
  });
