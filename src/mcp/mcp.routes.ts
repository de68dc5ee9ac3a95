// POST /mcp: stateless Streamable HTTP (MCP 2025-06-18 and 2025-11-25; v1 document, "MCP
// endpoint"). Each POST carries one JSON-RPC message and gets one JSON answer. The API key
// guard, the MCP budget and idempotency are the shared ones; this file keeps the transport
// contract where the SDK's own HTTP transport would not (batches, GET streams, old protocol
// versions, unknown tools as results), then hands the message to the SDK (mcp-dispatch.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  isJSONRPCNotification,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../platform/clock.js';
import { principalOf } from '../platform/http/guard.js';
import { answerWithEffect, sendJson } from '../platform/http/idempotency.js';
import type { CommitAnswer } from '../platform/idempotency-claims.js';
import type { ProblemRenderer } from '../platform/http/reply-problem.js';
import type { TypedApp } from '../platform/http/typed-app.js';
import { compileBodyValidator } from '../platform/http/validation.js';
import { databaseProblem } from '../platform/http/error-handler.js';
import { PROBLEMS, problemBody, ProblemError, type FieldError, type ProblemSlug } from '../platform/problems.js';
import { dispatch } from './mcp-dispatch.js';
import { MCP_IDEMPOTENCY } from './mcp-idempotency.js';
import { mcpProblem, RPC_CODES } from './mcp-problems.js';
import { mcpTools, toolInputSchema, type McpTool, type ToolServices } from './mcp-tools.js';
import { feature } from '../platform/http/feature.js';

/** The protocol revisions served; older ones are refused (decisions.md, "MCP"). */
export const PROTOCOL_VERSIONS = ['2025-06-18', '2025-11-25'] as const;
const OLDEST_VERSION = PROTOCOL_VERSIONS[0];

export interface McpDeps extends ToolServices {
  clock: Clock;
  docsUrl: string;
  /** The service's own origin: the only `Origin` a browser may call from. */
  publicOrigin: string;
}

const refuse = (slug: ProblemSlug, detail: string, rpcCode?: number, errors?: FieldError[], errorsOmitted = 0) =>
  new ProblemError(slug, detail, { ...(rpcCode === undefined ? {} : { rpcCode }), ...(errors ? { errors, errorsOmitted } : {}) });

/** The JSON-RPC id of the request, when it has one. */
function rpcIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Problems over MCP are JSON-RPC errors, the HTTP status kept, the problem in `error.data`. */
function renderAsRpcError(clock: Clock): ProblemRenderer {
  return (request, reply, slug, body, extras) => {
    // Not JSON at all: parse error. Field errors: bad params. Any other malformed request
    // (a bad Idempotency-Key, a body that is no message): invalid request.
    const invalid = request.body === undefined ? RPC_CODES.parseError : extras.errors ? RPC_CODES.invalidParams : RPC_CODES.invalidRequest;
    const code = extras.rpcCode ?? (slug === 'validation-failed' ? invalid : RPC_CODES.refused);
    return reply.type('application/json; charset=utf-8').send({
      jsonrpc: '2.0',
      id: Array.isArray(request.body) ? null : rpcIdOf(request.body),
      error: { code, message: body.detail, data: mcpProblem(body, slug, clock.now()) },
    });
  };
}

/**
 * The SDK's own schemas of the methods served: params it would refuse are refused here, as
 * HTTP 400 with -32602 and pointers, instead of its internal error with a dump of the check.
 */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/** The media types an Accept header lists, leaving out those it refuses (q=0). */
const mediaTypes = (accept: string | undefined) =>
  (accept ?? '')
    .split(',')
    .map((part) => part.split(';').map((piece) => piece.trim().toLowerCase()))
    .filter(([, ...params]) => !params.some((param) => /^q=0(\.0{0,3})?$/.test(param)))
    .map(([type]) => type!);

