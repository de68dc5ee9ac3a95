// Every request passes one guard, in the order decisions.md gives: the IP edge policy,
// authentication (401), the key's budget (429), scope (403). A route declares what it needs
// in its config (`scope` for /v1 routes, `access` for the rest); nothing else checks it.
// Console pages are reached with a session cookie, never an API key: every /console route
// must say so (access 'session') or say it is public, so none is left open by accident.
import { timingSafeEqual, createHash } from 'node:crypto';
import type {} from '@fastify/cookie'; // request.cookies
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../problems.js';
import type { RateLimiter } from '../rate-limits/rate-limiter.js';
import type { Scope } from '../scopes.js';

export interface Principal {
  keyId: string;
  accountId: string;
  scopes: ReadonlySet<Scope>;
  restPerMinute: number;
  mcpPerMinute: number;
}

export interface Authenticator {
  /** The principal of a well-formed raw key, or null when unknown or revoked. */
  authenticate(rawKey: string): Promise<Principal | null>;
}

/** A signed-in console user: the session and the one account it may see. */
export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  accountId: string;
  email: string;
}

export interface SessionAuthenticator {
  /** The cookie holding the session token. */
  cookieName: string;
  /** The session a token names, or null when unknown or expired. */
  resume(token: string): Promise<SessionPrincipal | null>;
}

/** A console page was asked for without a live session; the console answers with its sign-in page. */
export class SignInRequired extends Error {
  constructor() {
    super('sign in to the console');
  }
}

export type RouteAccess = 'public' | 'ops' | 'key' | 'probe' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call: a probe (no budget, no edge policy), anyone, the operator, an API key, or a console session. */
    access?: RouteAccess;
    /** The scope an API key needs (access 'key'), or every one of several. */
    scope?: Scope | readonly Scope[];
    /** Which of the key's budgets the request spends. */
    transport?: 'rest' | 'mcp';
  }
  interface FastifyRequest {
    principal: Principal | null;
    consoleSession: SessionPrincipal | null;
  }
}

export interface GuardOptions {
  limiter: RateLimiter;
  authenticator: Authenticator;
  parseKey: (authorization: string | undefined) => string | null;
  opsToken: string | null;
  sessions: SessionAuthenticator;
}

