// HTTP/1.1 written by hand over TLS, for what a client library will not send: two
// Authorization headers, a malformed request line, headers or a body that never finish.
import tls from 'node:tls';

export interface RawExchange {
  /** The first response on the connection, if one came. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (null if it stayed open). */
  closedAfterMs: number | null;
}

export interface RawConnection {
  write(text: string | Buffer): void;
  /** Resolves when a whole response has arrived or the connection closed, or after `waitMs`. */
  exchange(waitMs: number): Promise<RawExchange>;
  /** Milliseconds from connecting until the server closed the connection, or null if still open after `waitMs`. */
  untilClosed(waitMs: number): Promise<number | null>;
  destroy(): void;
}

export async function rawConnection(baseUrl: string, ca: string): Promise<RawConnection> {
  const url = new URL(baseUrl);
  const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const started = Date.now();
  let received = Buffer.alloc(0);
  let closedAfterMs: number | null = null;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('error', () => undefined); // a reset after the answer is the server closing
  socket.on('close', () => {
    closedAfterMs = Date.now() - started;
    wake();
  });

  const parse = (): RawExchange | null => {
    const text = received.toString('utf8');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return closedAfterMs === null ? null : { status: null, headers: {}, body: '', closedAfterMs };
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const body = text.slice(end + 4);
    const length = Number(headers['content-length'] ?? NaN);
    if (closedAfterMs === null && (Number.isNaN(length) || Buffer.byteLength(body) < length)) return null;
    return { status: Number(statusLine!.split(' ')[1]), headers, body, closedAfterMs };
  };

  /** Waits for `ready` to answer non-null, or until `waitMs` has passed. */
  async function until<T>(ready: () => T | null, waitMs: number): Promise<T | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const done = ready();
      if (done !== null) return done;
      if (Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, deadline - Date.now());
        function finish() {
          clearTimeout(timer);
          waiters.delete(finish);
          resolve();
        }
        waiters.add(finish);
      });
    }
  }

  return {
    write: (text) => socket.write(text),
    exchange: async (waitMs) => (await until(parse, waitMs)) ?? { status: null, headers: {}, body: '', closedAfterMs },
    untilClosed: (waitMs) => until(() => closedAfterMs, waitMs),
    destroy: () => socket.destroy(),
  };
}
