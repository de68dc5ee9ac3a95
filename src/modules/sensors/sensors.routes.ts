// /v1/sensors: HTTP only. Every POST takes an Idempotency-Key; a replay never carries the
// one-time `signing_secret` (the idempotency layer strips it before storing).
import { principalOf } from '../../platform/http/guard.js';
import { respondWithEffect } from '../../platform/http/idempotency.js';
import { IdParams, StrictObject, Uuid } from '../../platform/http/schema-kit.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import {
  CreateSensorBody,
  DeliveryList,
  ListSensorDeliveriesQuery,
  ListSensorsQuery,
  PatchSensorBody,
  Sensor,
  SensorDelivery,
  SensorList,
} from './sensors.schemas.js';
import type { SensorsService } from './sensors.service.js';
import { feature } from '../../platform/http/feature.js';

const tags = ['Sensors'];
const read = { scope: 'SENSORS_READ' as const };
const write = { scope: 'SENSORS_WRITE' as const };
const DeliveryParams = StrictObject({ id: Uuid, delivery_id: Uuid });

export function sensorsRoutes(app: TypedApp, sensors: SensorsService): void {
  app.get(
    '/sensors',
    {
      config: read,
      schema: { operationId: 'listSensors', tags, summary: 'List sensors (newest first)', querystring: ListSensorsQuery, response: { 200: SensorList } },
    },
    async (request) => sensors.list(principalOf(request).accountId, request.query),
  );

  app.get(
    '/sensors/:id',
    { config: read, schema: { operationId: 'getSensor', tags, summary: 'Read a sensor', params: IdParams, response: { 200: Sensor } } },
    async (request) => sensors.get(principalOf(request).accountId, request.params.id),
  );

  app.post(
    '/sensors',
    {
      config: write,
      schema: {
        operationId: 'createSensor',
        tags,
        summary: 'Create a sensor',
        description: 'Answers 201 with the sensor and its one-time `signing_secret`. Delivers events that match from now on; no backfill.',
        body: CreateSensorBody,
        response: { 201: Sensor },
      },
    },
    async (request, reply) => respondWithEffect(request, reply, 201, (commit) => sensors.create(principalOf(request).accountId, request.body, commit)),
  );

  app.patch(
    '/sensors/:id',
    {
      config: write,
      schema: {
        operationId: 'updateSensor',
        tags,
        summary: 'Update a sensor (JSON Merge Patch)',
        params: IdParams,
        body: PatchSensorBody,
        response: { 200: Sensor },
      },
    },
    async (request) => sensors.patch(principalOf(request).accountId, request.params.id, request.body),
  );

  app.post(
    '/sensors/:id/enable',
    {
      config: write,
      schema: { operationId: 'enableSensor', tags, summary: 'Enable a sensor (409 when already enabled)', params: IdParams, response: { 200: Sensor } },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) => sensors.setEnabled(principalOf(request).accountId, request.params.id, true, commit)),
  );

  app.post(
    '/sensors/:id/disable',
    {
      config: write,
      schema: { operationId: 'disableSensor', tags, summary: 'Disable a sensor (409 when already disabled)', params: IdParams, response: { 200: Sensor } },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) => sensors.setEnabled(principalOf(request).accountId, request.params.id, false, commit)),
  );

  app.delete(
    '/sensors/:id',
    { config: write, schema: { operationId: 'deleteSensor', tags, summary: 'Delete a sensor and its pending deliveries', params: IdParams } },
    async (request, reply) => {
      await sensors.remove(principalOf(request).accountId, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/sensors/:id/rotate-secret',
    {
      config: write,
      schema: {
        operationId: 'rotateSensorSecret',
        tags,
        summary: 'Rotate the signing secret',
        description: 'Answers the sensor with a new one-time `signing_secret`. For 24 hours deliveries carry two signatures, one per secret.',
        params: IdParams,
        response: { 200: Sensor },
      },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) => sensors.rotateSecret(principalOf(request).accountId, request.params.id, commit)),
  );

  app.post(
    '/sensors/:id/test',
    {
      config: write,
      schema: {
        operationId: 'sendSensorTestDelivery',
        tags,
        summary: 'Send a test delivery now',
        description:
          "One signed `sensor.test` delivery to each of the sensor's webhooks, made at once, whether the sensor is enabled or not; not billed. " +
          'Its body is `{type: "sensor.test", timestamp, data: {sensor_id, event}}`, `event` the latest event matching the filter among those first ' +
          'reported in the past 30 days (the search-event shape), or null. Answers 201 with the delivery (PENDING); it is in the delivery log, ' +
          'retried and redeliverable like any other. With an Idempotency-Key the stored answer commits with the delivery, so a retry never makes a second.',
        params: IdParams,
        response: { 201: SensorDelivery },
      },
    },
    async (request, reply) => respondWithEffect(request, reply, 201, (commit) => sensors.sendTest(principalOf(request).accountId, request.params.id, commit)),
  );

  app.get(
    '/sensors/:id/deliveries',
    {
      config: read,
      schema: {
        operationId: 'listSensorDeliveries',
        tags,
        summary: "List a sensor's deliveries (newest first)",
        params: IdParams,
        querystring: ListSensorDeliveriesQuery,
        response: { 200: DeliveryList },
      },
    },
    async (request) => sensors.deliveries(principalOf(request).accountId, request.params.id, request.query),
  );

  app.post(
    '/sensors/:id/deliveries/:delivery_id/redeliver',
    {
      config: write,
      schema: {
        operationId: 'redeliverSensorDelivery',
        tags,
        summary: 'Attempt a finished delivery again (409 while pending)',
        description: 'The same `webhook-id` and body, a fresh timestamp and signature, and a fresh retry schedule. Answers the delivery, PENDING.',
        params: DeliveryParams,
        response: { 200: SensorDelivery },
      },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) =>
        sensors.redeliver(principalOf(request).accountId, request.params.id, request.params.delivery_id, commit),
      ),
  );
}

export const sensorsFeature = (sensors: SensorsService) => feature({ v1: (app) => sensorsRoutes(app, sensors) });
