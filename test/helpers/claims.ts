// Idempotency claims for tests: the claim a first attempt still running holds.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../../src/platform/http/idempotency.js';
import type { Runtime } from '../../src/runtime.js';

/** Takes the claim that a request with this body, still running, would hold under the key. */
export async function claimAsRunning(
  runtime: Runtime,
  request: { apiKeyId: string; key: string; transport: 'rest' | 'mcp'; path: string; body: unknown; billed: boolean },
): Promise<void> {
  const claimed = await runtime.claims.claim({
    apiKeyId: request.apiKeyId,
    key: request.key,
    fingerprint: requestFingerprint(request.transport, 'POST', request.path, Buffer.from(JSON.stringify(request.body))),
    billed: request.billed,
    owner: randomUUID(),
  });
  assert.equal(claimed.kind, 'claimed');
}
