// The slow-client defence (decisions.md, "HTTP hardening"): a request's headers within 15 s,
// its whole body within 30 s of its start (else 408), an idle keep-alive connection closed
// after 75 s.
import { Http2ServerRequest } from 'node:http2';
import type { FastifyInstance } from 'fastify';
import type { SlowClientTimeouts } from '../../config.js';
import { sendProblem } from './reply-problem.js';

export const REQUEST_TIMEOUT_DETAIL = 'The request did not arrive in time: headers within 15 s, the whole body within 30 s.';

/**
 * HTTP/1.1: Node's own timeouts, which also govern the HTTP/1.1 connections of the HTTP/2
 * server (Fastify sets them only on an HTTP/1 server); Node checks them on an interval, and a
 * second keeps a slow client's answer close to its limit. Its 408 is written by the parser's
 * error handler (error-handler.ts). HTTP/2: an idle session closes after the keep-alive time
 * (Fastify's http2SessionTimeout), and each stream gets its own body deadline here, since one
 * slow stream must not hold the others of its session.
 */
export function installSlowClientDefence(app: FastifyInstance, timeouts: SlowClientTimeouts, docsUrl: string): void {
  Object.assign(app.server, {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.bodyMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: Math.min(1000, Math.ceil(timeouts.headersMs / 4)),
  });
  app.addHook('onRequest', (request, reply, done) => {
    // HTTP/2 is told by the request object, not by the version a request line names (an
    // HTTP/1 request may say HTTP/2.0; http-versions.ts refuses it). A stream whose headers
    // ended it has no body to wait for.
    if (!(request.raw instanceof Http2ServerRequest)) return done();
    const raw = request.raw;
    if (raw.stream.endAfterHeaders || raw.complete) return done();
    const timer = setTimeout(() => {
      if (raw.complete || raw.stream.destroyed || reply.sent) return;
      request.log.info('request body not complete in time');
      void sendProblem(request, reply, docsUrl, 'request-timeout', REQUEST_TIMEOUT_DETAIL);
      // Once the answer is out, the rest of the body is not wanted: end the stream (RST_STREAM).
      const stream = raw.stream;
      if (stream.writableFinished) stream.close();
      else stream.once('finish', () => stream.close());
    }, timeouts.bodyMs);
    timer.unref();
    raw.once('end', () => clearTimeout(timer));
    raw.stream.once('close', () => clearTimeout(timer));
    done();
  });
}
