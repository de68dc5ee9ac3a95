// Corpus reference data over HTTP: the operator's calls (operations.md, "Corpus") and the
// public event-type list and entity search (REPORTS_READ).
import type { TypedApp } from '../../platform/http/typed-app.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import {
  CreateEntityBody,
  CreateEntityListBody,
  CreateEventTypeBody,
  CreateOutletBody,
  Entity,
  EntityList,
  EntityList_,
  EntitySearchQuery,
  EventTypeList,
  MergeEntityBody,
  OpsEventType,
  ListOutletsQuery,
  Outlet,
  OutletList,
  UpdateEventTypeBody,
} from './reference.schemas.js';
import type { ReferenceService } from './reference.service.js';

const ops = { access: 'ops' as const };
const tags = ['Operator: corpus'];

export function referenceOpsRoutes(app: TypedApp, reference: ReferenceService): void {
  app.post(
    '/outlets',
    { config: ops, schema: { operationId: 'opsCreateOutlet', summary: 'Create a news outlet', tags, body: CreateOutletBody, response: { 201: Outlet } } },
    async (request, reply) => reply.code(201).send(await reference.createOutlet(request.body)),
  );

  app.get(
    '/outlets',
    {
      config: ops,
      schema: {
        operationId: 'opsListOutlets',
        summary: 'List news outlets (newest first)',
        description: 'The outlets articles name in `outlet_id`; `query` keeps those whose name or domain holds it.',
        tags,
        querystring: ListOutletsQuery,
        response: { 200: OutletList },
      },
    },
    async (request) => reference.listOutlets(request.query),
  );

  app.post(
    '/entities',
    { config: ops, schema: { operationId: 'opsCreateEntity', summary: 'Create an entity', tags, body: CreateEntityBody, response: { 201: Entity } } },
    async (request, reply) => reply.code(201).send(await reference.createEntity(request.body)),
  );

  app.post(
    '/entities/:id/merge',
    {
      config: ops,
      schema: {
        operationId: 'opsMergeEntity',
        summary: 'Merge an entity into another',
        tags,
        params: IdParams,
        body: MergeEntityBody,
        response: { 200: Entity },
      },
    },
    async (request) => reference.mergeEntity(request.params.id, request.body.into_entity_id),
  );

  app.delete(
    '/entities/:id',
    { config: ops, schema: { operationId: 'opsDeleteEntity', summary: 'Delete an entity', tags, params: IdParams } },
    async (request, reply) => {
      await reference.deleteEntity(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/entity-lists',
    {
      config: ops,
      schema: { operationId: 'opsCreateEntityList', summary: 'Create an entity list', tags, body: CreateEntityListBody, response: { 201: EntityList } },
    },
    async (request, reply) => reply.code(201).send(await reference.createEntityList(request.body)),
  );

  app.post(
    '/event-types',
    {
      config: ops,
      schema: { operationId: 'opsCreateEventType', summary: 'Create an event type', tags, body: CreateEventTypeBody, response: { 201: OpsEventType } },
    },
    async (request, reply) => reply.code(201).send(await reference.createEventType(request.body)),
  );

  app.get(
    '/event-types/:id',
    { config: ops, schema: { operationId: 'opsGetEventType', summary: 'Read an event type', tags, params: IdParams, response: { 200: OpsEventType } } },
    async (request) => reference.getEventType(request.params.id),
  );

  app.patch(
    '/event-types/:id',
    {
      config: ops,
      schema: {
        operationId: 'opsUpdateEventType',
        summary: 'Update an event type',
        tags,
        params: IdParams,
        body: UpdateEventTypeBody,
        response: { 200: OpsEventType },
      },
    },
    async (request) => reference.updateEventType(request.params.id, request.body),
  );
}

export function referencePublicRoutes(app: TypedApp, reference: ReferenceService): void {
  app.get(
    '/event-types',
    {
      config: { scope: 'REPORTS_READ' },
      schema: { operationId: 'listEventTypes', tags: ['Structured reporting'], summary: 'Event types accepting reports', response: { 200: EventTypeList } },
    },
    async () => reference.listEventTypes(),
  );

  app.get(
    '/entities/search',
    {
      config: { scope: 'REPORTS_READ' },
      schema: {
        operationId: 'searchEntities',
        tags: ['Structured reporting'],
        summary: 'Entity look-up',
        description:
          'Case-insensitive substring match on names: names starting with the query first, then shorter names, then id. Merged-away and deleted entities are never returned.',
        querystring: EntitySearchQuery,
        response: { 200: EntityList_ },
      },
    },
    async (request) => reference.searchEntities(request.query.query, request.query.limit, request.query.starting_after),
  );
}
