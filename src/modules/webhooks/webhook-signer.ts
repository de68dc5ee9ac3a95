// Standard Webhooks signatures, made by the `standardwebhooks` library itself so any verifier
// of the standard agrees: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret,
// space-separated (two during the 24 hours after a rotation).
import { Webhook } from 'standardwebhooks';

export interface SigningSecrets {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

const MAX_CACHED = 10_000;
const signers = new Map<string, Webhook>();

function signer(secret: string): Webhook {
  let webhook = signers.get(secret);
  if (!webhook) {
    if (signers.size >= MAX_CACHED) signers.clear();
    webhook = new Webhook(secret);
    signers.set(secret, webhook);
  }
  return webhook;
}

/** The three Standard Webhooks headers of one attempt made at `at`. */
export function signedHeaders(id: string, at: Date, body: string, secrets: SigningSecrets): Record<string, string> {
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  const active = [secrets.current];
  if (secrets.previous && secrets.previousExpiresAt && secrets.previousExpiresAt.getTime() > at.getTime()) active.push(secrets.previous);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': active.map((secret) => signer(secret).sign(id, timestamp, body)).join(' '),
  };
}
