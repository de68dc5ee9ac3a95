// Outgoing webhook requests. The address rule is applied to the address actually connected
// to: a hostname is resolved inside the connection (undici's connect `lookup`), so a name that
// answers a public address to a check and a private one to the connection cannot slip
// through (DNS rebinding). Literal IP hosts never reach a lookup and are checked first.
// Extra trusted CAs come from NODE_EXTRA_CA_CERTS, as for any Node.js TLS client.
import dns, { type LookupAddress } from 'node:dns';
import { Agent, request } from 'undici';
import { AddressRefusedError, isPublicAddress, nonPublicLiteralHost } from './address-policy.js';

/** Success is a 2xx within this time (decisions.md). */
export const ATTEMPT_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer before it is thrown away. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

export interface WebhookResponse {
  status: number;
  retryAfter: string | null;
}

export interface WebhookTransport {
  post(url: string, headers: Record<string, string>, body: string): Promise<WebhookResponse>;
  close(): Promise<void>;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const usable = addresses.filter((a) => isPublicAddress(a.address));
    if (usable.length === 0) return callback(new AddressRefusedError(hostname, addresses[0]?.address ?? 'nothing') as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, usable);
    callback(null, usable[0]!.address, usable[0]!.family);
  });
}

export function webhookTransport(options: { allowPrivate: boolean; connectionsPerHost: number }): WebhookTransport {
  const agent = new Agent({
    connect: { timeout: CONNECT_TIMEOUT_MS, ...(options.allowPrivate ? {} : { lookup: guardedLookup }) },
    connections: options.connectionsPerHost,
    // The whole attempt is bounded by the abort signal below; these only back it up.
    headersTimeout: ATTEMPT_TIMEOUT_MS + 1_000,
    bodyTimeout: ATTEMPT_TIMEOUT_MS + 1_000,
  });
  return {
    async post(url, headers, body) {
      // Sensors refuse these when saved; one saved earlier, or while the rule was lifted, is refused here.
      const literal = options.allowPrivate ? null : nonPublicLiteralHost(new URL(url));
      if (literal) throw new AddressRefusedError(literal, literal);
      const response = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
      await response.body.dump({ limit: RESPONSE_BODY_LIMIT });
      const retryAfter = response.headers['retry-after'];
      return { status: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
    },
    close: () => agent.close(),
  };
}
