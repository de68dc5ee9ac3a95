// Counts each request in when it arrives and out when its connection is done with it: the
// response's 'close' fires once it is sent and also when the client goes away first, where
// onResponse would not run. A pipelined HTTP/1.1 request still queued behind an earlier one
// when its client goes away never gets a response to close: its socket's 'close' counts it
// out (one listener per request in flight, taken off when the response closes; an HTTP/2
// stream's response always closes, and its session's socket is shared by many streams).
import type { FastifyInstance } from 'fastify';
import type { RequestsInFlight } from '../requests-in-flight.js';

export function installInFlightCount(app: FastifyInstance, inFlight: RequestsInFlight): void {
  app.addHook('onRequest', (request, reply, done) => {
    const leave = inFlight.enter();
    reply.raw.once('close', leave);
    if (request.raw.httpVersionMajor === 1) {
      const socket = request.raw.socket;
      socket.once('close', leave);
      reply.raw.once('close', () => socket.off('close', leave));
    }
    done();
  });
}
