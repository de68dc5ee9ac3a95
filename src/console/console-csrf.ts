// Cross-site request forgery (decisions.md, "Web console": every state-changing form carries a
// CSRF token). Three defences, each enough against a forged form on another site:
// - the request's Origin (or, without one, its Referer) must be the console's own origin: the
//   public base URL's, or the one the request itself was sent to (its Host, always https here),
//   so a console opened as https://127.0.0.1:8443 works while the base URL says localhost; a
//   page on another site cannot make a browser send our Host with its own Origin. A request
//   with neither header is refused too (browsers send Origin on every POST form);
// - the token is bound to the session it was served to: it is signed over the session's id
//   (the library's userInfo, under a key derived from the server's secret), so one browser's
//   token, even with its CSRF cookie, does nothing in another's session;
// - the secret behind the tokens (the CSRF cookie) is renewed at sign-in and sign-out, so a
//   token served before either no longer works after it.
import { createHmac, randomBytes } from 'node:crypto';
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const CSRF_COOKIE = '__Host-evmon-csrf';
const CSRF_COOKIE_OPTIONS = { path: '/', secure: true, httpOnly: true, sameSite: 'lax' } as const;
/** Whom a token belongs to before sign-in: the sign-in form has no session yet. */
const SIGNED_OUT = 'signed-out';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A state-changing request from another origin, or from one the request does not name. */
export class ForeignFormOrigin extends Error {
  constructor(
    readonly sentFrom: string | null,
    readonly consoleOrigin: string,
  ) {
    super(sentFrom === null ? 'form without Origin or Referer' : `form from ${sentFrom}`);
  }
}

const subjectOf = (request: FastifyRequest) => request.consoleSession?.sessionId ?? SIGNED_OUT;

/** A token for the forms of the page being answered, bound to the request's session (or to none). */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: subjectOf(request) });
}

/** A fresh secret behind the tokens, from this answer on: tokens served before stop working. */
export function renewCsrfSecret(reply: FastifyReply): void {
  reply.setCookie(CSRF_COOKIE, randomBytes(18).toString('base64url'), CSRF_COOKIE_OPTIONS);
}

/** The origin a request says it comes from: Origin, else the origin of Referer; null if neither (or unreadable). */
function originOf(request: FastifyRequest): string | null {
  const named = request.headers.origin ?? request.headers.referer;
  if (named === undefined) return null;
  try {
    return new URL(named).origin;
  } catch {
    return named.slice(0, 200); // "null", or not a URL: shown as sent, never equal to ours
  }
}

export async function installConsoleCsrf(app: FastifyInstance, { secret, publicOrigin }: { secret: string; publicOrigin: string }): Promise<void> {
  await app.register(csrfProtection, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: CSRF_COOKIE_OPTIONS,
    getUserInfo: subjectOf,
    csrfOpts: { hmacKey: createHmac('sha256', secret).update('console csrf tokens').digest() },
  });
  const ownOrigin = new URL(publicOrigin).origin;
  app.addHook('preHandler', (request, reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    const sentFrom = originOf(request);
    if (sentFrom !== ownOrigin && sentFrom !== `https://${request.host}`) {
      request.log.warn({ sent_from: sentFrom, expected: ownOrigin }, 'console form refused: not from the console origin');
      return done(new ForeignFormOrigin(sentFrom, ownOrigin));
    }
    app.csrfProtection(request, reply, done);
  });
}
