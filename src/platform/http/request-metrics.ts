// Every answered request, counted and timed by its route's pattern (`/v1/sensors/:id`), never
// its URL, so the number of series stays bounded whatever clients send.
import type { FastifyInstance } from 'fastify';
import { UNMATCHED_ROUTE } from '../metrics.js';

export type RequestObserver = (method: string, route: string, statusCode: number, seconds: number) => void;

export function installRequestMetrics(app: FastifyInstance, observe: RequestObserver): void {
  app.addHook('onResponse', (request, reply, done) => {
    // elapsedTime runs on the monotonic clock, from the request's arrival.
    observe(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
