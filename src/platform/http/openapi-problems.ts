// The problem responses of each operation in the OpenAPI document. What every route can
// answer follows from how it is declared (its access, scope, parameters, body, method); what
// only some services answer is listed per operationId below. Responses are shared components,
// one per status, each naming the problem types it carries; an operation's own list of types
// is its `x-problem-types`, so a client generator and a reader both see which `type` to expect.
import { PROBLEMS, type ProblemSlug } from '../problems.js';

/** Problems beyond those the declaration implies, from the services behind each operation. */
const SERVICE_PROBLEMS: Record<string, readonly ProblemSlug[]> = {
  // A cursor naming no execution is 404.
  searchEvents: ['not-found', 'insufficient-credits', 'search-execution-expired', 'upstream-error'],
  createSensor: ['entity-list-inaccessible'],
  updateSensor: ['entity-list-inaccessible'],
  enableSensor: ['state-conflict'],
  disableSensor: ['state-conflict'],
  redeliverSensorDelivery: ['state-conflict'],
  listBeats: ['not-entitled'],
  getBeat: ['not-entitled'],
  createBeat: ['not-entitled', 'quota-exceeded', 'entity-list-inaccessible'],
  replaceBeat: ['not-entitled', 'quota-exceeded', 'entity-list-inaccessible', 'state-conflict'],
  deleteBeat: ['not-entitled'],
  enableBeat: ['not-entitled', 'state-conflict'],
  disableBeat: ['not-entitled', 'state-conflict'],
  resumeBeat: ['not-entitled', 'state-conflict'],
  setBeatSpendCap: ['not-entitled'],
  readBeatEntries: ['not-entitled'],
  fileReport: ['not-entitled', 'report-already-submitted'],
  opsCreateApiKey: ['quota-exceeded'],
  opsAdjustCredits: ['insufficient-credits'],
  opsSetClock: ['not-found'],
  opsCreateEventType: ['state-conflict'],
  opsMergeEvent: ['state-conflict'],
  opsDeleteEvent: ['state-conflict'],
  opsMergeEntity: ['state-conflict'],
  opsDeleteEntity: ['state-conflict'],
  opsCreateConsoleUser: ['state-conflict'],
};

// What any request can meet before or around its route: the HTTP parser (400, 408, 431), and
// the server or its database failing (500, 503). The edge policy's ban is a bare 429, not a
// problem; the problem 429 is an API key's budget.
const EVERY_OPERATION: readonly ProblemSlug[] = ['bad-request', 'request-timeout', 'request-header-fields-too-large', 'internal-error', 'write-unavailable'];

export interface DeclaredOperation {
  operationId: string;
  method: string;
  access: string | undefined;
  scoped: boolean;
  hasParams: boolean;
  hasInput: boolean;
  hasBody: boolean;
}

/** Every problem type the operation can answer, in the order of PROBLEMS. */
export function operationProblems(operation: DeclaredOperation): ProblemSlug[] {
  const slugs = new Set<ProblemSlug>(EVERY_OPERATION);
  if (operation.access === 'key' || operation.access === 'ops') slugs.add('invalid-api-key');
  if (operation.access === 'key') slugs.add('rate-limited');
  if (operation.scoped) slugs.add('missing-scope');
  if (operation.hasInput) slugs.add('validation-failed');
  if (operation.hasParams) slugs.add('not-found');
  if (operation.hasBody) for (const slug of ['payload-too-large', 'unsupported-media-type'] as const) slugs.add(slug);
  // Idempotency keys are taken on every POST an API key makes (idempotency.ts).
  if (operation.method === 'POST' && operation.scoped) for (const slug of ['idempotency-in-flight', 'idempotency-key-conflict'] as const) slugs.add(slug);
  for (const slug of SERVICE_PROBLEMS[operation.operationId] ?? []) slugs.add(slug);
  return (Object.keys(PROBLEMS) as ProblemSlug[]).filter((slug) => slugs.has(slug));
}

/** The operationIds SERVICE_PROBLEMS names, for a test to check against the operations that exist. */
export const operationIdsWithServiceProblems = (): string[] => Object.keys(SERVICE_PROBLEMS);

const STATUS_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'ContentTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};

const responseName = (status: number): string => {
  const name = STATUS_NAMES[status];
  if (!name) throw new Error(`no response component name for status ${status}`);
  return name;
};

/** components.responses: one problem response for each of `statuses`, naming every type of that status. */
export function problemResponseComponents(docsUrl: string, problemSchemaRef: string, statuses: ReadonlySet<number>): Record<string, unknown> {
  const byStatus = new Map<number, ProblemSlug[]>();
  for (const slug of Object.keys(PROBLEMS) as ProblemSlug[]) {
    const { status } = PROBLEMS[slug];
    if (statuses.has(status)) byStatus.set(status, [...(byStatus.get(status) ?? []), slug]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, slugs]) => [
        responseName(status),
        {
          description: `A problem document (RFC 9457) of type ${slugs.map((slug) => `[\`${slug}\`](${docsUrl}/problems/${slug})`).join(', ')}; the operation's \`x-problem-types\` lists the ones it answers.`,
          content: { 'application/problem+json': { schema: { $ref: problemSchemaRef } } },
        },
      ]),
  );
}

/** An operation's responses for its problem types: a reference per status. */
export function problemResponseRefs(slugs: readonly ProblemSlug[]): Record<string, { $ref: string }> {
  const statuses = [...new Set(slugs.map((slug) => PROBLEMS[slug].status))].sort((a, b) => a - b);
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${responseName(status)}` }]));
}
