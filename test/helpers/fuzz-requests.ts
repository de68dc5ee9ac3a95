// Sending generated requests: whatever happens comes back as an outcome, an answer read whole
// or the error instead of one, so that a property can judge a dropped connection like a 5xx.
import { Agent, request } from 'undici';

export interface Outgoing {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** A short account of what was generated, for failure messages. */
  what: string;
}

type SendError = Error & { code?: string; cause?: { code?: string; message?: string } };
export type Outcome = { status: number; headers: Record<string, string>; bytes: Buffer } | { error: SendError };

export interface Sender {
  send(outgoing: Outgoing): Promise<Outcome>;
  close(): Promise<void>;
}

/** A sender to a test server (trusting its certificate); a request without an answer after `timeoutMs` is an error. */
export function sender(server: { http: { baseUrl: string }; ca: string }, timeoutMs: number): Sender {
  const agent = new Agent({ connect: { ca: server.ca, servername: 'localhost' }, connections: 4 });
  return {
    async send(outgoing) {
      try {
        const response = await request(`${server.http.baseUrl}${outgoing.path}`, {
          method: outgoing.method as never,
          headers: outgoing.headers,
          body: outgoing.body,
          dispatcher: agent,
          // A request still waiting for a connection has no headers timeout yet: this bounds it too.
          signal: AbortSignal.timeout(timeoutMs),
        });
        const bytes = Buffer.from(await response.body.arrayBuffer());
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
        return { status: response.statusCode, headers, bytes };
      } catch (error) {
        return { error: error as SendError };
      }
    },
    close: () => agent.close(),
  };
}

/** A request as a failure message shows it: long values cut, credentials to their first characters. */
export function describeRequest(outgoing: Outgoing): string {
  const cut = (text: string, keep: number, over: number) => (text.length > over ? `${text.slice(0, keep)}… (${text.length} chars)` : text);
  const headers = Object.entries(outgoing.headers)
    .map(([name, value]) => (name === 'authorization' ? `${name}: ${value.slice(0, 20)}…` : `${name}: ${cut(value, 40, 60)}`))
    .join('; ');
  const size = outgoing.body === undefined ? 'no body' : `${Buffer.byteLength(outgoing.body)} bytes`;
  return `${outgoing.method} ${cut(outgoing.path, 160, 160)} [${headers}] ${outgoing.what} (${size})`;
}