function banReply(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  // The edge ban is not an application error: a bare 429, no body.
  return reply.code(429).header('retry-after', String(retryAfterSeconds)).send();
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export type RequestGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The guards that routes without one of their own need: the not-found handler's. */
export interface SharedGuards {
  /** The IP edge policy: unknown routes still count toward it. */
  edge: RequestGuard;
  /**
   * The operator token alone (the edge policy already counted the request): a method the
   * operator API does not take on a path it has is told only to the operator.
   */
  operator: RequestGuard;
}

export function installGuard(app: FastifyInstance, options: GuardOptions): SharedGuards {
  const { limiter, authenticator, parseKey } = options;
  const opsDigest = options.opsToken === null ? null : digest(options.opsToken);

  app.decorateRequest('principal', null);
  app.decorateRequest('consoleSession', null);

  // Every response carries X-Request-Id, probes and unknown routes included.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  // Each route gets the guard its declaration calls for, chosen once here rather than
  // looked up on every request. Every /v1 route must declare its scope; a route that forgot
  // would otherwise be open.
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { access?: RouteAccess; scope?: Scope | readonly Scope[] };
    if (route.url.startsWith('/v1/') && config.access !== 'public' && !config.scope) {
      throw new Error(`route ${route.method} ${route.url} declares no scope`);
    }
    if (route.url.startsWith('/ops/') && config.access !== 'ops') {
      throw new Error(`route ${route.method} ${route.url} is under /ops/ but not declared access 'ops'`);
    }
    if (config.scope && config.access !== undefined && config.access !== 'key') {
      throw new Error(`route ${route.method} ${route.url} declares a scope with access '${config.access}'`);
    }
    if ((route.url === '/console' || route.url.startsWith('/console/')) && config.access !== 'session' && config.access !== 'public') {
      throw new Error(`route ${route.method} ${route.url} is under /console but declares neither access 'session' nor 'public'`);
    }
    if (config.scope && config.access === undefined) config.access = 'key';
    if (config.access === 'probe') return;
    const guard =
      config.access === 'key'
        ? keyGuard([config.scope!].flat(), (route.config as { transport?: 'rest' | 'mcp' }).transport ?? 'rest')
        : config.access === 'ops'
          ? opsGuard
          : config.access === 'session'
            ? sessionGuard
            : edgeGuard;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [guard as never, ...existing];
  });

  async function edgeGuard(request: FastifyRequest, reply: FastifyReply) {
    const ip = request.ip;
    const bannedFor = limiter.bannedFor(ip);
    if (bannedFor !== null) return banReply(reply, bannedFor);
    const verdict = await limiter.hit(ip, null);
    if (verdict.banRetryAfterSeconds !== null) return banReply(reply, verdict.banRetryAfterSeconds);
  }

  async function opsGuard(request: FastifyRequest, reply: FastifyReply) {
    await edgeGuard(request, reply);
    if (reply.sent) return reply;
    checkOpsToken(request);
  }

  function checkOpsToken(request: FastifyRequest): void {
    const header = authorizationOf(request);
    const given = header === DUPLICATED ? undefined : BEARER.exec(header ?? '')?.[1];
    if (opsDigest === null || given === undefined || !timingSafeEqual(digest(given), opsDigest)) {
      throw new ProblemError('invalid-api-key', header === DUPLICATED ? ONE_HEADER : 'The operator API needs Authorization: Bearer <EVMON_OPS_TOKEN>.');
    }
  }

  async function sessionGuard(request: FastifyRequest, reply: FastifyReply) {
    await edgeGuard(request, reply);
    if (reply.sent) return reply;
    const token = request.cookies?.[options.sessions.cookieName];
    const session = token === undefined ? null : await options.sessions.resume(token);
    if (session === null) throw new SignInRequired();
    request.consoleSession = session;
  }

  function keyGuard(scopes: readonly Scope[], transport: 'rest' | 'mcp') {
    return async function guardKey(request: FastifyRequest, reply: FastifyReply) {
      const ip = request.ip;
      const bannedFor = limiter.bannedFor(ip);
      if (bannedFor !== null) return banReply(reply, bannedFor);

      const header = authorizationOf(request);
      const rawKey = header === DUPLICATED ? null : parseKey(header);
      const principal = rawKey === null ? null : await authenticator.authenticate(rawKey);
      if (principal === null) {
        await edgeGuard(request, reply); // an unauthenticated request still counts for its IP
        if (reply.sent) return reply;
        throw new ProblemError('invalid-api-key', keyRefusal(header));
      }

      const limit = transport === 'mcp' ? principal.mcpPerMinute : principal.restPerMinute;
      const verdict = await limiter.hit(ip, { bucket: transport, subject: principal.keyId, limit });
      if (verdict.banRetryAfterSeconds !== null) return banReply(reply, verdict.banRetryAfterSeconds);
      const budget = verdict.budget!;
      reply.header('ratelimit-limit', budget.limit);
      reply.header('ratelimit-remaining', budget.remaining);
      reply.header('ratelimit-reset', budget.resetSeconds);
      reply.header('ratelimit-policy', `${budget.limit};w=60`);
      if (budget.exceeded) {
        throw new ProblemError('rate-limited', `The key's ${transport === 'mcp' ? 'MCP' : 'REST'} budget of ${budget.limit} requests per minute is spent.`, {
          headers: { 'retry-after': String(budget.resetSeconds) },
        });
      }
      const missing = scopes.filter((scope) => !principal.scopes.has(scope));
      if (missing.length > 0) {
        throw new ProblemError(
          'missing-scope',
          `This endpoint needs the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' and ')}; the key lacks ${missing.join(' and ')}.`,
        );
      }
      request.principal = principal;
    };
  }

  return { edge: edgeGuard, operator: async (request) => checkOpsToken(request) };
}

const DUPLICATED = Symbol('more than one Authorization header');
const ONE_HEADER = 'Send exactly one Authorization header; this request has more than one.';
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Why a request's key was refused. How to send a key is said only to a request that did not
 * send one the right way; a client that did is told its key is not valid, since repeating the
 * instructions it followed would send its developer looking at the header instead of the key.
 */
function keyRefusal(header: string | undefined | typeof DUPLICATED): string {
  if (header === DUPLICATED) return ONE_HEADER;
  if (header === undefined) return 'No API key was sent: send it as Authorization: Bearer evk_…';
  if (!BEARER.test(header)) return 'The Authorization header is malformed: send the API key as Authorization: Bearer evk_…';
  return 'The API key is not valid: it is unknown or has been revoked.';
}

/**
 * The request's Authorization header. Node keeps the first of several, and a proxy may keep
 * another: which credential counts would depend on the hop, so two or more are refused
 * (decisions.md, "HTTP hardening").
 */
function authorizationOf(request: FastifyRequest): string | undefined | typeof DUPLICATED {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') seen++;
  return seen > 1 ? DUPLICATED : request.headers.authorization;
}

/** The session of a console route; the guard has set it. */
export function sessionOf(request: FastifyRequest): SessionPrincipal {
  if (!request.consoleSession) throw new Error('route is not session-authenticated');
  return request.consoleSession;
}

/** The principal of a key-authenticated route; the guard has set it. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is not key-authenticated');
  return request.principal;
}
