// MCP for tests: JSON-RPC over HTTPS to POST /mcp, as a client would send it.
import assert from 'node:assert/strict';
import type { HttpResponse } from './http.js';
import type { TestServer } from './server.js';

export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

export interface McpClient {
  /** One JSON-RPC message (or any body) POSTed to /mcp with the key. */
  post(key: string, body: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  /** tools/call; answers the HTTP response. */
  call(key: string, name: string, args: Record<string, unknown>, headers?: Record<string, string>): Promise<HttpResponse>;
  /** tools/call that succeeded: the REST envelope parsed from its text content. */
  result(key: string, name: string, args: Record<string, unknown>): Promise<any>;
  /** A JSON-RPC error with this HTTP status, JSON-RPC code and problem type; answers `error.data`. */
  rpcError(response: HttpResponse, status: number, code: number, slug: string): any;
  /** A tool result with `isError` (HTTP 200) whose problem has this type; answers the problem. */
  toolError(response: HttpResponse, slug: string): any;
}

let nextId = 1;

export function mcpClient(server: Pick<TestServer, 'http' | 'docsUrl'>): McpClient {
  const client: McpClient = {
    post: (key, body, headers = {}) =>
      server.http.request('POST', '/mcp', { headers: { authorization: `Bearer ${key}`, ...MCP_HEADERS, ...headers }, rawBody: JSON.stringify(body) }),
    call: (key, name, args, headers) => client.post(key, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }, headers),
    async result(key, name, args) {
      const response = await client.call(key, name, args);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.result.isError, undefined, response.text);
      return JSON.parse(response.json.result.content[0].text);
    },
    rpcError(response, status, code, slug) {
      assert.equal(response.status, status, response.text);
      assert.equal(response.json.jsonrpc, '2.0');
      assert.equal(response.json.error.code, code, response.text);
      const problem = response.json.error.data;
      assert.equal(problem.type, `${server.docsUrl}/problems/${slug}`, response.text);
      assert.equal(problem.status, status);
      assert.equal(typeof problem.retryable, 'boolean');
      assert.ok(problem.guidance.length > 20);
      assert.ok(!Number.isNaN(Date.parse(problem.as_of)));
      return problem;
    },
    toolError(response, slug) {
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.result.isError, true, response.text);
      const { error } = JSON.parse(response.json.result.content[0].text);
      assert.equal(error.type, `${server.docsUrl}/problems/${slug}`, response.text);
      assert.equal(typeof error.retryable, 'boolean');
      assert.ok(error.guidance.length > 20);
      assert.ok(!Number.isNaN(Date.parse(error.as_of)));
      return error;
    },
  };
  return client;
}
