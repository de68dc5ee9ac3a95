// Credits, sensors and beats: read through the same services as REST, for the signed-in
// user's account, with what only the console shows (the ledger grouped, counts per day, names
// for ids); redeliver and test deliveries are the changes made here.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { BeatEntriesService } from '../modules/beats/beat-entries.service.js';
import type { BeatsService } from '../modules/beats/beats.service.js';
import type { SelfService } from '../modules/accounts/self-service.js';
import type { ReferenceService } from '../modules/corpus/reference.service.js';
import type { SensorsService } from '../modules/sensors/sensors.service.js';
import { sessionOf } from '../platform/http/guard.js';
import { IdParams, StrictObject, Uuid } from '../platform/http/schema-kit.js';
import { storableInstant } from '../platform/instants.js';
import { fieldProblem, ProblemError } from '../platform/problems.js';
import { noticeOf, sendHtml, viewerOf } from './console-replies.js';
import { readPositionParam } from './views/beat-entries.js';
import { beatPage, beatsPage } from './views/beats.js';
import { clauseIds } from './views/clause-words.js';
import { creditsPage } from './views/credits.js';
import { sensorPage, sensorsPage } from './views/sensors.js';

const LEDGER_PAGE = 25;
const SENSORS_PAGE = 50;
const DELIVERIES_PAGE = 25;
const ENTRIES_PAGE = 20;
/** The pictures of activity per day cover this many UTC days, today included. */
const CHART_DAYS = 30;

const Paged = StrictObject({ starting_after: Type.Optional(Uuid), notice: Type.Optional(Type.String({ maxLength: 40 })) });
// A position in a beat's entries: "<added_at in ms>-<seq>" (views/beat-entries.tsx).
const EntryPosition = Type.String({ pattern: '^-?[0-9]{1,15}-[0-9]{1,15}$' });
const EntriesPaged = StrictObject({ older: Type.Optional(EntryPosition), newer: Type.Optional(EntryPosition) });
const DeliveryParams = StrictObject({ id: Uuid, delivery_id: Uuid });

export interface ConsolePagesDeps {
  self: SelfService;
  sensors: SensorsService;
  beats: BeatsService;
  beatEntries: BeatEntriesService;
  reference: ReferenceService;
}

export function consolePagesRoutes(app: FastifyInstance, { self, sensors, beats, beatEntries, reference }: ConsolePagesDeps): void {
  const config = { access: 'session' as const };
  const lastId = (page: { data: { id: string }[]; has_more: boolean }) => (page.has_more ? (page.data[page.data.length - 1]?.id ?? null) : null);

  app.get('/credits', { config, schema: { querystring: Paged } }, async (request, reply) => {
    const { accountId } = sessionOf(request);
    const { starting_after: after } = request.query as { starting_after?: string };
    const account = await self.account(accountId);
    const spent = await self.spentPerDay(accountId, CHART_DAYS);
    const ledger = await self.ledgerGroups(accountId, LEDGER_PAGE, after?.toLowerCase());
    const beatNames = await beats.names(accountId, [...new Set(ledger.data.flatMap((group) => (group.beat_id ? [group.beat_id] : [])))]);
    return sendHtml(
      reply,
      200,
      creditsPage({ viewer: viewerOf(request, reply), account, spent, ledger: ledger.data, beatNames, nextAfter: lastId(ledger), paged: after !== undefined }),
    );
  });

  app.get('/sensors', { config, schema: { querystring: Paged } }, async (request, reply) => {
    const { starting_after: after } = request.query as { starting_after?: string };
    const list = await sensors.list(sessionOf(request).accountId, { limit: SENSORS_PAGE, starting_after: after });
    return sendHtml(reply, 200, sensorsPage({ viewer: viewerOf(request, reply), sensors: list.data, nextAfter: lastId(list) }));
  });

  async function sensorDetail(accountId: string, id: string, after: string | undefined) {
    const sensor = await sensors.get(accountId, id);
    const names = await reference.names(accountId, clauseIds([sensor.filter]));
    const outcomes = await sensors.deliveryOutcomes(accountId, id, CHART_DAYS);
    const deliveries = await sensors.deliveries(accountId, id, { limit: DELIVERIES_PAGE, starting_after: after });
    return { sensor, names, outcomes, deliveries: deliveries.data, nextAfter: lastId(deliveries) };
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

  for (const [state, deliverUpdates] of [
    ['on', true],
    ['off', false],
  ] as const) {
    app.post(`/sensors/:id/updates/${state}`, { config, schema: { params: IdParams } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      await sensors.patch(sessionOf(request).accountId, id, { deliver_updates: deliverUpdates });
      request.log.info({ sensor_id: id, deliver_updates: deliverUpdates }, 'console set whether a sensor delivers updates');
      return reply.redirect(`/console/sensors/${id.toLowerCase()}?notice=updates-${state}`, 303);
    });
  }

  app.get('/beats', { config }, async (request, reply) => {
    const list = await beats.list(sessionOf(request).accountId);
    return sendHtml(reply, 200, beatsPage({ viewer: viewerOf(request, reply), beats: list.data }));
  });

  app.get('/beats/:id', { config, schema: { params: IdParams, querystring: EntriesPaged } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { older, newer } = request.query as { older?: string; newer?: string };
    const { accountId } = sessionOf(request);
    const beat = await beats.get(accountId, id);
    const names = await reference.names(accountId, clauseIds(beat.clauses));
    const recorded = await beatEntries.recordedPerDay(accountId, id, CHART_DAYS);
    // A newer page when asked for one, else the older page, else the newest.
    const at = newer !== undefined ? { newer: entryPosition(newer, '/newer') } : older !== undefined ? { older: entryPosition(older, '/older') } : {};
    const entries = await beatEntries.browse(accountId, id, at, ENTRIES_PAGE);
    return sendHtml(reply, 200, beatPage({ viewer: viewerOf(request, reply), beat, names, recorded, entries }));
  });
}

/** A position from a page link; one at an instant the database cannot hold is refused like a malformed one. */
function entryPosition(text: string, pointer: string) {
  const position = readPositionParam(text);
  if (!storableInstant(new Date(position.atMs))) throw fieldProblem(pointer, 'is not a position in these entries');
  return position;
}
