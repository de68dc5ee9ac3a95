import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, PROBLEMS, type ProblemExtras, type ProblemSlug } from '../problems.js';

/** Sends an RFC 9457 problem; the one place that writes application/problem+json. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  docsUrl: string,
  slug: ProblemSlug,
  detail: string,
  extras: ProblemExtras = {},
): FastifyReply {
  for (const [name, value] of Object.entries(extras.headers ?? {})) reply.header(name, value);
  if (slug === 'invalid-api-key') reply.header('www-authenticate', 'Bearer');
  return reply
    .code(PROBLEMS[slug].status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(docsUrl, slug, detail, request.id, extras));
}
