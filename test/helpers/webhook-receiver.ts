// A real HTTPS webhook receiver for tests. It serves the certificate in test/fixtures, which
// the test runner adds to NODE_EXTRA_CA_CERTS, and records every request it gets. Signatures
// are verified with the `standardwebhooks` library, as a client would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { testCorpus } from './corpus.js';
import { startIsolatedServer } from './server.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Answer only after this long (a slow receiver). */
  delayMs?: number;
}

export interface WebhookReceiver {
  port: number;
  /** https://127.0.0.1:<port><path> */
  url(path?: string): string;
  received: ReceivedWebhook[];
  /** How the next requests are answered (default 200). */
  reply: (request: ReceivedWebhook) => Reply;
  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const timers = new Set<NodeJS.Timeout>();
  const receiver: WebhookReceiver = {
    port: 0,
    url: (p = '/hook') => `https://127.0.0.1:${receiver.port}${p}`,
    received: [],
    reply: () => ({ status: 200 }),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) assert.fail(`expected ${count} webhook requests, got ${receiver.received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = https.createServer(
    { cert: fs.readFileSync(path.join(FIXTURES, 'webhook-receiver-cert.pem')), key: fs.readFileSync(path.join(FIXTURES, 'webhook-receiver-key.pem')) },
    (request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
        const webhook: ReceivedWebhook = { path: request.url ?? '', headers, body, json: body ? JSON.parse(body) : null };
        receiver.received.push(webhook);
        const reply = receiver.reply(webhook);
        const send = () => response.writeHead(reply.status, reply.headers ?? {}).end();
        if (reply.delayMs) timers.add(setTimeout(send, reply.delayMs));
        else send();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  return receiver;
}

/**
 * Verifies a delivery with the Standard Webhooks library, as its receiver would at the
 * server's (test) time: the library checks the timestamp against its own clock.
 */
export function verifyWebhook(secret: string, webhook: ReceivedWebhook, receiverNow: string | number | Date): unknown {
  const realNow = Date.now;
  Date.now = () => new Date(receiverNow).getTime();
  try {
    return new Webhook(secret).verify(webhook.body, webhook.headers);
  } finally {
    Date.now = realNow;
  }
}

/**
 * A server on a database of its own (webhook attempts are made by this server alone) that may
 * deliver to loopback receivers, with its corpus and one receiver, the clock set to `now`.
 */
export async function startDeliveryServer(now: string) {
  const server = await startIsolatedServer({ EVMON_WEBHOOK_ALLOW_PRIVATE: '1' });
  const receiver = await startReceiver();
  await server.ops.post('/clock', { now });
  return {
    server,
    corpus: testCorpus(server),
    receiver,
    async close() {
      await server.close();
      await receiver.close();
    },
  };
}
