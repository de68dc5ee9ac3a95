// The count of requests a process is serving (platform/requests-in-flight.ts), which the search
// index's build reads to give requests half the thread only while there are some: a request is
// counted from its arrival until its answer is sent, or until its client goes away unanswered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { httpClient } from '../helpers/http.js';
import { rawConnection } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** Waits until `condition` holds, for five seconds at most. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition(); ) {
    if (Date.now() > deadline) throw new Error(`not ${what} after five seconds`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('requests in flight', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());
  const serving = () => server.runtime.requestsInFlight.any();

  it('when a request is answered, over HTTP/2 or HTTP/1.1, then it is no longer counted', async () => {
    assert.equal(serving(), false, 'nothing is served before the first request');
    const http2 = httpClient(server.http.baseUrl, server.ca, { http2: true });
    try {
      const answered = await http2.request('GET', '/healthz');
      assert.equal(answered.status, 200);
      await until(() => !serving(), 'counted out after an HTTP/2 answer');
    } finally {
      await http2.close();
    }

    const connection = await rawConnection(server.http.baseUrl, server.ca);
    try {
      connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      assert.equal((await connection.exchange(5_000)).status, 200);
      await until(() => !serving(), 'counted out after an HTTP/1.1 answer on a connection left open');
    } finally {
      connection.destroy();
    }
  });

  it('when a client sends a request whose body never finishes, then it is counted until the client goes away', async () => {
    const connection = await rawConnection(server.http.baseUrl, server.ca);
    try {
      connection.write('POST /v1/searches HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"filter":');
      await until(serving, 'counted while its body is awaited');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(serving(), true, 'still counted while the body is awaited');
    } finally {
      connection.destroy();
    }
    await until(() => !serving(), 'counted out once its client went away');
  });

  it('when a client pipelines requests and goes away before reading their answers, then every one is counted out', async () => {
    const url = new URL(server.http.baseUrl);
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: server.ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    // Nothing read: the answers of the large file back up, and the requests behind them wait
    // their turn in the server's queue, where no response of theirs exists yet to close.
    socket.pause();
    socket.write(`${'GET /docs/redoc.standalone.js HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(20)}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await until(serving, 'counted while the pipelined requests are served');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(serving(), true, 'still counted while the answers wait to be read');
    socket.destroy();
    await until(() => !serving(), 'every pipelined request counted out once its client went away');
  });
});
