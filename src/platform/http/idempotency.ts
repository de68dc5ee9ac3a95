// Idempotency keys on every API-key POST, in one place. A route takes part by being a POST
// with a scope; it declares `billed` when some of its requests charge (the cursor-less
// search), which decides whether a claim left by a dead request may ever be taken over.
// The claim is taken after authentication, budget and scope, and before body validation
// (decisions.md's order of checks); the response settles it just before it is sent.
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyClaims, StoredResponse } from '../idempotency-claims.js';
import { ProblemError } from '../problems.js';
import { principalOf } from './guard.js';

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;
/** Responses that leave the key unused: validation failures, no credits, pre-charge refusals. */
const RELEASING_STATUSES = new Set([400, 402, 503]);
/**
 * Response headers a replay repeats. The request id is the original's, as in the replayed
 * body's `request_id`; the budget headers are the new request's.
 */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-request-id'];
/** One-time values never stored, so never replayed (sensor create and secret rotation). */
const ONE_TIME_MEMBERS = ['signing_secret'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether this request charges (billed claims are never taken over after a crash). */
    billed?: (body: unknown) => boolean;
  }
  interface FastifyRequest {
    /** The body exactly as received, for the idempotency fingerprint. */
    rawBody: Buffer | null;
    idempotencyClaim: { apiKeyId: string; key: string; owner: string } | null;
  }
}

export function installIdempotency(app: FastifyInstance, claims: IdempotencyClaims): void {
  app.decorateRequest('rawBody', null);
  app.decorateRequest('idempotencyClaim', null);

  // JSON bodies are kept as bytes beside the parsed value: "the same request" means the same
  // body bytes, not the same JSON value.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    parseJson(request, (body as Buffer).toString('utf8'), done);
  });

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = (route.config ?? {}) as { scope?: string; transport?: 'rest' | 'mcp'; billed?: (body: unknown) => boolean };
    if (!methods.includes('POST') || !config.scope) return;
    const transport = config.transport ?? 'rest';
    const billed = config.billed ?? (() => false);
    route.preValidation = [claimHook(transport, billed), ...asArray(route.preValidation)] as never;
    route.onSend = [settleHook, ...asArray(route.onSend)] as never;
  });

  function claimHook(transport: string, billed: (body: unknown) => boolean) {
    return async function claimIdempotencyKey(request: FastifyRequest, reply: FastifyReply) {
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
        throw new ProblemError('validation-failed', 'Idempotency-Key must be 1 to 255 characters from A-Z, a-z, 0-9, "_" and "-".');
      }
      const apiKeyId = principalOf(request).keyId;
      const fingerprint = requestFingerprint(transport, request.method, request.url, request.rawBody);
      const owner = randomUUID();
      let outcome;
      try {
        outcome = await claims.claim({ apiKeyId, key: header, fingerprint, billed: billed(request.body), owner });
      } catch (error) {
        // The claim may have been written with its answer lost: release it (best effort), as
        // the 503 that follows promises.
        await claims.release(apiKeyId, header, owner).catch(() => undefined);
        throw error;
      }
      switch (outcome.kind) {
        case 'claimed':
          request.idempotencyClaim = { apiKeyId, key: header, owner };
          return;
        case 'replay':
          return replay(reply, outcome.response);
        case 'conflict':
          throw new ProblemError('idempotency-key-conflict', 'This Idempotency-Key was used for a different request; use a new key for a new request.');
        case 'in-flight':
          throw new ProblemError(
            'idempotency-in-flight',
            'A request with this Idempotency-Key is still running, or ended without an answer on a billed endpoint (then use a new key).',
          );
      }
    };
  }

  async function settleHook(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotencyClaim;
    if (claim === null) return payload;
    request.idempotencyClaim = null;
    const status = reply.statusCode;
    try {
      if (RELEASING_STATUSES.has(status)) await claims.release(claim.apiKeyId, claim.key, claim.owner);
      // Other server errors keep the claim in flight: reclaimable after a minute when not
      // billed, never when billed (it is unknown whether the charge happened).
      else if (status < 500) {
        const stored = storedResponse(reply, payload);
        if (stored) await claims.complete(claim.apiKeyId, claim.key, claim.owner, stored);
        else request.log.error('idempotency claim left in flight: a streamed response cannot be stored');
      }
    } catch (error) {
      // The answer stands; the claim stays in flight, as after a crash.
      request.log.error({ err: error }, 'idempotency claim not settled');
    }
    return payload;
  }
}

/** "The same request": transport, method, path and the exact body bytes. */
export function requestFingerprint(transport: string, method: string, url: string, body: Buffer | null): Buffer {
  return createHash('sha256').update(`${transport}\n${method}\n${url}\n`).update(body ?? Buffer.alloc(0)).digest();
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  return reply.code(response.status).header('idempotency-replayed', 'true').send(response.body);
}

/** The response as stored for replays; null when it is a stream, which cannot be stored. */
function storedResponse(reply: FastifyReply, payload: unknown): StoredResponse | null {
  if (payload !== null && payload !== undefined && typeof payload !== 'string' && !Buffer.isBuffer(payload)) return null;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  let body = typeof payload === 'string' ? Buffer.from(payload) : ((payload as Buffer | null | undefined) ?? Buffer.alloc(0));
  if (ONE_TIME_MEMBERS.some((member) => body.includes(`"${member}"`))) body = withoutOneTimeMembers(body);
  return { status: reply.statusCode, headers, body };
}

function withoutOneTimeMembers(body: Buffer): Buffer {
  const value = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  for (const member of ONE_TIME_MEMBERS) delete value[member];
  return Buffer.from(JSON.stringify(value));
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