export function mcpRoutes(app: TypedApp, deps: McpDeps): void {
  const tools = mcpTools(deps);
  const validators = new Map(tools.map((tool) => [tool.name, compileBodyValidator(toolInputSchema(tool.input))]));

  /** The DNS-rebinding defence and the Accept rule, once the key is known good. */
  async function transportRules(request: FastifyRequest): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== deps.publicOrigin) {
      throw refuse('origin-not-allowed', `Origin ${origin} may not call this endpoint; only ${deps.publicOrigin} may (or no Origin at all).`);
    }
    const accepted = mediaTypes(request.headers.accept);
    if (!accepted.includes('application/json') || !accepted.includes('text/event-stream')) {
      throw refuse('not-acceptable', 'Accept must list both application/json and text/event-stream.');
    }
  }

  /**
   * A tool's result: the REST JSON envelope as text; a failure as `isError` with the problem
   * under `error`. A validation failure is thrown: it is a bad argument. A tool that creates
   * stores its whole JSON-RPC answer with its effect (`commit`), which the route then sends.
   */
  async function callTool(
    request: FastifyRequest,
    tool: McpTool,
    args: Record<string, unknown>,
    commit?: CommitAnswer<JSONRPCMessage>,
  ): Promise<CallToolResult> {
    const principal = principalOf(request);
    const success = (result: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(result) }] });
    const commitAnswer: CommitAnswer<unknown> | undefined =
      commit && ((tx, result, at) => commit(tx, { jsonrpc: '2.0', id: rpcIdOf(request.body)!, result: success(result) }, at));
    try {
      return success(await tool.run({ accountId: principal.accountId, keyId: principal.keyId }, args, commitAnswer));
    } catch (error) {
      if (error instanceof ProblemError && error.slug === 'validation-failed') throw error; // a bad argument (see the route)
      let problem: { slug: ProblemSlug; detail: string; extras?: ProblemError['extras'] };
      if (error instanceof ProblemError) problem = { slug: error.slug, detail: error.detail, extras: error.extras };
      else {
        problem = databaseProblem(request, error) ?? {
          slug: 'internal-error',
          detail: 'An unexpected error occurred; it has been logged with this request id.',
        };
        if (problem.slug === 'internal-error') request.log.error({ err: error, tool: tool.name }, 'unexpected error in an MCP tool');
      }
      request.outcomeStatus = PROBLEMS[problem.slug].status;
      const body = mcpProblem(problemBody(deps.docsUrl, problem.slug, problem.detail, request.id, problem.extras), problem.slug, deps.clock.now());
      return { content: [{ type: 'text', text: JSON.stringify({ error: body }) }], isError: true };
    }
  }

  /** What is refused before dispatch: protocol versions, unknown tools, scopes, arguments. */
  function checkMessage(request: FastifyRequest, message: Record<string, unknown>): void {
    const header = request.headers['mcp-protocol-version'];
    if (header !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(String(header))) {
      throw refuse(
        'validation-failed',
        `MCP-Protocol-Version ${String(header)} is not served; use one of ${PROTOCOL_VERSIONS.join(', ')}.`,
        RPC_CODES.invalidRequest,
      );
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (message.method === 'initialize') {
      const asked = params.protocolVersion;
      // Revisions are dates; anything else is no revision at all.
      if (typeof asked !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(asked) || asked < OLDEST_VERSION) {
        throw refuse(
          'validation-failed',
          `Protocol version ${String(asked)} is not ${OLDEST_VERSION} or later; ask for ${PROTOCOL_VERSIONS.join(' or ')}.`,
          RPC_CODES.invalidParams,
          [{ pointer: '/params/protocolVersion', detail: `must be ${OLDEST_VERSION} or later` }],
        );
      }
    }
    if (message.method === 'tools/call') {
      const tool = tools.find((t) => t.name === params.name);
      if (!tool) {
        throw refuse(
          'validation-failed',
          `No tool named ${JSON.stringify(params.name)}; tools/list names the tools this key may call.`,
          RPC_CODES.invalidParams,
          [{ pointer: '/params/name', detail: 'is not a tool' }],
        );
      }
      if (!principalOf(request).scopes.has(tool.scope)) throw refuse('missing-scope', `The tool ${tool.name} needs the scope ${tool.scope}.`);
      const args = params.arguments ?? {};
      const { errors, omitted } = validators.get(tool.name)!(args);
      if (errors.length > 0) {
        const more = omitted > 0 ? `; and ${omitted} more` : '';
        throw refuse(
          'validation-failed',
          `The arguments of ${tool.name} are not valid: ${errors.map((e) => `${e.pointer || 'arguments'} ${e.detail}`).join('; ')}${more}.`,
          RPC_CODES.invalidParams,
          errors,
          omitted,
        );
      }
    }
  }

  app.post(
    '/mcp',
    {
      config: { scope: [], transport: 'mcp', idempotency: MCP_IDEMPOTENCY, renderProblem: renderAsRpcError(deps.clock) },
      onRequest: transportRules,
      schema: { tags: ['MCP'], summary: 'MCP endpoint (stateless Streamable HTTP, JSON-RPC)', hide: true },
    },
    async (request, reply: FastifyReply) => {
      const message = request.body;
      if (Array.isArray(message)) throw refuse('validation-failed', 'Batches are not accepted: send one JSON-RPC message per POST.', RPC_CODES.invalidRequest);
      // A request (string or number id) or a notification; anything else would get no answer.
      if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) {
        throw refuse(
          'validation-failed',
          'The body must be one JSON-RPC 2.0 request (with a string or number `id`) or notification, with a `method`.',
          RPC_CODES.invalidRequest,
        );
      }
      const rpc = message as Record<string, unknown>;
      const parsed = 'id' in rpc ? REQUEST_SCHEMAS.get(rpc.method as string)?.safeParse(rpc) : undefined;
      if (parsed && !parsed.success) {
        const errors = parsed.error!.issues.map((issue) => ({ pointer: `/${issue.path.map(String).join('/')}`, detail: issue.message }));
        throw refuse(
          'validation-failed',
          `The ${String(rpc.method)} request is not valid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}.`,
          RPC_CODES.invalidParams,
          errors,
        );
      }
      checkMessage(request, rpc);
      const principal = principalOf(request);
      // A bad argument that only the service can see (a bad cursor, a window without its end)
      // is still a bad argument: refused as -32602, not a tool that ran and failed.
      let badArgument: ProblemError | null = null;
      // The answer a creating tool stored with its effect, sent as stored once the tool has
      // succeeded: stored is not yet committed (a failed COMMIT makes the tool fail).
      let stored: JSONRPCMessage | null = null;
      let committed: JSONRPCMessage | null = null;
      const storeAnswer = answerWithEffect<JSONRPCMessage>(request, reply, 200);
      const commit: CommitAnswer<JSONRPCMessage> | undefined =
        storeAnswer &&
        (async (tx, answer, at) => {
          await storeAnswer(tx, answer, at);
          stored = answer;
        });
      const answer = await dispatch(rpc as JSONRPCMessage, {
        caller: { accountId: principal.accountId, keyId: principal.keyId },
        scopes: principal.scopes,
        tools,
        call: async (tool, args) => {
          try {
            const result = await callTool(request, tool, args, commit);
            if (!result.isError) committed = stored;
            return result;
          } catch (error) {
            badArgument = error as ProblemError;
            return { content: [] };
          }
        },
      });
      if (badArgument) {
        const { detail, extras } = badArgument as ProblemError;
        throw refuse('validation-failed', detail, RPC_CODES.invalidParams, extras.errors);
      }
      if (answer === null) return reply.code(202).send();
      return sendJson(reply, 200, committed ?? answer);
    },
  );
}

export const mcpFeature = (deps: McpDeps) => feature({ root: (app) => mcpRoutes(app, deps) });
