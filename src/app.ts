// buildApp(runtime): the Fastify instance with every route declared. It never listens, so
// tests may inject into it; main.ts listens.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type RawServerDefault } from 'fastify';
import { accountSelfRoutes, accountsOpsRoutes } from './modules/accounts/accounts.routes.js';
import { beatsRoutes } from './modules/beats/beats.routes.js';
import { parseBearerKey } from './modules/accounts/api-key-format.js';
import { eventsOpsRoutes } from './modules/corpus/events.routes.js';
import { referenceOpsRoutes, referencePublicRoutes } from './modules/corpus/reference.routes.js';
import fastifyCookie from '@fastify/cookie';
import { consolePlugin } from './console/console.plugin.js';
import { SESSION_COOKIE } from './console/console-sessions.js';
import { consoleUsersOpsRoutes } from './console/console-users.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { opsRoutes } from './modules/ops/ops.routes.js';
import { reportingOpsRoutes, reportingRoutes } from './modules/reporting/reporting.routes.js';
import { sensorsRoutes } from './modules/sensors/sensors.routes.js';
import { systemRoutes } from './modules/system/system.routes.js';
import { pendingMigrations } from './platform/db/migrate.js';
import { installBodyParsing } from './platform/http/body-parsing.js';
import { installDocs } from './platform/http/docs.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './platform/http/error-handler.js';
import { installGuard } from './platform/http/guard.js';
import { installIdempotency } from './platform/http/idempotency.js';
import { installSlowClientDefence } from './platform/http/slow-clients.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { OneLineRequestLog } from './platform/logger.js';
import type { TypedApp } from './platform/http/typed-app.js';
import { validatorCompiler } from './platform/http/validation.js';
import type { Runtime } from './runtime.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface TlsOptions {
  cert: string;
  key: string;
}

export async function buildApp(runtime: Runtime, tls?: TlsOptions): Promise<TypedApp> {
  const { config, logger } = runtime;
  const options = {
    loggerInstance: logger,
    genReqId: () => randomUUID(),
    logController: new OneLineRequestLog({ requestIdLogLabel: 'request_id' }),
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    bodyLimit: BODY_LIMIT_BYTES,
    // While draining, requests on connections already open are still served; new
    // connections are refused by the closed listener.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl),
    http2SessionTimeout: config.httpTimeouts.keepAliveMs,
    routerOptions: { maxParamLength: 200 },
    ...(tls ? { http2: true, https: { allowHTTP1: true, cert: tls.cert, key: tls.key } } : {}),
  };
  const app = Fastify(options as FastifyHttpOptions<RawServerDefault, FastifyBaseLogger>).withTypeProvider<TypeBoxTypeProvider>() as TypedApp;

  installSlowClientDefence(app, config.httpTimeouts, config.docsUrl);
  app.setValidatorCompiler(validatorCompiler);
  installBodyParsing(app);
  await app.register(fastifyCookie); // the console's session and CSRF cookies
  const edgeGuard = installGuard(app, {
    limiter: runtime.limiter,
    authenticator: runtime.keys,
    parseKey: parseBearerKey,
    opsToken: config.opsToken,
    sessions: { cookieName: SESSION_COOKIE, resume: (token) => runtime.sessions.resume(token) },
  });
  installIdempotency(app, runtime.claims);
  installErrorHandling(app, config.docsUrl, edgeGuard);
  await installDocs(app, { publicBaseUrl: config.publicBaseUrl, docsUrl: config.docsUrl });

  systemRoutes(app, {
    ready: async () => {
      try {
        return (await pendingMigrations(runtime.db)).length === 0;
      } catch {
        return false;
      }
    },
  });

  await app.register(
    async (v1) => {
      accountSelfRoutes(v1 as TypedApp, runtime.self);
      sensorsRoutes(v1 as TypedApp, runtime.sensors);
      referencePublicRoutes(v1 as TypedApp, runtime.reference);
      searchRoutes(v1 as TypedApp, runtime.search);
      beatsRoutes(v1 as TypedApp, runtime.beats, runtime.beatEntries);
      reportingRoutes(v1 as TypedApp, { reports: runtime.reports, grants: runtime.grants });
    },
    { prefix: '/v1' },
  );

  app.get('/', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 302));
  await app.register(
    (consoleApp) =>
      consolePlugin(consoleApp, {
        sessions: runtime.sessions,
        accounts: runtime.accounts,
        self: runtime.self,
        sensors: runtime.sensors,
        beats: runtime.beats,
        beatEntries: runtime.beatEntries,
        edgeGuard,
      }),
    { prefix: '/console' },
  );

  mcpRoutes(app, {
    clock: runtime.clock,
    docsUrl: config.docsUrl,
    publicOrigin: new URL(config.publicBaseUrl).origin,
    search: runtime.search,
    beats: runtime.beats,
    beatEntries: runtime.beatEntries,
  });

  // Without an operator token the operator API does not exist (404).
  if (config.opsToken !== null) {
    await app.register(
      async (opsApp) => {
        accountsOpsRoutes(opsApp as TypedApp, runtime.accounts);
        opsRoutes(opsApp as TypedApp, { clock: runtime.clock, jobs: runtime.jobs, drain: () => runtime.drain() });
        referenceOpsRoutes(opsApp as TypedApp, runtime.reference);
        eventsOpsRoutes(opsApp as TypedApp, runtime.events);
        reportingOpsRoutes(opsApp as TypedApp, runtime.grants);
        consoleUsersOpsRoutes(opsApp as TypedApp, runtime.consoleUsers);
      },
      { prefix: '/ops/v1' },
    );
  }

  await app.ready();
  return app;
}
