// What the request log says of a request (decisions.md, "HTTP hardening": logs never contain a
// raw API key or signing secret, even one a client put in a URL). Redacting what looks like a
// key misses spellings (`&#101;vk_…`, `\u0065vk_…`, a key without its prefix), so the log holds
// only what the service itself wrote: the route's pattern, the path with the ids in it, the
// names of the query parameters the route declares, and the method when it is one the service
// serves. Anything else a client put in a URL is never written, in any spelling.
import type { FastifyRequest } from 'fastify';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\d{1,12}$/;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Stands for a path segment or parameter value the log does not repeat. */
const WITHHELD = '*';

/** A parameter value that is an id (a UUID or a number) is logged; any other is not. */
const isId = (value: string) => UUID.test(value) || NUMBER.test(value);

/** The fixed words of the service's routes (`v1`, `sensors`, …): the only text of a path that reaches the log. */
export class RouteWords {
  private readonly words = new Set<string>();

  add(pattern: string): void {
    for (const segment of pattern.split('/')) if (segment !== '' && !segment.includes(':') && !segment.includes('*')) this.words.add(segment);
  }

  has(segment: string): boolean {
    return this.words.has(segment);
  }
}

export interface LoggedRequest {
  method: string;
  /** The route's pattern (`/v1/sensors/:id`), or null when no route matched. */
  route: string | null;
  /** The path with its ids in place and every other client-written segment as `*`. */
  path: string;
  /** The names of the query parameters the route declares that the request sent. */
  query?: string[];
  /** How many other query parameters it sent. */
  query_others?: number;
}

function declaredQueryNames(request: FastifyRequest): ReadonlySet<string> {
  const schema = request.routeOptions.schema as { querystring?: { properties?: Record<string, unknown> } } | undefined;
  return new Set(Object.keys(schema?.querystring?.properties ?? {}));
}

function queryOf(request: FastifyRequest, rawQuery: string): Pick<LoggedRequest, 'query' | 'query_others'> {
  if (rawQuery === '') return {};
  const declared = declaredQueryNames(request);
  const query: string[] = [];
  let others = 0;
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const name = part.split('=', 1)[0]!;
    if (declared.has(name) && !query.includes(name)) query.push(name);
    else if (!declared.has(name)) others++;
  }
  return { ...(query.length > 0 ? { query } : {}), ...(others > 0 ? { query_others: others } : {}) };
}

function matchedPath(pattern: string, params: Record<string, unknown>): string {
  return pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.includes('*') ? WITHHELD : segment;
      const value = params[segment.slice(1)];
      return typeof value === 'string' && isId(value) ? value : segment;
    })
    .join('/');
}

const unmatchedPath = (rawPath: string, words: RouteWords) =>
  rawPath
    .split('/')
    .map((segment) => (segment === '' || words.has(segment) || isId(segment) ? segment : WITHHELD))
    .join('/');

/** The request as the log tells it: nothing in it a client wrote but ids and the service's own words. */
export function loggedRequest(request: FastifyRequest, words: RouteWords): LoggedRequest {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  const rawPath = mark === -1 ? url : url.slice(0, mark);
  const pattern = request.routeOptions.url ?? null;
  // The not-found handler's route is Fastify's catch-all, which names no path of the service.
  const route = pattern !== null && pattern !== '*' && pattern !== '/*' ? pattern : null;
  return {
    method: METHODS.has(request.method) ? request.method : WITHHELD,
    route,
    path: route === null ? unmatchedPath(rawPath, words) : matchedPath(route, request.params as Record<string, unknown>),
    ...queryOf(request, mark === -1 ? '' : url.slice(mark + 1)),
  };
}
