// Problems over MCP (v1 document, "Errors": the two MCP shapes, MCP problem members and
// verdicts). Every MCP problem carries `as_of`, `retryable` and `guidance`, a sentence that
// tells the model what to do next.
import type { ProblemBody, ProblemSlug } from '../platform/problems.js';

interface Verdict {
  retryable: boolean;
  guidance: string;
}

const permanent = (guidance: string): Verdict => ({ retryable: false, guidance });

const VERDICTS: Partial<Record<ProblemSlug, Verdict>> = {
  'validation-failed': permanent('Fix the arguments named in `errors` (or `detail`) and call again; the same call fails again unchanged.'),
  'insufficient-credits': permanent('The account has no credits left for a search; tell the user. Nothing was charged. Reading beats still works.'),
  'missing-scope': permanent('This API key lacks the scope for this tool; do not retry. The user needs a key with that scope.'),
  'invalid-api-key': permanent('The API key is missing, unknown or revoked; do not retry. The user must supply a valid key.'),
  'search-execution-expired': permanent(
    'The cursor expired with its search; run search_events again (it is charged again) if the user still needs more results.',
  ),
  'not-found': permanent('Nothing with that id exists for this account; check the id (list_beats lists beats) and do not retry it.'),
  'idempotency-key-conflict': permanent('This Idempotency-Key was used for a different request; send a new key for a new request.'),
  'not-entitled': permanent('The account lacks the entitlement this tool needs; tell the user, do not retry.'),
  'quota-exceeded': permanent("The plan's quota is reached; tell the user, do not retry."),
  'entity-list-inaccessible': permanent('An entity list in the arguments cannot be used by this account; remove it and call again.'),
  'state-conflict': permanent('The request conflicts with the current state; read the current state before deciding what to do.'),
  'rate-limited': { retryable: true, guidance: 'The per-minute MCP budget is spent; wait the seconds of Retry-After, then retry the same call.' },
  'write-unavailable': { retryable: true, guidance: 'The service cannot take writes right now and nothing was charged; retry the same call in a few seconds.' },
  'internal-error': { retryable: true, guidance: 'An unexpected fault on the service side; retry the same call once after a short pause.' },
  'idempotency-in-flight': {
    retryable: true,
    guidance: 'A call with this Idempotency-Key is still running or ended without an answer; retry under a new Idempotency-Key.',
  },
  'upstream-error': {
    retryable: true,
    guidance: 'It is unknown whether the call took effect. With an Idempotency-Key, retry once under the same key; without one, do not retry automatically.',
  },
};

const FALLBACK = permanent('The call was refused; read `detail`, and do not retry it unchanged.');

export interface McpProblem extends ProblemBody {
  as_of: string;
  retryable: boolean;
  guidance: string;
}

/** The problem with the MCP members added. */
export function mcpProblem(body: ProblemBody, slug: ProblemSlug, now: Date): McpProblem {
  const verdict = VERDICTS[slug] ?? FALLBACK;
  return { ...body, as_of: now.toISOString(), retryable: verdict.retryable, guidance: verdict.guidance };
}

/** JSON-RPC error codes of MCP refusals (documented in the API reference). */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  /** Any other refusal before dispatch (key, scope, budget, idempotency): `error.data.type` tells which. */
  refused: -32001,
} as const;
