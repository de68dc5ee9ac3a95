// A feature's HTTP surface as one Fastify plugin: its public routes under /v1, its operator
// routes under /ops/v1, and routes of its own at the root (probes, MCP, the console). app.ts
// registers the features as a list; each feature's routes file says what it serves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TypedApp } from './typed-app.js';

export interface FeatureOptions {
  /** Without an operator token the operator API does not exist (404), so its routes are left out. */
  operatorApi: boolean;
}

export type FeaturePlugin = FastifyPluginAsyncTypebox<FeatureOptions>;

export interface FeatureRoutes {
  /** Routes of the public API, declared relative to /v1. */
  v1?: (app: TypedApp) => void;
  /** Routes of the operator API, declared relative to /ops/v1. */
  ops?: (app: TypedApp) => void;
  /** Routes outside both, declared from the root. */
  root?: (app: TypedApp) => void | Promise<void>;
}

export function feature({ v1, ops, root }: FeatureRoutes): FeaturePlugin {
  return async (app, { operatorApi }) => {
    if (root) await root(app);
    if (v1) await app.register(async (scoped) => v1(scoped), { prefix: '/v1' });
    if (ops && operatorApi) await app.register(async (scoped) => ops(scoped), { prefix: '/ops/v1' });
  };
}
