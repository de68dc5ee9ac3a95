// The API reference: the OpenAPI 3.1 document generated from the route schemas (every route
// appears by being declared), a readable rendering of it at /docs (Redoc's standalone bundle,
// served from the package: no outside requests), and one page per problem type at
// /docs/problems/<slug>.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../paths.js';
import { PROBLEM_SLUGS, PROBLEMS, type ProblemSlug } from '../problems.js';
import { operationProblems, problemResponseComponents, problemResponseRefs } from './openapi-problems.js';
import { ProblemSchema } from './schema-kit.js';

/** The parts of the generated OpenAPI document that are rewritten here. */
interface OpenApiOperation {
  operationId: string;
  parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[];
  responses?: Record<string, unknown>;
  'x-problem-types'?: ProblemSlug[];
}
interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, unknown>;
}

/**
 * The reference page: Redoc reading /v1/openapi.json. Its styles are injected by the bundle
 * (style-src 'unsafe-inline') and its search runs in a worker made from a blob; nothing else
 * is allowed, and nothing is fetched from outside.
 */
const REFERENCE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; worker-src blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const REFERENCE_THEME = JSON.stringify({
  colors: { primary: { main: '#0b5cad' } },
  typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } },
  sidebar: { backgroundColor: '#f4f5f7' },
});
const REFERENCE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Event Monitoring API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<style>body{margin:0}</style>
</head><body>
<redoc spec-url="/v1/openapi.json" expand-responses="200,201" theme='${REFERENCE_THEME}'></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body></html>`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const inlineCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d1d1f}
code{background:#f2f2f4;padding:0 .25em;border-radius:3px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.3em .6em;text-align:left}</style>
</head><body>${body}</body></html>`;
}

export async function installDocs(app: FastifyInstance, options: { publicBaseUrl: string; docsUrl: string }): Promise<void> {
  const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'api-reference.md'), 'utf8');
  app.addSchema(ProblemSchema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Event Monitoring API', version: 'v1', description: reference },
      servers: [{ url: options.publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key, `evk_…`.' },
          opsToken: { type: 'http', scheme: 'bearer', description: 'The operator token (EVMON_OPS_TOKEN).' },
        },
      },
    },
    // Component schemas named after their $id (Sensor, Beat, Problem…), not def-0, def-1….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => {
        if (typeof json.$id !== 'string') return `def-${i}`;
        if (!json.title) json.title = json.$id;
        return json.$id;
      },
    },
    transform: ({ schema, url, route }) => {
      const config = (route.config ?? {}) as { access?: string; scope?: string | readonly string[] };
      const transformed = { ...(schema ?? {}) } as Record<string, unknown>;
      if (transformed.hide) return { schema: transformed as never, url };
      // Client generators name their methods after it: every visible operation declares one.
      if (typeof transformed.operationId !== 'string') throw new Error(`${route.method} ${url} declares no operationId`);
      transformed['x-problem-types'] = operationProblems({
        operationId: transformed.operationId,
        method: [route.method].flat()[0]!,
        access: config.access,
        scoped: [config.scope ?? []].flat().length > 0,
        hasParams: transformed.params !== undefined,
        hasInput: ['params', 'querystring', 'body'].some((part) => transformed[part] !== undefined),
        hasBody: transformed.body !== undefined,
      });
      if (config.access === 'key') {
        const scopes = [config.scope ?? []].flat();
        transformed.security = [{ apiKey: [] }];
        transformed['x-required-scope'] = scopes.length === 1 ? scopes[0] : scopes;
        const needs =
          scopes.length === 0
            ? 'Any valid API key; no scope needed.'
            : `${scopes.length === 1 ? 'Scope' : 'Scopes'}: ${scopes.map((s) => `\`${s}\``).join(' and ')}.`;
        transformed.description = [needs, transformed.description].filter(Boolean).join(' ');
      }
      if (config.access === 'ops') transformed.security = [{ opsToken: [] }];
      return { schema: transformed as never, url };
    },
    // Each operation's problem types become references to shared responses, one per status.
    transformObject: (documentObject) => {
      const document = (documentObject as { openapiObject: OpenApiDocument }).openapiObject;
      const operationIds = new Set<string>();
      const statuses = new Set<number>();
      for (const item of Object.values(document.paths ?? {})) {
        for (const operation of Object.values(item)) {
          if (operationIds.has(operation.operationId)) throw new Error(`operationId ${operation.operationId} is used twice`);
          operationIds.add(operation.operationId);
          const refs = problemResponseRefs(operation['x-problem-types'] ?? []);
          for (const status of Object.keys(refs)) statuses.add(Number(status));
          operation.responses = { ...operation.responses, ...refs };
          // A query parameter with a default may be left out (validation fills it in), though
          // the schema lists it as required so that the handler's type has it.
          for (const parameter of operation.parameters ?? [])
            if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false;
        }
      }
      // Only the statuses some operation answers: an unused component is noise to a reader.
      document.components = { ...document.components, responses: problemResponseComponents(options.docsUrl, '#/components/schemas/Problem', statuses) };
      return document;
    },
  });
  // Built once at start-up, so a route without an operationId stops the server, not a reader.
  app.addHook('onReady', async () => {
    app.swagger();
  });

  app.get('/v1/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());

  // Redoc 2 (its last line supporting Node 20; the bundle runs in the browser): read once. Its
  // sidebar shows Redocly's logo from their CDN; that one address is emptied, so the image
  // fails at once and Redoc hides it (its own onError), and the page asks nothing of outside.
  const redoc = fs
    .readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js'), 'utf8')
    .replace('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '"data:,"');
  app.get('/docs/redoc.standalone.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(redoc),
  );
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', REFERENCE_CSP).send(REFERENCE_PAGE),
  );

  app.get('/docs/problems', { schema: { hide: true } }, async (_request, reply) => {
    const rows = PROBLEM_SLUGS.map(
      (slug) =>
        `<tr><td><a href="problems/${slug}"><code>${slug}</code></a></td><td>${PROBLEMS[slug].status}</td><td>${escapeHtml(PROBLEMS[slug].title)}</td></tr>`,
    ).join('');
    return reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          'Problem types',
          `<h1>Problem types</h1><p>Every error is an RFC 9457 problem whose <code>type</code> is <code>${escapeHtml(options.docsUrl)}/problems/&lt;slug&gt;</code>. Clients branch on <code>type</code> and <code>status</code>.</p><table><tr><th>slug</th><th>status</th><th>title</th></tr>${rows}</table>`,
        ),
      );
  });

  app.get<{ Params: { slug: string } }>('/docs/problems/:slug', { schema: { hide: true } }, async (request, reply) => {
    const slug = request.params.slug as ProblemSlug;
    const definition = PROBLEMS[slug];
    if (!Object.hasOwn(PROBLEMS, slug) || !definition) {
      return reply.callNotFound();
    }
    const body = `<p><a href="../problems">All problem types</a></p><h1>${escapeHtml(definition.title)}</h1>
<table><tr><th>type</th><td><code>${escapeHtml(options.docsUrl)}/problems/${slug}</code></td></tr>
<tr><th>status</th><td>${definition.status}</td></tr><tr><th>retryable</th><td>${definition.retryable ? 'yes' : 'no'}</td></tr></table>
<p>${inlineCode(definition.description)}</p>
<p>The body carries <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> and <code>request_id</code> (also sent as the <code>X-Request-Id</code> header).</p>`;
    return reply.type('text/html; charset=utf-8').send(page(`${definition.title} (${slug})`, body));
  });
}
