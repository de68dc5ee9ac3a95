// The HTTP version of a request line written by hand over TLS (HTTP/1.1 negotiated by ALPN):
// only HTTP/1.0 and HTTP/1.1 are served on such a connection; any other version is a malformed
// request line, 400 bad-request as a problem document, never a 500.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { bearer } from '../helpers/http.js';
import { rawConnection } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('request line versions', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startServer();
    const account = await server.ops.createAccount();
    key = await server.ops.createKey(account.id, ['SENSORS_READ']);
  });
  after(() => server.close());

  /** One request line with this version, on its own connection; the answer and whether the connection then closed. */
  async function send(version: string, path: string, headers: Record<string, string> = {}) {
    const connection = await rawConnection(server.http.baseUrl, server.ca);
    try {
      const head = Object.entries({ host: 'localhost', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
      connection.write(`GET ${path} ${version}\r\n${head.join('')}\r\n`);
      const answer = await connection.exchange(5000);
      return { answer, closedAfterMs: await connection.untilClosed(5000) };
    } finally {
      connection.destroy();
    }
  }

  for (const version of ['HTTP/2.0', 'HTTP/3.0', 'HTTP/0.9', 'HTTP/1.2', 'HTTP/1.9', 'HTTP/9.9']) {
    it(`when an HTTP/1.1 connection sends a request line saying ${version}, then 400 bad-request as a problem document and the connection closes`, async () => {
      for (const [path, headers] of [
        ['/v1/sensors', bearer(key)],
        ['/healthz', {}],
        ['/console/sign-in', {}],
        ['/no/such/route', {}],
      ] as const) {
        const { answer, closedAfterMs } = await send(version, path, headers);
        assert.equal(answer.status, 400, `${version} ${path}: ${answer.status} ${answer.body}`);
        assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/, `${version} ${path}`);
        const problem = JSON.parse(answer.body);
        assert.equal(problem.type, `${server.docsUrl}/problems/bad-request`);
        assert.equal(problem.status, 400);
        assert.match(problem.detail, /HTTP/);
        assert.match(problem.request_id, /^[0-9a-f-]{36}$/);
        assert.notEqual(closedAfterMs, null, `${version} ${path}: the connection is closed after the answer`);
      }
    });
  }

  it('when an HTTP/1.1 connection sends HTTP/1.1 or HTTP/1.0, then the request is served', async () => {
    for (const version of ['HTTP/1.1', 'HTTP/1.0']) {
      const { answer } = await send(version, '/v1/sensors', { ...bearer(key), connection: 'close' });
      assert.equal(answer.status, 200, `${version}: ${answer.body}`);
    }
  });

  it('when a request comes over HTTP/2, then it is served as before', async () => {
    const session = http2.connect(server.http.baseUrl, { ca: server.ca, servername: 'localhost' });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/v1/sensors', ...bearer(key) });
        stream.on('response', (headers) => resolve(Number(headers[':status'])));
        stream.on('error', reject);
        stream.resume();
      });
      assert.equal(status, 200);
    } finally {
      session.close();
    }
  });
});
