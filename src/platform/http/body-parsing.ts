// What the API takes as a request body (decisions.md, "HTTP hardening"): JSON, and for PATCH
// also JSON merge patch (RFC 7396); no other media type and no Content-Encoding but identity.
// An operation without a body takes an empty one whatever its Content-Type, since clients
// often send their default header on every call.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError, type FieldError } from '../problems.js';
import { escapePointer } from './validation.js';

const JSON_TYPES = ['application/json', 'application/merge-patch+json'];
const NDJSON_TYPE = 'application/x-ndjson';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes application/x-ndjson, and only that: its body arrives as text. */
    ndjson?: boolean;
  }
}

const takesNdjson = (request: FastifyRequest) => request.routeOptions.config?.ndjson === true;
const ndjsonOnly = () => unsupported('Send the body as application/x-ndjson: one JSON object per line.');

const unsupported = (detail: string) => new ProblemError('unsupported-media-type', detail);

/** Does the route take a body at all? (Actions such as enable, and DELETE, do not.) */
const takesBody = (request: FastifyRequest) => Boolean((request.routeOptions.schema as { body?: unknown } | undefined)?.body);

/** Numbers JSON can write but a double cannot hold (1e309 reads as Infinity): named, not stored. */
function unrepresentable(value: unknown, pointer = ''): FieldError[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ pointer, detail: 'is a number too large to represent' }];
  if (Array.isArray(value)) return value.flatMap((item, i) => unrepresentable(item, `${pointer}/${i}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, item]) => unrepresentable(item, `${pointer}/${escapePointer(name)}`));
  }
  return [];
}

/** The problem of a parsed body holding numbers a double cannot hold, or null. */
export function unrepresentableNumbers(parsed: unknown): ProblemError | null {
  const errors = unrepresentable(parsed);
  return errors.length > 0 ? new ProblemError('validation-failed', 'The body holds a number that cannot be represented.', { errors }) : null;
}

export function installBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    if (takesNdjson(request)) return done(ndjsonOnly(), undefined);
    if ((body as Buffer).length === 0 && !takesBody(request)) return done(null, undefined);
    // Kept as bytes beside the parsed value, for idempotency's "same request" (idempotency.ts).
    request.rawBody = body as Buffer;
    const text = (body as Buffer).toString('utf8');
    if (request.headers['content-type']?.toLowerCase().startsWith('application/merge-patch+json') && request.method !== 'PATCH') {
      return done(unsupported('application/merge-patch+json is for PATCH; send this body as application/json.'), undefined);
    }
    void parseJson(request, text, (error, parsed) => {
      if (error) return done(error, undefined);
      const problem = unrepresentableNumbers(parsed);
      if (problem) return done(problem, undefined);
      done(null, parsed);
    });
  });
  // NDJSON, on the routes that take it (bulk ingest), as text; each line is judged there.
  app.addContentTypeParser(NDJSON_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (!takesNdjson(request)) return done(unsupported('Send the body as JSON with Content-Type: application/json.'), undefined);
    done(null, body);
  });
  // Any other media type: an empty body on an operation that takes none is no body at all.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (takesNdjson(request)) return done(ndjsonOnly(), undefined);
    if ((body as Buffer).length === 0 && !takesBody(request)) return done(null, undefined);
    done(unsupported('Send the body as JSON with Content-Type: application/json (for PATCH also application/merge-patch+json).'), undefined);
  });
  // A compressed body would otherwise be read as (invalid) JSON. A callback hook: it runs on
  // every request, and a promise each would cost more than the check.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding === undefined || encoding === '' || encoding === 'identity') return done(null, payload);
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody) return done(unsupported(`Content-Encoding ${encoding} is not accepted; send the body uncompressed.`));
    done(null, payload);
  });
}
