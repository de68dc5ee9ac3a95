// An HTTPS client that trusts the server's own certificate (no verification switched off).
import { Agent, request } from 'undici';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

export interface HttpClient {
  baseUrl: string;
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer }): Promise<HttpResponse>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  close(): Promise<void>;
}

export function httpClient(baseUrl: string, ca: string, options: { http2?: boolean; connections?: number; localAddress?: string } = {}): HttpClient {
  const agent = new Agent({
    connect: { ca, servername: 'localhost' },
    localAddress: options.localAddress,
    allowH2: options.http2 ?? false,
    connections: options.connections ?? 8,
    // An idle connection is let go after 10 s, far from the server's 75 s: a test that works on
    // the database alone for minutes must not send its next request down a connection the
    // server is closing (read ECONNRESET; undici keeps one up to the server's hint less 2 s).
    keepAliveMaxTimeout: 10_000,
  });
  const client: HttpClient = {
    baseUrl,
    async request(method, path, { headers = {}, body, rawBody } = {}) {
      const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
      const finalHeaders: Record<string, string> = { ...headers };
      if (body !== undefined && rawBody === undefined && !Object.keys(finalHeaders).some((h) => h.toLowerCase() === 'content-type')) {
        finalHeaders['content-type'] = 'application/json';
      }
      const response = await request(`${baseUrl}${path}`, { method: method as never, headers: finalHeaders, body: payload, dispatcher: agent });
      const text = await response.body.text();
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
      let json: unknown;
      if (text.length > 0 && /json/.test(flat['content-type'] ?? '')) json = JSON.parse(text);
      return { status: response.statusCode, headers: flat, text, json };
    },
    get: (path, headers) => client.request('GET', path, { headers }),
    post: (path, body, headers) => client.request('POST', path, { body, headers }),
    close: () => agent.close(),
  };
  return client;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A loopback source address of its own (127.x.y.z), so IP-keyed state is not shared between tests. */
export function randomLoopbackAddress(): string {
  const byte = () => 1 + Math.floor(Math.random() * 254);
  return `127.${byte()}.${byte()}.${byte()}`;
}
