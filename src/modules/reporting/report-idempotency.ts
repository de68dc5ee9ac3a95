// Report filing's own idempotency table (v1 document, "Report idempotency"; decisions.md,
// "Settled details"), as a policy of the shared mechanism:
// - a filed report (201) is stored and replayed for 24 hours;
// - the 409 report-already-submitted that a retry after the window, or after a lost answer,
//   gets is not stored: the report's existence answers every later retry the same, whatever
//   its body;
// - a schema failure (400 with `errors`) releases the key at once;
// - any other failure (a content refusal, 403, 5xx) holds the key in flight for 60 seconds,
//   after which the same request runs again (the shared stale-claim rule).
import type { IdempotencyPolicy } from '../../platform/http/idempotency.js';

function hasFieldErrors(body: Buffer): boolean {
  try {
    return Array.isArray((JSON.parse(body.toString('utf8')) as { errors?: unknown }).errors);
  } catch {
    return false;
  }
}

export const REPORT_IDEMPOTENCY: IdempotencyPolicy = {
  billed: () => false,
  settle(status, body) {
    if (status < 300) return 'complete';
    if (status === 409 || (status === 400 && hasFieldErrors(body))) return 'release';
    return 'hold';
  },
};
