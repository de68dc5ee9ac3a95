// Sign-in and sign-out. The session cookie is `__Host-` (Secure, Path=/, no Domain), HttpOnly
// and SameSite=Lax; it lives at most as long as the session may (7 days), and the server
// decides expiry on its own clock whatever the browser keeps.
import type { FastifyInstance } from 'fastify';
import { sessionOf } from '../platform/http/guard.js';
import { ABSOLUTE_LIMIT_MS, LOCK_MS, SESSION_COOKIE, type ConsoleSessions } from './console-sessions.js';
import { csrfToken, renewCsrfSecret } from './console-csrf.js';
import { field, sendHtml, type FormBody } from './console-replies.js';
import { signInPage } from './views/sign-in.js';

export const SESSION_COOKIE_OPTIONS = { path: '/', secure: true, httpOnly: true, sameSite: 'lax' } as const;
const HOME = '/console/settings/api-keys';

export function consoleAuthRoutes(app: FastifyInstance, sessions: ConsoleSessions): void {
  const open = { access: 'public' as const };

  app.get('/sign-in', { config: open }, async (request, reply) => sendHtml(reply, 200, signInPage({ csrf: csrfToken(request, reply) })));

  app.post('/sign-in', { config: open }, async (request, reply) => {
    const body = request.body as FormBody;
    const email = field(body, 'email');
    const result = await sessions.signIn(email, field(body, 'password'));
    if (!result.ok) {
      const locked = result.reason === 'locked';
      if (locked) reply.header('retry-after', String(LOCK_MS / 1000));
      const problem = locked
        ? `Too many failed sign-ins for this email. Signing in with it is refused for ${LOCK_MS / 60_000} minutes.`
        : 'The email or the password is not right.';
      return sendHtml(reply, locked ? 429 : 400, signInPage({ csrf: csrfToken(request, reply), email, problem }));
    }
    reply.setCookie(SESSION_COOKIE, result.token, { ...SESSION_COOKIE_OPTIONS, maxAge: ABSOLUTE_LIMIT_MS / 1000 });
    renewCsrfSecret(reply);
    request.log.info({ console_user_id: result.session.userId, account_id: result.session.accountId }, 'console sign-in');
    return reply.redirect(HOME, 303);
  });

  app.post('/sign-out', { config: { access: 'session' } }, async (request, reply) => {
    await sessions.signOut(sessionOf(request).sessionId);
    reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
    renewCsrfSecret(reply);
    return reply.redirect('/console/sign-in', 303);
  });

  app.get('/', { config: { access: 'session' } }, async (_request, reply) => reply.redirect(HOME, 303));
}
