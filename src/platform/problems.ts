// The one closed table of problem types (RFC 9457). Clients branch on `type` and `status`,
// so a slug's status never changes; adding a slug is additive, renaming one is breaking.

export interface ProblemDefinition {
  readonly status: number;
  readonly title: string;
  /** Shown on the problem's documentation page, /docs/problems/<slug>. */
  readonly description: string;
  readonly retryable: boolean;
}

export const PROBLEMS = {
  'validation-failed': {
    status: 400,
    title: 'Validation failed',
    description:
      'The request is malformed: invalid JSON, a missing or unknown field, a value out of range, a bad ' +
      'Idempotency-Key, or a bad cursor. Malformed bodies carry `errors`, an array of `{pointer, detail}` ' +
      'where `pointer` is an RFC 6901 JSON Pointer into the body. Fix the request; retrying it unchanged fails again.',
    retryable: false,
  },
  'invalid-api-key': {
    status: 401,
    title: 'Invalid API key',
    description:
      'The `Authorization: Bearer <key>` header is missing or malformed, or the key is unknown or revoked. ' +
      'The response carries `WWW-Authenticate: Bearer`.',
    retryable: false,
  },
  'bad-request': {
    status: 400,
    title: 'Bad request',
    description:
      'The request is not valid HTTP (a malformed request line or header, or a body that does not match its framing). ' +
      'The server wrote this before reading the request, so it carries no request id of a handled request; the connection is closed.',
    retryable: false,
  },
  'insufficient-credits': {
    status: 402,
    title: 'Insufficient credits',
    description: "The account's credit balance cannot cover the operation. Nothing was charged.",
    retryable: false,
  },
  'missing-scope': {
    status: 403,
    title: 'Missing scope',
    description: 'The API key lacks the scope this endpoint requires. Scopes are fixed when a key is created.',
    retryable: false,
  },
  'not-entitled': {
    status: 403,
    title: 'Not entitled',
    description: 'The key has the scope but the account lacks the entitlement. `code` tells which. Retrying does not help until the entitlement changes.',
    retryable: false,
  },
  'quota-exceeded': {
    status: 403,
    title: 'Quota exceeded',
    description: 'A plan quota is reached (active API keys, beats, clauses).',
    retryable: false,
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'The resource or route does not exist, or belongs to another account.',
    retryable: false,
  },
  'origin-not-allowed': {
    status: 403,
    title: 'Origin not allowed',
    description:
      "The request's `Origin` is not the service's own (a defence against DNS rebinding). Call the MCP endpoint without an `Origin`, or from the service's origin.",
    retryable: false,
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but not with this method. The `Allow` header lists the methods it takes.',
    retryable: false,
  },
  'state-conflict': {
    status: 409,
    title: 'State conflict',
    description: 'The request conflicts with the current state of the resource.',
    retryable: false,
  },
  'idempotency-in-flight': {
    status: 409,
    title: 'Idempotency key in flight',
    description:
      'A request with this Idempotency-Key is still running, or crashed on a billed endpoint. Retry later; after a crash on a billed endpoint use a fresh key.',
    retryable: true,
  },
  'report-already-submitted': {
    status: 409,
    title: 'Report already submitted',
    description: 'The Idempotency-Key already filed a report.',
    retryable: false,
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description:
      'The request did not arrive in time: its headers must arrive within 15 seconds and its whole body within 30 seconds of its start. The connection is closed; send the request again.',
    retryable: true,
  },
  'search-execution-expired': {
    status: 410,
    title: 'Search execution expired',
    description: "The cursor's execution is past its retention window. Running the search again is charged.",
    retryable: false,
  },
  'not-acceptable': {
    status: 406,
    title: 'Not acceptable',
    description:
      'The `Accept` header does not list a media type this endpoint answers in. The MCP endpoint needs both `application/json` and `text/event-stream`.',
    retryable: false,
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than this endpoint accepts. It was refused before being read.',
    retryable: false,
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies must be JSON, sent with `Content-Type: application/json`.',
    retryable: false,
  },
  'idempotency-key-conflict': {
    status: 422,
    title: 'Idempotency key conflict',
    description: 'The Idempotency-Key was already used for a different request (method, path or body bytes).',
    retryable: false,
  },
  'entity-list-inaccessible': {
    status: 422,
    title: 'Entity list inaccessible',
    description: 'A filter references an entity list that the account cannot use.',
    retryable: false,
  },
  'rate-limited': {
    status: 429,
    title: 'Rate limited',
    description: "The API key's request budget for this minute is spent. `Retry-After` and the `RateLimit-*` headers say when it resets.",
    retryable: true,
  },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request headers are larger than the server reads (16 KiB in all). The connection is closed.',
    retryable: false,
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected fault. It was logged with the request id; retrying may succeed.',
    retryable: true,
  },
  'upstream-error': {
    status: 502,
    title: 'Upstream error',
    description: 'The operation could not be completed. For billed search it is ambiguous whether a charge happened; retry at most once.',
    retryable: true,
  },
  'write-unavailable': {
    status: 503,
    title: 'Write unavailable',
    description: 'The database cannot take writes right now. Nothing was charged. Retry after `Retry-After` seconds.',
    retryable: true,
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemSlug = keyof typeof PROBLEMS;

export const PROBLEM_SLUGS = Object.keys(PROBLEMS) as ProblemSlug[];

export interface FieldError {
  pointer: string;
  detail: string;
}

export interface ProblemExtras {
  errors?: FieldError[];
  /** Field errors found beyond those in `errors` (validation.ts lists at most MAX_FIELD_ERRORS). */
  errorsOmitted?: number;
  code?: string;
  headers?: Record<string, string>;
  /** Over MCP: the JSON-RPC error code, when the problem's own mapping is not the one. */
  rpcCode?: number;
}

/** 400 validation-failed naming one field: `pointer` into the body, `detail` what is wrong with it. */
export function fieldProblem(pointer: string, detail: string): ProblemError {
  return new ProblemError('validation-failed', `${pointer.slice(1) || 'body'} ${detail}.`, { errors: [{ pointer, detail }] });
}

/** An expected failure, raised by services and mapped to problem+json by the error handler. */
export class ProblemError extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
  ) {
    super(`${slug}: ${detail}`);
  }

  get status(): number {
    return PROBLEMS[this.slug].status;
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: FieldError[];
  errors_omitted?: number;
  code?: string;
}

