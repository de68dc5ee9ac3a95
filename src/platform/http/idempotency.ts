// Idempotency keys on every API-key POST, in one place. A route takes part by being a POST
// with a scope. What its answers do to the claim is the route's idempotency policy: the
// default of the v1 document's table, the billed search's (a claim left by a dead request is
// never taken over), or report filing's own table.
// The claim is taken after authentication, budget and scope, and before body validation
// (decisions.md's order of checks); the response settles it just before it is sent.
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { completeClaim, type CommitAnswer, type IdempotencyClaims, type StoredResponse } from '../idempotency-claims.js';
import { ProblemError } from '../problems.js';
import { principalOf } from './guard.js';

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;
/** Responses that leave the key unused: validation failures, no credits, pre-charge refusals. */
const RELEASING_STATUSES = new Set([400, 402, 503]);

/**
 * What an answer does to its claim: `complete` stores it for replays; `release` leaves the
 * key unused; `hold` keeps the claim in flight from now on (a same-request retry may take it
 * over once it is a minute old); `keep` leaves it in flight as it was (as after a crash).
 */
export type SettleAction = 'complete' | 'release' | 'hold' | 'keep';

export interface IdempotencyPolicy {
  /** Whether this request charges (a billed claim is never taken over after a crash). */
  billed(body: unknown): boolean;
  /** `outcomeStatus`: what the route recorded when the HTTP status does not tell the outcome. */
  settle(status: number, body: Buffer, outcomeStatus?: number | null): SettleAction;
}

/** The v1 document's table: 400, 402 and 503 release; other server errors stay in flight. */
export const DEFAULT_IDEMPOTENCY: IdempotencyPolicy = {
  billed: () => false,
  settle: (status) => (RELEASING_STATUSES.has(status) ? 'release' : status < 500 ? 'complete' : 'keep'),
};

/** The default table on a route whose requests charge when `billed` says so. */
export const billedWhen = (billed: (body: unknown) => boolean): IdempotencyPolicy => ({ ...DEFAULT_IDEMPOTENCY, billed });
/**
 * Response headers a replay repeats. The request id is the original's, as in the replayed
 * body's `request_id`; the budget headers are the new request's.
 */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-request-id'];
/** One-time values never stored, so never replayed (sensor create and secret rotation). */
const ONE_TIME_MEMBERS = ['signing_secret'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route's answers do to idempotency claims (DEFAULT_IDEMPOTENCY when absent). */
    idempotency?: IdempotencyPolicy;
  }
  interface FastifyRequest {
    /** The body exactly as received, for the idempotency fingerprint. */
    rawBody: Buffer | null;
    idempotencyClaim: { apiKeyId: string; key: string; owner: string } | null;
    /**
     * The status of the outcome when the HTTP status does not tell it (an MCP tool that ran and
     * failed answers 200 with its problem inside); null otherwise.
     */
    outcomeStatus: number | null;
  }
}

export interface IdempotencyOptions {
  /**
   * Tests only (EVMON_TEST_ANSWER_PAUSE): runs when a request with a key has its answer made,
   * its effect committed, and before the claim is settled and the answer sent, so a test can
   * kill the process between commit and answer.
   */
  beforeAnswer?: () => Promise<void>;
}

export function installIdempotency(app: FastifyInstance, claims: IdempotencyClaims, options: IdempotencyOptions = {}): void {
  app.decorateRequest('rawBody', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('outcomeStatus', null);

  // The body parser (body-parsing.ts) keeps JSON bodies as bytes in rawBody: "the same
  // request" means the same body bytes, not the same JSON value.

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = (route.config ?? {}) as { scope?: unknown; transport?: 'rest' | 'mcp'; idempotency?: IdempotencyPolicy };
    if (!methods.includes('POST') || !config.scope) return;
    const transport = config.transport ?? 'rest';
    const policy = config.idempotency ?? DEFAULT_IDEMPOTENCY;
    route.preValidation = [claimHook(transport, policy.billed), ...asArray(route.preValidation)] as never;
    route.onSend = [settleHook(policy), ...asArray(route.onSend)] as never;
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
      let outcome: Awaited<ReturnType<IdempotencyClaims['claim']>>;
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
          throw inFlight();
      }
    };
  }

  function settleHook(policy: IdempotencyPolicy) {
    return async function settleIdempotencyClaim(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
      const claim = request.idempotencyClaim;
      if (claim === null) return payload;
      request.idempotencyClaim = null;
      await options.beforeAnswer?.();
      try {
        const stored = storedResponse(reply, payload);
        const action = policy.settle(reply.statusCode, stored?.body ?? Buffer.alloc(0), request.outcomeStatus);
        if (action === 'release') await claims.release(claim.apiKeyId, claim.key, claim.owner);
        else if (action === 'hold') await claims.hold(claim.apiKeyId, claim.key, claim.owner);
        else if (action === 'complete' && stored) await claims.complete(claim.apiKeyId, claim.key, claim.owner, stored);
        else if (action === 'complete') request.log.error('idempotency claim left in flight: a streamed response cannot be stored');
      } catch (error) {
        // The answer stands; the claim stays in flight, as after a crash.
        request.log.error({ err: error }, 'idempotency claim not settled');
      }
      return payload;
    };
  }
}

const inFlight = () =>
  new ProblemError(
    'idempotency-in-flight',
    'A request with this Idempotency-Key is still running, or ended without an answer on a billed endpoint (then use a new key).',
  );

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * For a route whose stored answer commits with its effect (architecture habit 13): a
 * CommitAnswer that completes the request's claim with `answer` as `sendJson` then sends it,
 * byte for byte. When the claim is no longer this request's (it went stale and a retry took
 * it over), it throws 409 idempotency-in-flight, so the effect rolls back and only the retry's
 * stands. Undefined when the request has no Idempotency-Key.
 */
export function answerWithEffect<T>(request: FastifyRequest, reply: FastifyReply, status: number): CommitAnswer<T> | undefined {
  const claim = request.idempotencyClaim;
  if (claim === null) return undefined;
  return async (tx, answer, at) => {
    reply.code(status).type(JSON_TYPE);
    const stored = storedResponse(reply, JSON.stringify(answer))!;
    if (!(await completeClaim(tx, claim, stored, at))) throw inFlight();
  };
}

/** Sends `answer` as JSON, serialized as answerWithEffect stored it. */
export function sendJson(reply: FastifyReply, status: number, answer: unknown): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify(answer));
}

/**
 * A route's whole answer for an effect that stores it (architecture habit 13): runs `effect`
 * with the request's CommitAnswer and sends what it answers, as stored.
 */
export async function respondWithEffect<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  effect: (commitAnswer: CommitAnswer<T> | undefined) => Promise<T>,
): Promise<FastifyReply> {
  return sendJson(reply, status, await effect(answerWithEffect<T>(request, reply, status)));
}

/** "The same request": transport, method, path and the exact body bytes. */
export function requestFingerprint(transport: string, method: string, url: string, body: Buffer | null): Buffer {
  return createHash('sha256')
    .update(`${transport}\n${method}\n${url}\n`)
    .update(body ?? Buffer.alloc(0))
    .digest();
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
