// How much header a request may carry (docs/api-reference.md, "Transport"): its URL and header
// names and values add up to less than 16 KiB, else 431 request-header-fields-too-large, on
// HTTP/1.1 and HTTP/2 alike. On HTTP/1.1 Node's parser counts them (maxHeaderSize) and its
// refusal is answered by the client-error handler (error-handler.ts). On HTTP/2 the server advertises a
// header list of at most MAX_HTTP2_HEADER_LIST bytes, so that the 16 KiB rule can be answered
// with a problem rather than a reset stream; a client that sends more than it advertises has
// its stream refused, as the protocol provides.
import { Http2ServerRequest } from 'node:http2';
import type { FastifyInstance } from 'fastify';
import { sendProblem } from './reply-problem.js';

export const MAX_HEADER_BYTES = 16 * 1024;
export const MAX_HTTP2_HEADER_LIST = 64 * 1024;

export const HEADERS_TOO_LARGE_DETAIL = `The request's URL and headers are larger than the ${MAX_HEADER_BYTES / 1024} KiB the server reads.`;

/**
 * A request's URL and header names and values, counted as Node's HTTP/1.1 parser counts them;
 * of the pseudo-headers only `:path` (the URL). HTTP/2 header strings are Latin-1, a byte each.
 */
function headerBytes(rawHeaders: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name === ':path') bytes += rawHeaders[i + 1]!.length;
    else if (!name.startsWith(':')) bytes += name.length + rawHeaders[i + 1]!.length;
  }
  return bytes;
}

export function installHeaderLimits(app: FastifyInstance, docsUrl: string): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (!(raw instanceof Http2ServerRequest) || headerBytes(raw.rawHeaders) < MAX_HEADER_BYTES) return done();
    request.log.info('refused a request whose headers are larger than the server reads');
    sendProblem(request, reply, docsUrl, 'request-header-fields-too-large', HEADERS_TOO_LARGE_DETAIL);
  });
}
