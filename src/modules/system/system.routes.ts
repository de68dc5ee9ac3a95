// Liveness and readiness probes: no authentication, no budget, no edge policy, no body.
import type { TypedApp } from '../../platform/http/typed-app.js';
import { feature } from '../../platform/http/feature.js';

export interface Readiness {
  /** Database reachable and migrations applied. */
  ready(): Promise<boolean>;
}

export function systemRoutes(app: TypedApp, readiness: Readiness): void {
  const probe = { access: 'probe' as const };
  app.get('/healthz', { config: probe, schema: { hide: true } }, async (_request, reply) => reply.code(200).send());
  app.get('/readyz', { config: probe, schema: { hide: true } }, async (_request, reply) => reply.code((await readiness.ready()) ? 200 : 503).send());
}

export const systemFeature = (readiness: Readiness) => feature({ root: (app) => systemRoutes(app, readiness) });
