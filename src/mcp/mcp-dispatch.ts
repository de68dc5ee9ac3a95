// One JSON-RPC message through the official MCP SDK's Server: the SDK answers initialize
// (version negotiation, capabilities), ping, tools/list and tools/call and writes every
// result; this file gives it a one-message transport (each POST is a whole, stateless
// exchange) and the tools, with the caller bound in.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../platform/scopes.js';
import { listedSchema } from './mcp-listed-schema.js';
import type { McpTool, ToolCaller } from './mcp-tools.js';

export const SERVER_INFO = { name: 'event-monitoring-api', version: '1.0.0' };

/** What a model needs before its first call (decisions.md, 2026-11-25): the workflow, and what costs credits. */
export const INSTRUCTIONS =
  'News events, searchable by type, entities, outlets and role values. Ids (UUIDs) come from the tools: list_event_types gives ' +
  "event type ids and their roles' code names, search_entities finds entity ids by name (results also carry the ids of the " +
  'entities involved), list_beats gives beat ids. search_events is charged once per call (usually 1 credit), whatever it finds; ' +
  'read further pages with search_events_continue and its next_cursor, which is free: never search again to page. get_event ' +
  're-reads one event as it stands now, free. A beat ' +
  '(create_beat) watches for matching events and records them as entries, each charged when recorded; reading beats and ' +
  'entries is free. A failed call answers a problem whose `guidance` says what to do next.';

/** A transport that carries one message in and at most one answer out. */
class OneMessageTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private answer!: (message: JSONRPCMessage) => void;
  readonly answered = new Promise<JSONRPCMessage>((resolve) => (this.answer = resolve));

  async start(): Promise<void> {}

  /** Only the response answers the POST: a notification the server sends first is dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message)) this.answer(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}

export interface DispatchContext {
  caller: ToolCaller;
  scopes: ReadonlySet<Scope>;
  tools: readonly McpTool[];
  /** Runs a tool that passed its checks; a refusal comes back as an `isError` result. */
  call(tool: McpTool, args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * Hands one message to a fresh SDK Server. Answers its response, or null for a
 * notification (which gets none).
 */
export async function dispatch(message: JSONRPCMessage, context: DispatchContext): Promise<JSONRPCMessage | null> {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const visible = context.tools.filter((tool) => context.scopes.has(tool.scope));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: visible.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: listedSchema(tool.input) as never,
      annotations: tool.annotations,
    })),
  }));
  // Unknown tools, missing scopes and bad arguments were refused before dispatch.
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = visible.find((t) => t.name === request.params.name)!;
    return context.call(tool, (request.params.arguments ?? {}) as Record<string, unknown>);
  });
  const transport = new OneMessageTransport();
  await server.connect(transport);
  try {
    transport.deliver(message);
    return 'id' in message ? await transport.answered : null;
  } finally {
    await server.close();
  }
}
