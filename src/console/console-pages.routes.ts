// Credits, sensors and beats: read through the same services as REST, for the signed-in
// user's account; redeliver and test deliveries are the changes made here.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { BeatEntriesService } from '../modules/beats/beat-entries.service.js';
import type { BeatsService } from '../modules/beats/beats.service.js';
import type { SelfService } from '../modules/accounts/self-service.js';
import type { SensorsService } from '../modules/sensors/sensors.service.js';
import { sessionOf } from '../platform/http/guard.js';
import { IdParams, StrictObject, Uuid } from '../platform/http/schema-kit.js';
import { ProblemError } from '../platform/problems.js';
import { noticeOf, sendHtml, viewerOf } from './console-replies.js';
import { beatPage, beatsPage } from './views/beats.js';
import { creditsPage } from './views/credits.js';
import { sensorPage, sensorsPage } from './views/sensors.js';

const LEDGER_PAGE = 25;
const SENSORS_PAGE = 50;
const DELIVERIES_PAGE = 25;
const LATEST_ENTRIES = 20;

const Paged = StrictObject({ starting_after: Type.Optional(Uuid), notice: Type.Optional(Type.String({ maxLength: 40 })) });
const DeliveryParams = StrictObject({ id: Uuid, delivery_id: Uuid });

export interface ConsolePagesDeps {
  self: SelfService;
  sensors: SensorsService;
  beats: BeatsService;
  beatEntries: BeatEntriesService;
}

export function consolePagesRoutes(app: FastifyInstance, { self, sensors, beats, beatEntries }: ConsolePagesDeps): void {
  const config = { access: 'session' as const };
  const lastId = (page: { data: { id: string }[]; has_more: boolean }) => (page.has_more ? (page.data[page.data.length - 1]?.id ?? null) : null);

  app.get('/credits', { config, schema: { querystring: Paged } }, async (request, reply) => {
    const { accountId } = sessionOf(request);
    const { starting_after: after } = request.query as { starting_after?: string };
    const account = await self.account(accountId);
    const ledger = await self.creditTransactions(accountId, LEDGER_PAGE, after?.toLowerCase());
    return sendHtml(
      reply,
      200,
      creditsPage({ viewer: viewerOf(request, reply), account, ledger: ledger.data, nextAfter: lastId(ledger), paged: after !== undefined }),
    );
  });

  app.get('/sensors', { config, schema: { querystring: Paged } }, async (request, reply) => {
    const { starting_after: after } = request.query as { starting_after?: string };
    const list = await sensors.list(sessionOf(request).accountId, { limit: SENSORS_PAGE, starting_after: after });
    return sendHtml(reply, 200, sensorsPage({ viewer: viewerOf(request, reply), sensors: list.data, nextAfter: lastId(list) }));
  });

  async function sensorDetail(accountId: string, id: string, after: string | undefined) {
    const sensor = await sensors.get(accountId, id);
    const deliveries = await sensors.deliveries(accountId, id, { limit: DELIVERIES_PAGE, starting_after: after });
    return { sensor, deliveries: deliveries.data, nextAfter: lastId(deliveries) };
  }

  app.get('/sensors/:id', { config, schema: { params: IdParams, querystring: Paged } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { starting_after: after } = request.query as { starting_after?: string };
    const detail = await sensorDetail(sessionOf(request).accountId, id, after);
    return sendHtml(reply, 200, sensorPage({ viewer: viewerOf(request, reply), ...detail, notice: noticeOf(request), problem: null }));
  });

  app.post('/sensors/:id/deliveries/:delivery_id/redeliver', { config, schema: { params: DeliveryParams } }, async (request, reply) => {
    const { id, delivery_id: deliveryId } = request.params as { id: string; delivery_id: string };
    const { accountId } = sessionOf(request);
    try {
      await sensors.redeliver(accountId, id, deliveryId);
    } catch (error) {
      // A delivery still pending: the sensor's page again, saying why.
      if (!(error instanceof ProblemError) || error.slug !== 'state-conflict') throw error;
      const detail = await sensorDetail(accountId, id, undefined);
      return sendHtml(reply, 409, sensorPage({ viewer: viewerOf(request, reply), ...detail, notice: null, problem: error.detail }));
    }
    request.log.info({ sensor_id: id, delivery_id: deliveryId }, 'console redelivered a delivery');
    return reply.redirect(`/console/sensors/${id.toLowerCase()}?notice=redelivered`, 303);
  });

  app.post('/sensors/:id/test', { config, schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const delivery = await sensors.sendTest(sessionOf(request).accountId, id);
    request.log.info({ sensor_id: id, delivery_id: delivery.id }, 'console sent a test delivery');
    return reply.redirect(`/console/sensors/${id.toLowerCase()}?notice=test-sent`, 303);
  });

  app.get('/beats', { config }, async (request, reply) => {
    const list = await beats.list(sessionOf(request).accountId);
    return sendHtml(reply, 200, beatsPage({ viewer: viewerOf(request, reply), beats: list.data }));
  });

  app.get('/beats/:id', { config, schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { accountId } = sessionOf(request);
    const beat = await beats.get(accountId, id);
    const entries = await beatEntries.read(accountId, id, { last: '30d', axis: 'added_at', limit: LATEST_ENTRIES });
    return sendHtml(reply, 200, beatPage({ viewer: viewerOf(request, reply), beat, entries }));
  });
}
