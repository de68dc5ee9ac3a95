// Three tiers of failure, one shape (RFC 9457): our own ProblemErrors; the framework's
// (malformed JSON, validation, body too large, wrong media type); anything else, which is
// logged with its stack and answered 500 internal-error without leaking it.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type DatabaseFailure, databaseFailure, INVALID_VALUE_DETAIL } from '../db/failures.js';
import { problemBody, PROBLEMS, ProblemError, type FieldError, type ProblemSlug } from '../problems.js';
import type { SharedGuards } from './guard.js';
import { sendProblem } from './reply-problem.js';
import { HEADERS_TOO_LARGE_DETAIL } from './header-limits.js';
import { REQUEST_TIMEOUT_DETAIL } from './slow-clients.js';
import { toFieldErrors } from './validation.js';

const RETRY_AFTER_SECONDS = '5';
const UNAVAILABLE_DETAIL = 'The database cannot take writes right now; nothing was charged.';

interface MappedProblem {
  slug: ProblemSlug;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/** The line a database failure is logged with (at warn: the client got a problem, not a 500). */
const FAILURE_LOG_LINES: Record<DatabaseFailure, string> = {
  unavailable: 'database unavailable',
  'commit-in-doubt': 'database connection lost while committing',
  'unique-violation': 'database refused a duplicate value',
  'invalid-value': 'database refused a value',
};

/**
 * The problem a database failure answers (its meaning decided by the database layer), logged
 * on the request; null when the error is not the database's. Shared by the API, MCP and the
 * console.
 */
export function databaseProblem(request: FastifyRequest, error: unknown): MappedProblem | null {
  const failure = databaseFailure(error);
  if (failure !== null) request.log.warn({ err: error, failure }, FAILURE_LOG_LINES[failure]);
  switch (failure) {
    // A commit in doubt on a request that charges nothing: nothing was charged either way. (The
    // billed search tells this case apart itself: 502.)
    case 'unavailable':
    case 'commit-in-doubt':
      return { slug: 'write-unavailable', detail: UNAVAILABLE_DETAIL, headers: { 'retry-after': RETRY_AFTER_SECONDS } };
    // Two requests wrote the same unique value at once: the loser conflicts with the winner.
    case 'unique-violation':
      return { slug: 'state-conflict', detail: 'Another request wrote the same record at the same time; read the current state and retry.' };
    // A value validation should have caught; the request is at fault, not the server.
    case 'invalid-value':
      return { slug: 'validation-failed', detail: INVALID_VALUE_DETAIL };
    case null:
      return null;
  }
}

/** "1 MiB", "64 KiB": a body limit as people write it. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const tooLarge = (request: FastifyRequest | undefined): MappedProblem => {
  const limit = request?.routeOptions?.bodyLimit;
  return {
    slug: 'payload-too-large',
    detail: limit
      ? `The request body is larger than the ${formatBytes(limit)} (${limit} bytes) this endpoint accepts.`
      : 'The request body is larger than this endpoint accepts.',
  };
};
const MEDIA_TYPE = 'Send the body as JSON with Content-Type: application/json (for PATCH also application/merge-patch+json).';

function frameworkProblem(error: FastifyError, request?: FastifyRequest): MappedProblem | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(request);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { slug: 'unsupported-media-type', detail: MEDIA_TYPE };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { slug: 'validation-failed', detail: 'The body is empty; send a JSON object.', errors: [{ pointer: '', detail: 'is empty' }] };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { slug: 'validation-failed', detail: 'The body is not valid JSON.', errors: [{ pointer: '', detail: 'is not valid JSON' }] };
    case 'FST_ERR_BAD_URL':
      return { slug: 'validation-failed', detail: 'The URL is not validly encoded.' };
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return tooLarge(request);
  if (status === 415) return { slug: 'unsupported-media-type', detail: MEDIA_TYPE };
  if (status >= 400 && status < 500) return { slug: 'validation-failed', detail: error.message };
  return null;
}

/**
 * Fastify's `frameworkErrors` hook: failures raised before routing (a badly encoded URL, a
 * path parameter too long) get the same problem+json as everything else.
 */
export function frameworkErrorHandler(docsUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    const mapped = frameworkProblem(error, request) ?? { slug: 'validation-failed' as const, detail: error.message };
    return sendProblem(request, reply, docsUrl, mapped.slug, mapped.detail);
  };
}

/**
 * True, and logged at info, when the client left before its request was complete: nothing can
 * reach it, and it is not a fault of ours (a database error would be, and is told apart here).
 */
export function clientLeft(request: FastifyRequest, error: FastifyError): boolean {
  if (!request.raw.aborted && request.raw.socket?.destroyed !== true) return false;
  request.log.info({ code: error.code }, 'client closed the connection before its request was complete');
  return true;
}

const PARSER_PROBLEMS: Record<string, { slug: ProblemSlug; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { slug: 'request-timeout', detail: REQUEST_TIMEOUT_DETAIL },
  HPE_HEADER_OVERFLOW: { slug: 'request-header-fields-too-large', detail: HEADERS_TOO_LARGE_DETAIL },
};

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a malformed request, headers
 * too large, a request that did not arrive in time) is answered as a problem too, then the
 * connection is closed. These are the client's doing, logged without paging anyone.
 */
