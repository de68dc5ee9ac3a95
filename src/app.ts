// buildApp(runtime): the Fastify instance with every route declared. It never listens, so
// tests may inject into it; main.ts listens.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type RawServerDefault } from 'fastify';
import { consoleFeature } from './console/console.plugin.js';
import { SESSION_COOKIE } from './console/console-sessions.js';
import { mcpFeature } from './mcp/mcp.routes.js';
import { parseBearerKey } from './modules/accounts/api-key-format.js';
import { accountsFeature } from './modules/accounts/accounts.routes.js';
import { beatsFeature } from './modules/beats/beats.routes.js';
import { corpusFeature } from './modules/corpus/corpus.routes.js';
import { metricsFeature } from './modules/ops/metrics.routes.js';
import { opsFeature } from './modules/ops/ops.routes.js';
import { reportingFeature } from './modules/reporting/reporting.routes.js';
import { searchFeature } from './modules/search/search.routes.js';
import { sensorsFeature } from './modules/sensors/sensors.routes.js';
import { systemFeature } from './modules/system/system.routes.js';
import { pendingMigrations } from './platform/db/migrate.js';
import { installBodyParsing } from './platform/http/body-parsing.js';
import { installDocs } from './platform/http/docs.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './platform/http/error-handler.js';
import type { FeaturePlugin } from './platform/http/feature.js';
import { installGuard } from './platform/http/guard.js';
import { installHeaderLimits, MAX_HEADER_BYTES, MAX_HTTP2_HEADER_LIST } from './platform/http/header-limits.js';
import { installHttpVersionCheck } from './platform/http/http-versions.js';
import { installIdempotency } from './platform/http/idempotency.js';
import { installInFlightCount } from './platform/http/in-flight-count.js';
import { RouteWords } from './platform/http/logged-request.js';
import { installRequestMetrics } from './platform/http/request-metrics.js';
import { installSlowClientDefence } from './platform/http/slow-clients.js';
import type { TypedApp } from './platform/http/typed-app.js';
import { OneLineRequestLog } from './platform/logger.js';
import { validatorCompiler } from './platform/http/validation.js';
import type { Runtime } from './runtime.js';
import { testHold } from './platform/test-hold.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface TlsOptions {
  cert: string;
  key: string;
}

export interface AppOptions {
  /** Request metrics on (the default); off only to measure what they cost (bench/metrics-overhead.ts). */
  requestMetrics?: boolean;
}

export async function buildApp(runtime: Runtime, tls?: TlsOptions, { requestMetrics = true }: AppOptions = {}): Promise<TypedApp> {
  const { config, logger } = runtime;
  const routeWords = new RouteWords();
  const options = {
    loggerInstance: logger,
    genReqId: () => randomUUID(),
    logController: new OneLineRequestLog(routeWords, { requestIdLogLabel: 'request_id' }),
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    bodyLimit: BODY_LIMIT_BYTES,
    // While draining, requests on connections already open are still served; new
    // connections are refused by the closed listener.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl),
    http2SessionTimeout: config.httpTimeouts.keepAliveMs,
    routerOptions: { maxParamLength: 200 },
    // Header limits (header-limits.ts): Node's HTTP/1.1 parser refuses more than 16 KiB; HTTP/2
    // takes up to its advertised list size and answers 431 above 16 KiB.
    maxHeaderSize: MAX_HEADER_BYTES,
    ...(tls
      ? {
          http2: true,
          https: { allowHTTP1: true, cert: tls.cert, key: tls.key, settings: { maxHeaderListSize: MAX_HTTP2_HEADER_LIST } },
        }
      : {}),
  };
  const app = Fastify(options as FastifyHttpOptions<RawServerDefault, FastifyBaseLogger>).withTypeProvider<TypeBoxTypeProvider>() as TypedApp;

  app.addHook('onRoute', (route) => routeWords.add(route.url));
  installInFlightCount(app, runtime.requestsInFlight);
  if (requestMetrics) installRequestMetrics(app, runtime.metrics.request);
  installHttpVersionCheck(app, config.docsUrl);
  installHeaderLimits(app, config.docsUrl);
  installSlowClientDefence(app, config.httpTimeouts, config.docsUrl);
  app.setValidatorCompiler(validatorCompiler);
  installBodyParsing(app);
  const guards = installGuard(app, {
    limiter: runtime.limiter,
    authenticator: runtime.keys,
    parseKey: parseBearerKey,
    opsToken: config.opsToken,
    sessions: { cookieName: SESSION_COOKIE, resume: (token) => runtime.sessions.resume(token) },
  });
  installIdempotency(app, runtime.claims, config.testAnswerPause ? { beforeAnswer: () => testHold(runtime.logger, 'before-answer') } : {});
  installErrorHandling(app, config.docsUrl, guards);
  // A worker process answers its probes and its metrics only; every other path is 404 there.
  const servesApi = config.role !== 'worker';
  if (servesApi) await installDocs(app, { publicBaseUrl: config.publicBaseUrl, docsUrl: config.docsUrl });

  const system = systemFeature({
    ready: () =>
      pendingMigrations(runtime.db).then(
        (pending) => pending.length === 0,
        () => false,
      ),
  });
  const metrics = metricsFeature(runtime.metrics);
  // The features, each one plugin with its public, operator and own routes.
  const features: FeaturePlugin[] = [
    system,
    accountsFeature(runtime),
    corpusFeature({ ...runtime, docsUrl: config.docsUrl }),
    searchFeature(runtime.search),
    sensorsFeature(runtime.sensors),
    beatsFeature(runtime),
    reportingFeature(runtime),
    mcpFeature({
      clock: runtime.clock,
      docsUrl: config.docsUrl,
      publicOrigin: new URL(config.publicBaseUrl).origin,
      search: runtime.search,
      eventReads: runtime.eventReads,
      reference: runtime.reference,
      beats: runtime.beats,
      beatEntries: runtime.beatEntries,
    }),
    consoleFeature({ ...runtime, edgeGuard: guards.edge, publicOrigin: new URL(config.publicBaseUrl).origin }),
    opsFeature({ clock: runtime.clock, jobs: runtime.jobs, drain: () => runtime.drain() }),
    metrics,
  ];
  for (const plugin of servesApi ? features : [system, metrics]) await app.register(plugin, { operatorApi: config.opsToken !== null });

  await app.ready();
  return app;
}
