// The HTTP version a request line names (decisions.md, "HTTP hardening": a malformed request is
// 400 bad-request). Node's parser refuses most unknown versions itself, but lets HTTP/0.9 and
// HTTP/2.0 through on an HTTP/1 connection; neither is a request this server can answer in
// kind (HTTP/2 is negotiated by ALPN, never named in a request line), so both are refused
// here as a malformed request line, and the connection is closed as the parser's refusals do.
import { Http2ServerRequest } from 'node:http2';
import type { FastifyInstance } from 'fastify';
import { sendProblem } from './reply-problem.js';

const SERVED_ON_HTTP1 = new Set(['1.0', '1.1']);

export function installHttpVersionCheck(app: FastifyInstance, docsUrl: string): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request
  // for a check that almost always passes is measurable (bench/sensors-throughput.ts).
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw instanceof Http2ServerRequest || SERVED_ON_HTTP1.has(raw.httpVersion)) return done();
    request.log.info({ http_version: raw.httpVersion }, 'refused a request line with an HTTP version not served on HTTP/1');
    reply.header('connection', 'close');
    sendProblem(request, reply, docsUrl, 'bad-request', `The request line names HTTP/${raw.httpVersion}; this connection serves HTTP/1.0 and HTTP/1.1.`);
  });
}
