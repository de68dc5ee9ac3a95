// The corpus's HTTP surface: event types, entity search and events by id on the public API; reference data,
// articles and events on the operator API.
import { feature } from '../../platform/http/feature.js';
import type { EventReads } from './event-reads.js';
import { eventReadRoutes } from './event-reads.routes.js';
import type { EventsService } from './events.service.js';
import { eventsOpsRoutes } from './events.routes.js';
import { referenceOpsRoutes, referencePublicRoutes } from './reference.routes.js';
import type { ReferenceService } from './reference.service.js';

export const corpusFeature = (deps: { reference: ReferenceService; events: EventsService; eventReads: EventReads; docsUrl: string }) =>
  feature({
    v1: (app) => {
      referencePublicRoutes(app, deps.reference);
      eventReadRoutes(app, deps.eventReads);
    },
    ops: (app) => {
      referenceOpsRoutes(app, deps.reference);
      eventsOpsRoutes(app, deps.events, deps.docsUrl);
    },
  });
