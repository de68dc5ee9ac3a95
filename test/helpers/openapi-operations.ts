// The operations of an OpenAPI document as a fuzz test needs them: where each one is, what it
// takes (path and query parameters, the members of its body), which credentials it wants, and a
// plausible body to start from, so that generated input reaches the code behind validation.
import { unique } from './corpus.js';

export type Schema = Record<string, any>;
/** A step into a JSON value: a member name or an array index. */
export type Segment = string | number;

export interface Operation {
  method: string;
  /** The path template, `/v1/sensors/{id}`. */
  path: string;
  label: string;
  /** The credentials it wants: an API key, the operator token, or none. */
  auth: 'key' | 'ops' | 'public';
  /** The scopes an API key needs for it (x-required-scope). */
  scopes: string[];
  pathParams: string[];
  queryParams: string[];
  bodySchema: Schema | null;
  ndjson: boolean;
  /** Every member name of the body schema, nested ones and renamed ones included. */
  fieldNames: string[];
  /** Where members can go in the body, each as a path from the root. */
  fieldPaths: Segment[][];
  /** The subset of fieldPaths whose schema is an array. */
  arrayPaths: Segment[][];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const takesBody = (operation: Operation) => ['POST', 'PUT', 'PATCH'].includes(operation.method);

function resolve(document: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const name = (current.$ref as string).replace('#/components/schemas/', '');
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}

function branches(schema: Schema): Schema[] {
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
}

/** The member names and member paths of a body schema, to a few levels. */
function walkSchema(document: Schema, root: Schema | null) {
  const names = new Set<string>();
  const paths: Segment[][] = [];
  const arrays: Segment[][] = [];
  const visit = (schema: Schema, path: Segment[], depth: number) => {
    const resolved = resolve(document, schema);
    if (depth > 5) return;
    for (const branch of branches(resolved)) visit(branch, path, depth + 1);
    if (resolved.type === 'array' || resolved.items) {
      if (path.length > 0) arrays.push(path);
      if (resolved.items) visit(resolved.items, [...path, 0], depth + 1);
    }
    // Old member names, refused with a hint that names the new one: worth sending too.
    for (const renamed of Object.keys(resolved['x-renamed'] ?? {})) {
      names.add(renamed);
      paths.push([...path, renamed]);
    }
    for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
      names.add(name);
      paths.push([...path, name]);
      visit(property, [...path, name], depth + 1);
    }
  };
  if (root) visit(root, [], 0);
  return { fieldNames: [...names], fieldPaths: paths, arrayPaths: arrays };
}

/** Every operation of the document, in its order (each operation's seed is derived from its label, not its place). */
export function operationsOf(document: Schema): Operation[] {
  return Object.entries<Schema>(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries<Schema>(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): Operation => {
        const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])] as Schema[];
        const security = JSON.stringify(operation.security ?? []);
        const content = operation.requestBody?.content ?? {};
        const bodySchema = (content['application/json']?.schema ?? null) as Schema | null;
        return {
          method: method.toUpperCase(),
          path,
          label: `${method.toUpperCase()} ${path}`,
          auth: security.includes('opsToken') ? 'ops' : security.includes('apiKey') ? 'key' : 'public',
          scopes: [operation['x-required-scope'] ?? []].flat(),
          pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
          queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name as string),
          bodySchema,
          // A route that reads its body as NDJSON text has no JSON schema to list, so the document
          // says so in its description rather than as requestBody content.
          ndjson: 'application/x-ndjson' in content || /application\/x-ndjson/.test(operation.description ?? ''),
          ...walkSchema(document, bodySchema),
        };
      }),
  );
}

export interface SampleContext {
  /** An existing id for a UUID member named `field`, so that the body gets past the look-ups. */
  idFor(field: string): string;
  /** The test clock's time, for date-time members. */
  now: string;
}

/** A plausible body for the operation: the required members of its schema ({} when it has none). */
export function plausibleBody(document: Schema, operation: Operation, context: SampleContext): unknown {
  return operation.bodySchema ? sample(document, operation.bodySchema, '', context, 0) : {};
}

/** A value of a schema: required members (one member of an object that requires none). */
function sample(document: Schema, schema: Schema | undefined, field: string, context: SampleContext, depth: number): unknown {
  const s = resolve(document, schema);
  const inner = (child: Schema | undefined, name: string) => sample(document, child, name, context, depth + 1);
  if (depth > 8) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const options = branches(s);
  if (options.length > 0 && !s.type && !s.properties) {
    return inner(options.find((option) => resolve(document, option).type !== 'null') ?? options[0], field);
  }
  if (s.default !== undefined && s.type !== 'object') return s.default;
  switch (s.type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const required = (s.required as string[] | undefined) ?? Object.keys(properties).slice(0, 1);
      return Object.fromEntries(required.map((name) => [name, inner(properties[name], name)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => inner(s.items, field));
    case 'integer':
    case 'number':
      return s.minimum ?? (typeof s.maximum === 'number' ? Math.min(1, s.maximum) : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (s.pattern === UUID_PATTERN) return context.idFor(field);
      if (s.format === 'date-time') return context.now;
      if (s.format === 'uri' || field === 'url') return 'https://fuzz.invalid/hook';
      if (field === 'email') return `fuzz-${unique()}@example.com`;
      if (typeof s.pattern === 'string' && s.pattern.includes('\\d{4}')) return '2026-11-01';
      if (typeof s.pattern === 'string' && s.pattern.includes('[a-z')) return `fuzz_${unique()}`;
      if (field === 'happened_at') return '2026-11-19T10:00:00Z';
      return 'fuzz '.padEnd(Math.max(s.minLength ?? 1, 12), 'x');
    }
  }
}
