// What the API takes as a request body (decisions.md, "HTTP hardening"): JSON, and for PATCH
// also JSON merge patch (RFC 7396); no other media type and no Content-Encoding but identity.
// An operation without a body takes an empty one whatever its Content-Type, since clients
// often send their default header on every call.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ProblemError, type FieldError } from '../problems.js';
import { jsonShapeProblem } from './json-limits.js';
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

/**
 * Numbers JSON can write but a double cannot hold (1e309 reads as Infinity): named, not stored.
 * The body's depth was bounded before it was parsed (json-limits.ts), so the walk is too.
 */
function unrepresentable(value: unknown, pointer: string, found: FieldError[]): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) found.push({ pointer, detail: 'is a number too large to represent' });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) unrepresentable(value[i], `${pointer}/${i}`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const name in value) unrepresentable((value as Record<string, unknown>)[name], `${pointer}/${escapePointer(name)}`, found);
  }
}

/** The problem of a parsed body holding numbers a double cannot hold, or null. */
function unrepresentableNumbers(parsed: unknown): ProblemError | null {
  const errors: FieldError[] = [];
  unrepresentable(parsed, '', errors);
  return errors.length > 0 ? new ProblemError('validation-failed', 'The body holds a number that cannot be represented.', { errors }) : null;
}

const notJson = () => new ProblemError('validation-failed', 'The body is not valid JSON.', { errors: [{ pointer: '', detail: 'is not valid JSON' }] });
const emptyBody = () => new ProblemError('validation-failed', 'The body is empty; send a JSON object.', { errors: [{ pointer: '', detail: 'is empty' }] });

/**
 * A JSON body: its shape within bounds (json-limits.ts), then decoded and parsed with
 * `__proto__` and `constructor.prototype` members refused (prototype poisoning, as Fastify's
 * own parser does with the same library), then its numbers representable. The one reading of
 * JSON bodies, for every JSON endpoint and each bulk line, so that all of them refuse the same
 * bodies the same way; what it refuses it throws as a problem.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw emptyBody();
  const shape = jsonShapeProblem(bytes);
  if (shape) throw shape;
  let parsed: unknown;
  try {
    parsed = secureJson.parse(bytes.toString('utf8'), { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw notJson();
  }
  const numbers = unrepresentableNumbers(parsed);
  if (numbers) throw numbers;
  return parsed;
}

/**
 * The charset a body is sent in: only UTF-8 (RFC 8259 §8.1), and a body that says otherwise
 * is refused rather than read as if it were UTF-8.
 */
function charsetProblem(contentType: string | undefined): ProblemError | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  // US-ASCII is UTF-8's first 128 characters: a body in it reads the same.
  if (charset === undefined || ['utf-8', 'utf8', 'us-ascii', 'ascii'].includes(charset)) return null;
  return unsupported(`The body's charset ${charset || '(empty)'} is not accepted; send it in UTF-8 (or name no charset).`);
}

/**
 * A body read whole and refused. Fastify closes the connection after any parser error, since a
 * parser may stop before the body ends; these parsers read every byte first, so the refusal is
 * carried to the preValidation hook below instead, and the keep-alive connection stays open
 * for the client's next request (a new TLS handshake each would cost more than the refusal).
 */
class RefusedBody {
  constructor(readonly error: Error) {}
}

type ParserDone = (error: Error | null, body?: unknown) => void;

/** The parser's answer, a refusal deferred to preValidation. */
const answer = (done: ParserDone, error: Error | null, body?: unknown) => (error ? done(null, new RefusedBody(error)) : done(null, body));

export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    if (takesNdjson(request)) return answer(done, ndjsonOnly());
    if ((body as Buffer).length === 0 && !takesBody(request)) return answer(done, null, undefined);
    const charset = charsetProblem(request.headers['content-type']);
    if (charset) return answer(done, charset);
    // Kept as bytes beside the parsed value, for idempotency's "same request" (idempotency.ts).
    request.rawBody = body as Buffer;
    if (request.headers['content-type']?.toLowerCase().startsWith('application/merge-patch+json') && request.method !== 'PATCH') {
      return answer(done, unsupported('application/merge-patch+json is for PATCH; send this body as application/json.'));
    }
    let parsed: unknown;
    try {
      parsed = parseJsonBody(body as Buffer);
    } catch (error) {
      return answer(done, error as Error);
    }
    answer(done, null, parsed);
  });
  // NDJSON, on the routes that take it (bulk ingest), as text; each line is judged there.
  app.addContentTypeParser(NDJSON_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (!takesNdjson(request)) return answer(done, unsupported('Send the body as JSON with Content-Type: application/json.'));
    answer(done, charsetProblem(request.headers['content-type']), body);
  });
  // Any other media type: an empty body on an operation that takes none is no body at all.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (takesNdjson(request)) return answer(done, ndjsonOnly());
    if ((body as Buffer).length === 0 && !takesBody(request)) return answer(done, null, undefined);
    answer(done, unsupported('Send the body as JSON with Content-Type: application/json (for PATCH also application/merge-patch+json).'));
  });
  // The refusal of a body read whole, before anything else looks at the body. The body is
  // cleared first: a route's problem renderer reads "no body" as "not JSON" (MCP's parse error).
  app.addHook('preValidation', (request, _reply, done) => {
    if (!(request.body instanceof RefusedBody)) return done();
    const { error } = request.body;
    request.body = undefined;
    done(error);
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
