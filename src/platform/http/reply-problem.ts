import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, PROBLEMS, type ProblemBody, type ProblemExtras, type ProblemSlug } from '../problems.js';

/** Writes a problem in another envelope than problem+json (MCP answers JSON-RPC errors). */
export type ProblemRenderer = (request: FastifyRequest, reply: FastifyReply, slug: ProblemSlug, body: ProblemBody, extras: ProblemExtras) => FastifyReply;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's problems are written, when not as application/problem+json. */
    renderProblem?: ProblemRenderer;
  }
}

/**
 * Sends an RFC 9457 problem; the one place that writes problems, as application/problem+json
 * or through the route's own renderer.
 */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  docsUrl: string,
  slug: ProblemSlug,
  detail: string,
  extras: ProblemExtras = {},
): FastifyReply {
  // Every answer carries its request id; a problem may be sent before the hook that sets it ran.
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(extras.headers ?? {})) reply.header(name, value);
  if (slug === 'invalid-api-key') reply.header('www-authenticate', 'Bearer');
  const render = (request.routeOptions?.config as { renderProblem?: ProblemRenderer } | undefined)?.renderProblem;
  if (render) return render(request, reply.code(PROBLEMS[slug].status), slug, problemBody(docsUrl, slug, detail, request.id, extras), extras);
  return reply
    .code(PROBLEMS[slug].status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(docsUrl, slug, detail, request.id, extras));
}
