// The official MCP SDK's client for tests: `Client` over `StreamableHTTPClientTransport`, as an
// MCP host connects, with the API key as a bearer header and the test server's certificate.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import type { TestServer } from './server.js';

export interface SdkClients {
  connect(key: string): Promise<Client>;
  close(): Promise<void>;
}

export function sdkClients(server: Pick<TestServer, 'http' | 'ca'>): SdkClients {
  const agent = new Agent({ connect: { ca: server.ca, servername: 'localhost' } });
  return {
    async connect(key) {
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.http.baseUrl), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
        fetch: ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as never,
      });
      const client = new Client({ name: 'sdk-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    },
    close: () => agent.close(),
  };
}

/** The REST envelope a tool answered, parsed from its text content. */
export const envelope = (result: unknown) => JSON.parse((result as { content: { type: string; text: string }[] }).content[0]!.text);

/**
 * A call refused before dispatch: the SDK's transport raises the HTTP status with the body it
 * got. Answers the JSON-RPC error after checking its HTTP status, code and problem type.
 */
export async function refusal(call: Promise<unknown>, status: number, code: number, type: string): Promise<any> {
  const error = await call.then(
    (result) => assert.fail(`the call was not refused: ${JSON.stringify(result)}`),
    (raised: { code?: number; message: string }) => raised,
  );
  assert.equal(error.code, status, error.message);
  const body = JSON.parse(error.message.slice(error.message.indexOf('{')));
  assert.equal(body.error.code, code, error.message);
  assert.ok(body.error.data.type.endsWith(`/problems/${type}`), error.message);
  return body.error;
}
