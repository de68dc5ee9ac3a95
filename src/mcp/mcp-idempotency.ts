// Idempotency over MCP (v1 document, "MCP idempotency"): the shared mechanism with the
// transport "mcp" in the fingerprint (the whole JSON-RPC body, its `id` included). A call of
// search_events is billed. A tool that ran and failed answers HTTP 200 with the problem inside
// (`isError`): its claim is settled by the problem's status, as the REST answer would be.
import { DEFAULT_IDEMPOTENCY, type IdempotencyPolicy } from '../platform/http/idempotency.js';

function isBilledCall(body: unknown): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  return message?.method === 'tools/call' && message.params?.name === 'search_events';
}

/** The status of the problem in a tool result with `isError`, else null. */
function toolProblemStatus(body: Buffer): number | null {
  try {
    const result = (JSON.parse(body.toString('utf8')) as { result?: { isError?: boolean; content?: { text?: string }[] } }).result;
    if (!result?.isError) return null;
    const problem = JSON.parse(result.content?.[0]?.text ?? '{}') as { error?: { status?: unknown } };
    return typeof problem.error?.status === 'number' ? problem.error.status : 500;
  } catch {
    return null;
  }
}

export const MCP_IDEMPOTENCY: IdempotencyPolicy = {
  billed: isBilledCall,
  settle(status, body) {
    if (status === 200) {
      const problemStatus = toolProblemStatus(body);
      return problemStatus === null ? 'complete' : DEFAULT_IDEMPOTENCY.settle(problemStatus, body);
    }
    // Refused before dispatch for the caller's own reasons (a tool out of its scope, a wrong
    // Accept or Origin): nothing ran, the key stays unused.
    if (status === 403 || status === 406) return 'release';
    return DEFAULT_IDEMPOTENCY.settle(status, body);
  },
};
