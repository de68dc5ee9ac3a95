// Idempotency over MCP (v1 document, "MCP idempotency"): the shared mechanism with the
// transport "mcp" in the fingerprint (the whole JSON-RPC body, its `id` included). A call of
// search_events is billed. A tool that ran and failed answers HTTP 200 with the problem inside
// (`isError`): its claim is settled by the problem's status, as the REST answer would be; the
// route records that status on the request (`outcomeStatus`), so nothing is read back from
// the answer's text.
import { DEFAULT_IDEMPOTENCY, type IdempotencyPolicy } from '../platform/http/idempotency.js';

function isBilledCall(body: unknown): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  return message?.method === 'tools/call' && message.params?.name === 'search_events';
}

export const MCP_IDEMPOTENCY: IdempotencyPolicy = {
  billed: isBilledCall,
  settle(status, body, toolFailureStatus) {
    if (status === 200) return toolFailureStatus == null ? 'complete' : DEFAULT_IDEMPOTENCY.settle(toolFailureStatus, body);
    // Refused before dispatch for the caller's own reasons (a tool out of its scope, a wrong
    // Accept or Origin): nothing ran, the key stays unused.
    if (status === 403 || status === 406) return 'release';
    return DEFAULT_IDEMPOTENCY.settle(status, body);
  },
};
