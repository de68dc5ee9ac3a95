// Structured logs (pino). Authorization headers never reach a log line: request logging
// records the route, the path with its ids and the address only (logged-request.ts), and redaction covers any header or body that a
// caller might pass into a log call by mistake; key-shaped strings anywhere in a line, a URL
// a client wrote included, are cut out by log-redaction.ts.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type Logger } from 'pino';
import { loggedRequest, type RouteWords } from './http/logged-request.js';
import { lineRedactor } from './log-redaction.js';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.key',
  '*.raw_key',
  '*.signing_secret',
  'key',
  'signing_secret',
];

/**
 * A request in a log call that passes one (Fastify's own error lines do): its method and
 * route only, never its URL or headers (logged-request.ts says why).
 */
const requestSerializer = (request: { method?: string; routeOptions?: { url?: string } }) => ({
  method: request.method,
  route: request.routeOptions?.url ?? null,
});

/** The logger's options, shared with tests that capture log lines; `secrets` (the operator token) are cut from every line too. */
export const loggerOptions = (level: string, secrets: readonly string[] = []) => ({
  level,
  redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  serializers: { req: requestSerializer },
  hooks: { streamWrite: lineRedactor(secrets) },
});

export function createLogger(level: string, secrets: readonly string[] = []): Logger {
  return pino(loggerOptions(level, secrets));
}

/**
 * One log line per request, when it completes, instead of Fastify's two (incoming and
 * completed): it carries what the two did (method, path, status, time, request id through
 * the child logger) at half the cost on the hot path. The request is told by
 * logged-request.ts: the route, the path with its ids, and query parameter names, never the
 * URL as the client wrote it.
 */
export class OneLineRequestLog extends LogController {
  constructor(
    private readonly routeWords: RouteWords,
    options: ConstructorParameters<typeof LogController>[0],
  ) {
    super(options);
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // Most servers run above info; the fields are then not built at all.
    if (!error && (pino.levels.values[reply.log.level] ?? 0) > pino.levels.values.info!) return;
    const fields = { ...loggedRequest(request, this.routeWords), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, ip: request.ip };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request');
  }
}
