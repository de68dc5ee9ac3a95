// Three tiers of failure, one shape (RFC 9457): our own ProblemErrors; the framework's
// (malformed JSON, validation, body too large, wrong media type); anything else, which is
// logged with its stack and answered 500 internal-error without leaking it.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { DatabaseUnavailableError } from '../db/database.js';
import { problemBody, PROBLEMS, ProblemError, type FieldError, type ProblemSlug } from '../problems.js';
import { sendProblem } from './reply-problem.js';
import { REQUEST_TIMEOUT_DETAIL } from './slow-clients.js';
import { toFieldErrors } from './validation.js';

// Connection failures, read-only or overloaded servers, timeouts, and deadlock or
// serialization victims (nothing of theirs was written, so a retry is safe).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  '25006',
  '53300',
  '57014',
  '40P01',
  '40001',
]);
const RETRY_AFTER_SECONDS = '5';

/** A database failure that wrote nothing: 503 write-unavailable, safe to retry. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code);
}

interface MappedProblem {
  slug: ProblemSlug;
  detail: string;
  errors?: FieldError[];
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
  // Two requests wrote the same unique value at once: the loser conflicts with the winner.
  if ((error as { code?: unknown }).code === '23505' && (error as { severity?: unknown }).severity) {
    return { slug: 'state-conflict', detail: 'Another request wrote the same record at the same time; read the current state and retry.' };
  }
  // A value the database refuses as data (SQLSTATE class 22: out of range, bad encoding…)
  // that validation should have caught; the request is at fault, not the server.
  const sqlState = (error as { code?: unknown }).code;
  if (typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState) && (error as { severity?: unknown }).severity) {
    return { slug: 'validation-failed', detail: 'A value in the request cannot be stored.' };
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

/** The client went away before its request was complete (it disconnected, or timed out). */
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
  HPE_HEADER_OVERFLOW: { slug: 'request-header-fields-too-large', detail: 'The request headers are larger than the server reads.' },
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
    // Write only when no response of this connection has begun, as Node itself does.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const body = JSON.stringify(problemBody(docsUrl, slug, detail, requestId));
      const status = PROBLEMS[slug].status;
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

export function installErrorHandling(
  app: FastifyInstance,
  docsUrl: string,
  notFoundGuard: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
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
        return sendProblem(request, reply, docsUrl, 'validation-failed', 'The body does not match the schema of this operation.', {
          errors: toFieldErrors(error.validation as never),
        });
      }
      const fields = toFieldErrors(error.validation as never);
      const described = fields.map((f) => `${f.pointer.replace(/^\//, '') || where} ${f.detail}`).join('; ');
      return sendProblem(request, reply, docsUrl, 'validation-failed', `Invalid ${where}: ${described}.`);
    }
    if (isUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendProblem(request, reply, docsUrl, 'write-unavailable', 'The database cannot take writes right now; nothing was charged.', {
        headers: { 'retry-after': RETRY_AFTER_SECONDS },
      });
    }
    const mapped = frameworkProblem(error, request);
    if (mapped) {
      if (mapped.slug === 'validation-failed' && (error as { severity?: unknown }).severity) request.log.warn({ err: error }, 'database refused a value');
      return sendProblem(request, reply, docsUrl, mapped.slug, mapped.detail, mapped.errors ? { errors: mapped.errors } : {});
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(request, reply, docsUrl, 'internal-error', 'An unexpected error occurred; it has been logged with this request id.');
  });

  // A shadow router of every declared route, so an unmatched request can tell "no such path"
  // (404) from "path exists, other method" (405 with Allow).
  const shadow = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        shadow.on(method as HTTPMethod, route.url, () => undefined);
      } catch {
        /* already present (HEAD mirrors GET) */
      }
    }
  });

  app.setNotFoundHandler({ preValidation: notFoundGuard as never }, (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A route that matched but had nothing to show (callNotFound) is a plain 404.
    if (shadow.find(request.method as HTTPMethod, path) !== null) {
      return sendProblem(request, reply, docsUrl, 'not-found', `Nothing at ${path}.`);
    }
    const allowed = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => shadow.find(m, path) !== null);
    if (allowed.length > 0) {
      return sendProblem(request, reply, docsUrl, 'method-not-allowed', `${request.method} is not allowed on ${path}.`, {
        headers: { allow: allowed.join(', ') },
      });
    }
    return sendProblem(request, reply, docsUrl, 'not-found', `No route ${request.method} ${path}.`);
  });
}
