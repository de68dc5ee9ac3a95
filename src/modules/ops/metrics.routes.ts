// GET /ops/v1/metrics: the Prometheus text exposition of this process (operations.md).
import type { TypedApp } from '../../platform/http/typed-app.js';
import { feature } from '../../platform/http/feature.js';

export interface MetricsSource {
  contentType: string;
  scrape(): Promise<string>;
}

export function metricsRoutes(app: TypedApp, metrics: MetricsSource): void {
  app.get(
    '/metrics',
    {
      config: { access: 'ops' },
      schema: {
        operationId: 'opsMetrics',
        summary: 'Metrics of this process',
        description:
          'The Prometheus text exposition format (`text/plain; version=0.0.4`) for the process that answers: requests, credits, background jobs, webhook deliveries, database pools, event-change lag, memory and event-loop delay. The metrics are listed in the README.',
        tags: ['Operator: time and background work'],
        response: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.scrape()),
  );
}

export const metricsFeature = (metrics: MetricsSource) => feature({ ops: (app) => metricsRoutes(app, metrics) });
