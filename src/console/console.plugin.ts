// The web console (decisions.md, "Web console"), on the API's own server and port under
// /console. Everything web-only lives in this encapsulated plugin: form bodies, CSRF
// tokens, security headers and HTML error pages apply here and never to the API.
import fs from 'node:fs';
import path from 'node:path';
import formBody from '@fastify/formbody';
import fastifyCookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsService } from '../modules/accounts/accounts.service.js';
import { feature } from '../platform/http/feature.js';
import { SignInRequired } from '../platform/http/guard.js';
import { clientLeft, databaseProblem, formatBytes } from '../platform/http/error-handler.js';
import { toFieldErrors } from '../platform/http/validation.js';
import { PROJECT_ROOT } from '../platform/paths.js';
import { PROBLEMS, ProblemError } from '../platform/problems.js';
import { consoleAuthRoutes } from './console-auth.routes.js';
import { csrfToken, ForeignFormOrigin, installConsoleCsrf } from './console-csrf.js';
import { consoleKeysRoutes } from './console-keys.routes.js';
import { consolePagesRoutes, type ConsolePagesDeps } from './console-pages.routes.js';
import { describeField, problemMessage, sendHtml } from './console-replies.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { ConsoleUsers } from './console-users.js';
import { consoleUsersOpsRoutes } from './console-users.routes.js';
import { messagePage } from './views/message.js';

const FORM_LIMIT_BYTES = 64 * 1024;

export interface ConsoleDeps extends ConsolePagesDeps {
  sessions: ConsoleSessions;
  accounts: AccountsService;
  /** The server's signing secret, from which the CSRF tokens' key is derived. */
  secret: string;
  /** The origin of the public base URL: the one origin console forms may come from. */
  publicOrigin: string;
  /** The edge policy, for requests no route matched. */
  edgeGuard: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

// Read once at start-up: a few small files, served with their own types.
const ASSETS_DIR = path.join(PROJECT_ROOT, 'src', 'console', 'assets');
const asset = (name: string, type: string) => ({ type, body: fs.readFileSync(path.join(ASSETS_DIR, name)) });
const ASSETS = {
  'console.css': asset('console.css', 'text/css; charset=utf-8'),
  'console.js': asset('console.js', 'text/javascript; charset=utf-8'),
  'favicon.svg': asset('favicon.svg', 'image/svg+xml'),
};
/** What browsers ask for at /favicon.ico whatever a page links to (made by scripts/make-favicon.mjs). */
const FAVICON_ICO = asset('favicon.ico', 'image/x-icon');
const sendAsset = (reply: FastifyReply, { type, body }: { type: string; body: Buffer }) =>
  reply.type(type).header('cache-control', 'public, max-age=300').send(body);

export async function consolePlugin(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  // The session and CSRF cookies are the console's alone: parsed here, not on every API request
  // (its hooks cost every request a few microseconds). Before the routes' own hooks, so the
  // session guard (guard.ts) finds request.cookies.
  await app.register(fastifyCookie);
  // Pages, not API operations: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
  });
  // Forms only: a JSON body is the API's, not a browser's.
  app.removeAllContentTypeParsers();
  await app.register(formBody, { bodyLimit: FORM_LIMIT_BYTES });
  // Every state-changing request comes from the console's origin with the token of a form it served.
  await installConsoleCsrf(app, { secret: deps.secret, publicOrigin: deps.publicOrigin });

  app.setErrorHandler((error: FastifyError, request, reply) => consoleError(error, request, reply));
  app.setNotFoundHandler({ preValidation: deps.edgeGuard as never }, (_request, reply) =>
    sendHtml(reply, 404, messagePage({ title: 'Not found', viewer: null, message: 'There is no console page here.', back: '/console' })),
  );

  for (const [name, file] of Object.entries(ASSETS)) {
    app.get(`/assets/${name}`, { config: { access: 'public' } }, async (_request, reply) => sendAsset(reply, file));
  }

  consoleAuthRoutes(app, deps.sessions);
  consoleKeysRoutes(app, deps);
  consolePagesRoutes(app, deps);
}

/** Errors as pages: a readable message with the API's own wording, never a stack. */
function consoleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof SignInRequired) return reply.redirect('/console/sign-in', 303);
  const viewer = request.consoleSession ? { email: request.consoleSession.email, csrf: csrfToken(request, reply) } : null;
  const show = (status: number, title: string, message: string, details: string[] = []) =>
    sendHtml(reply, status, messagePage({ title, viewer, message, details, back: viewer ? '/console' : '/console/sign-in' }));

  // As on the API: a form cut off mid-body is the browser leaving, not the database failing.
  if (clientLeft(request, error)) {
    return show(400, 'Bad request', 'The browser closed the connection before the form was complete.');
  }
  if (error instanceof ProblemError) {
    const { message, details } = problemMessage(error);
    return show(error.status, PROBLEMS[error.slug].title, message, details);
  }
  if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
    return show(403, 'Form expired', 'This form has expired or did not come from this console. Go back, reload the page and try again.');
  }
  if (error instanceof ForeignFormOrigin) {
    const from = error.sentFrom === null ? 'the browser did not say which page sent it (no Origin or Referer header)' : `it was sent from ${error.sentFrom}`;
    return show(
      403,
      'Form refused',
      `This form did not come from this console: ${from}. Open the console at ${error.consoleOrigin}/console and send it from there.`,
    );
  }
  if (error.validation && error.validationContext === 'params') return show(404, 'Not found', 'There is nothing at this address.');
  if (error.validation) {
    return show(400, 'Bad request', 'The address or form is not valid.', toFieldErrors(error.validation as never).errors.map(describeField));
  }
  const fromDatabase = databaseProblem(request, error);
  if (fromDatabase?.slug === 'write-unavailable') return show(503, 'Unavailable', 'The service cannot take changes right now. Try again in a few seconds.');
  if (fromDatabase) return show(PROBLEMS[fromDatabase.slug].status, PROBLEMS[fromDatabase.slug].title, fromDatabase.detail);
  const status = error.statusCode ?? 500;
  if (status === 413) return show(413, 'Form too large', `The form is larger than the ${formatBytes(FORM_LIMIT_BYTES)} the console accepts.`);
  if (status === 415) return show(415, 'Not a form', 'Console pages take forms as a browser sends them (application/x-www-form-urlencoded).');
  if (status >= 400 && status < 500) return show(status, 'Bad request', error.message);
  request.log.error({ err: error }, 'unexpected error');
  return show(500, 'Something went wrong', `An unexpected error occurred; it has been logged with the request id ${request.id}.`);
}

/** The console as a feature: `/` leads to it, its pages live under /console, its users are made on the operator API. */
export const consoleFeature = (deps: ConsoleDeps & { consoleUsers: ConsoleUsers }) =>
  feature({
    root: async (app) => {
      app.get('/', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 302));
      app.get('/favicon.ico', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => sendAsset(reply, FAVICON_ICO));
      await app.register((consoleApp) => consolePlugin(consoleApp, deps), { prefix: '/console' });
    },
    ops: (app) => consoleUsersOpsRoutes(app, deps.consoleUsers),
  });
