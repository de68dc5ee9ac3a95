// /v1/beats: HTTP only. Idempotency-Key is honoured on every POST (create, enable, disable,
// resume, entries reads) by the shared idempotency layer; PUT, PATCH and DELETE ignore it.
import { principalOf } from '../../platform/http/guard.js';
import { respondWithEffect } from '../../platform/http/idempotency.js';
import { IdParams, StrictObject } from '../../platform/http/schema-kit.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import type { BeatEntriesService } from './beat-entries.service.js';
import { Beat, BeatEntries, BeatList, CreateBeatBody, EntriesBody, ReplaceBeatBody, SpendCapBody } from './beats.schemas.js';
import type { BeatsService } from './beats.service.js';
import { feature } from '../../platform/http/feature.js';

const tags = ['Beats'];
/** The list takes no paging parameters (or any other): unknown ones are refused. */
const NoQuery = StrictObject({});
const read = { scope: 'BEATS_READ' as const };
const write = { scope: 'BEATS_WRITE' as const };

export function beatsRoutes(app: TypedApp, beats: BeatsService, entries: BeatEntriesService): void {
  app.get(
    '/beats',
    { config: read, schema: { operationId: 'listBeats', tags, summary: 'List every beat, in one page', querystring: NoQuery, response: { 200: BeatList } } },
    async (request) => beats.list(principalOf(request).accountId),
  );

  app.get(
    '/beats/:id',
    { config: read, schema: { operationId: 'getBeat', tags, summary: 'Read a beat', params: IdParams, response: { 200: Beat } } },
    async (request) => beats.get(principalOf(request).accountId, request.params.id),
  );

  app.post(
    '/beats',
    {
      config: write,
      schema: {
        operationId: 'createBeat',
        tags,
        summary: 'Create a beat',
        description:
          "Answers 201 with the beat. It then backfills entries for events first reported within the plan's `backfill_days`, oldest first, in the background.",
        body: CreateBeatBody,
        response: { 201: Beat },
      },
    },
    async (request, reply) => respondWithEffect(request, reply, 201, (commit) => beats.create(principalOf(request).accountId, request.body, commit)),
  );

  app.put(
    '/beats/:id',
    {
      config: write,
      schema: {
        operationId: 'replaceBeat',
        tags,
        summary: 'Replace name, description and clauses (409 when nothing changes)',
        params: IdParams,
        body: ReplaceBeatBody,
        response: { 200: Beat },
      },
    },
    async (request) => beats.replace(principalOf(request).accountId, request.params.id, request.body),
  );

  app.delete(
    '/beats/:id',
    { config: write, schema: { operationId: 'deleteBeat', tags, summary: 'Delete a beat; recording stops at once', params: IdParams } },
    async (request, reply) => {
      await beats.remove(principalOf(request).accountId, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/beats/:id/enable',
    {
      config: write,
      schema: {
        operationId: 'enableBeat',
        tags,
        summary: 'Enable a beat (ACTIVE afterwards; 409 when already enabled)',
        params: IdParams,
        response: { 200: Beat },
      },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) => beats.setEnabled(principalOf(request).accountId, request.params.id, true, commit)),
  );

  app.post(
    '/beats/:id/disable',
    {
      config: write,
      schema: { operationId: 'disableBeat', tags, summary: 'Disable a beat (409 when already disabled)', params: IdParams, response: { 200: Beat } },
    },
    async (request, reply) =>
      respondWithEffect(request, reply, 200, (commit) => beats.setEnabled(principalOf(request).accountId, request.params.id, false, commit)),
  );

  app.post(
    '/beats/:id/resume',
    {
      config: write,
      schema: {
        operationId: 'resumeBeat',
        tags,
        summary: 'Resume after a spend-cap pause (409 unless paused by the cap)',
        params: IdParams,
        response: { 200: Beat },
      },
    },
    async (request, reply) => respondWithEffect(request, reply, 200, (commit) => beats.resume(principalOf(request).accountId, request.params.id, commit)),
  );

  app.patch(
    '/beats/:id/spend-cap',
    {
      config: write,
      schema: {
        operationId: 'setBeatSpendCap',
        tags,
        summary: 'Set the monthly spend cap (does not resume a paused beat)',
        params: IdParams,
        body: SpendCapBody,
        response: { 200: Beat },
      },
    },
    async (request) => beats.setSpendCap(principalOf(request).accountId, request.params.id, request.body.spend_cap_credits),
  );

  app.post(
    '/beats/:id/entries',
    {
      config: read,
      schema: {
        operationId: 'readBeatEntries',
        tags,
        summary: 'Read entries, by window or by polling',
        params: IdParams,
        body: EntriesBody,
        response: { 200: BeatEntries },
      },
    },
    async (request) => entries.read(principalOf(request).accountId, request.params.id, request.body),
  );
}

export const beatsFeature = (deps: { beats: BeatsService; beatEntries: BeatEntriesService }) =>
  feature({ v1: (app) => beatsRoutes(app, deps.beats, deps.beatEntries) });