/** A problem lists at most this many field errors, whatever the request held (docs/api-reference.md, "Errors"). */
export const MAX_FIELD_ERRORS = 20;
/** A pointer or field detail (an unknown member's name echoed back) takes at most this many bytes of the answer. */
export const MAX_PROBLEM_TEXT = 200;
/** A problem's `detail`, which may quote a query parameter's name, takes at most this many bytes. */
const MAX_DETAIL = 1000;

/** The bytes a code point takes in the JSON answer: escaped (`\u0001`, `\"`) or as UTF-8. */
function jsonBytes(codePoint: number): number {
  if (codePoint < 0x20) return 6;
  if (codePoint === 0x22 || codePoint === 0x5c) return 2;
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return 6; // a lone surrogate, escaped
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * The text cut so that it takes at most `maxBytes` bytes in the JSON answer, ending in `…` when
 * cut; whole code points only, so a surrogate pair is never split.
 */
function cut(text: string, maxBytes: number): string {
  if (text.length * 6 <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += jsonBytes(char.codePointAt(0)!);
    if (bytes > maxBytes) return `${text.slice(0, end)}…`;
    end += char.length;
  }
  return text;
}

/**
 * The body of a problem, bounded: at most MAX_FIELD_ERRORS field errors, the rest counted in
 * `errors_omitted`, and no text longer than a fixed size, so that a bad request of any size
 * answers in a few kilobytes.
 */
export function problemBody(docsUrl: string, slug: ProblemSlug, detail: string, requestId: string, extras: ProblemExtras = {}): ProblemBody {
  const definition = PROBLEMS[slug];
  const body: ProblemBody = {
    type: `${docsUrl}/problems/${slug}`,
    title: definition.title,
    status: definition.status,
    detail: cut(detail, MAX_DETAIL),
    request_id: requestId,
  };
  if (extras.errors) {
    const listed = extras.errors.slice(0, MAX_FIELD_ERRORS);
    body.errors = listed.map(({ pointer, detail: fieldDetail }) => ({ pointer: cut(pointer, MAX_PROBLEM_TEXT), detail: cut(fieldDetail, MAX_PROBLEM_TEXT) }));
    const omitted = extras.errors.length - listed.length + (extras.errorsOmitted ?? 0);
    if (omitted > 0) body.errors_omitted = omitted;
  }
  if (extras.code) body.code = extras.code;
  return body;
}