export function clientErrorHandler(docsUrl: string) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { slug, detail } = PARSER_PROBLEMS[error.code ?? ''] ?? { slug: 'bad-request' as const, detail: 'The request is not valid HTTP.' };
    const requestId = randomUUID();
    this.log.info({ request_id: requestId, code: error.code, status: PROBLEMS[slug].status }, 'refused a request at the HTTP parser');
    // Write only when no response of this connection is being written (on a keep-alive
    // connection an earlier one may have been, and finished), as Node itself does.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean; writableEnded?: boolean } })._httpMessage;
    if (!socket.writable || (inFlight?.headersSent && !inFlight.writableEnded)) {
      socket.destroy(error);
      return;
    }
    const body = JSON.stringify(problemBody(docsUrl, slug, detail, requestId));
    const status = PROBLEMS[slug].status;
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
    lingerThenClose(socket);
  };
}

/** How long a refused connection is read (and what arrives thrown away) after its answer. */
const LINGER_MS = 2000;

/**
 * Closing a connection while the client is still sending (a 100 KB URL of which the parser
 * read 16 KiB) makes the kernel reset it, and a reset can destroy the answer before the client
 * reads it. So the rest of what it sends is read and dropped until it closes its side, or for
 * LINGER_MS at most; only then is the connection destroyed.
 */
function lingerThenClose(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on('close', () => clearTimeout(timer));
  // The client closed its side: once the answer is all written, nothing more can happen.
  socket.on('end', () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy())));
  socket.on('error', () => socket.destroy());
  socket.resume();
}

export function installErrorHandling(app: FastifyInstance, docsUrl: string, guards: SharedGuards): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (clientLeft(request, error)) {
      return sendProblem(request, reply, docsUrl, 'bad-request', 'The client closed the connection before the request was complete.');
    }
    if (error instanceof ProblemError) {
      return sendProblem(request, reply, docsUrl, error.slug, error.detail, error.extras);
    }
    if (error.validation) {
      const where = error.validationContext ?? 'body';
      if (where === 'body') {
        const { errors, omitted } = toFieldErrors(error.validation as never);
        return sendProblem(request, reply, docsUrl, 'validation-failed', 'The body does not match the schema of this operation.', {
          errors,
          errorsOmitted: omitted,
        });
      }
      const { errors: fields, omitted } = toFieldErrors(error.validation as never);
      const more = omitted > 0 ? `; and ${omitted} more` : '';
      const described = fields.map((f) => `${f.pointer.replace(/^\//, '') || where} ${f.detail}`).join('; ') + more;
      return sendProblem(request, reply, docsUrl, 'validation-failed', `Invalid ${where}: ${described}.`);
    }
    const fromDatabase = databaseProblem(request, error);
    if (fromDatabase) {
      return sendProblem(request, reply, docsUrl, fromDatabase.slug, fromDatabase.detail, fromDatabase.headers ? { headers: fromDatabase.headers } : {});
    }
    const mapped = frameworkProblem(error, request);
    if (mapped) return sendProblem(request, reply, docsUrl, mapped.slug, mapped.detail, mapped.errors ? { errors: mapped.errors } : {});
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(request, reply, docsUrl, 'internal-error', 'An unexpected error occurred; it has been logged with this request id.');
  });

  // A shadow router of every declared route, so an unmatched request can tell "no such path"
  // (404) from "path exists, other method" (405 with Allow).
  // Its parameters as long as the app's (app.ts), so a long id tells 405 from 404 alike.
  const shadow = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: 200 });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        // The pattern is kept with each route: the router decodes a path before matching it.
        shadow.on(method as HTTPMethod, route.url, () => undefined, { pattern: route.url });
      } catch {
        /* already present (HEAD mirrors GET) */
      }
    }
  });

  app.setNotFoundHandler({ preValidation: guards.edge as never }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A route that matched but had nothing to show (callNotFound) is a plain 404.
    if (shadow.find(request.method as HTTPMethod, path) !== null) {
      return sendProblem(request, reply, docsUrl, 'not-found', `Nothing at ${path}.`);
    }
    const matches = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) => {
      const found = shadow.find(method, path);
      return found === null ? [] : [{ method, pattern: (found.store as { pattern: string }).pattern }];
    });
    const allowed = matches.map((match) => match.method);
    if (allowed.length > 0) {
      // The operator API's methods are its own business: authentication comes first there,
      // judged by the routes matched (`/%6Fps/v1/…` matches them as `/ops/v1/…` does).
      if (matches.some((match) => match.pattern.startsWith('/ops/'))) await guards.operator(request, reply);
      return sendProblem(request, reply, docsUrl, 'method-not-allowed', `${request.method} is not allowed on ${path}.`, {
        headers: { allow: allowed.join(', ') },
      });
    }
    return sendProblem(request, reply, docsUrl, 'not-found', `No route ${request.method} ${path}.`);
  });
}
