// Counts each request in when it arrives and out when its connection is done with it: the
// response's 'close' fires once it is sent and also when the client goes away first, where
// onResponse would not run.
import type { FastifyInstance } from 'fastify';
import type { RequestsInFlight } from '../requests-in-flight.js';

export function installInFlightCount(app: FastifyInstance, inFlight: RequestsInFlight): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.raw.once('close', inFlight.enter());
    done();
  });
}
