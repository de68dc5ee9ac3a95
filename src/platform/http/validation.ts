// Request validation with two Ajv instances: bodies are validated strictly (no type
// coercion, unknown fields kept so they are refused, not silently dropped), while query
// strings and path parameters arrive as text and are coerced to their declared types.
// Errors come out as one `{pointer, detail}` per field, in words a reader acts on ("must be
// a UUID or null"), not one line per schema keyword.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchemaCompiler } from 'fastify';
import { type FieldError, MAX_FIELD_ERRORS } from '../problems.js';
import { storableInstant } from '../instants.js';
import { TEXT_PATTERN, UUID_PATTERN } from './schema-kit.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const isoDateTime = fullFormats['date-time'] as { validate: (value: string) => boolean } | ((value: string) => boolean);
const dateTimeShape = typeof isoDateTime === 'function' ? isoDateTime : isoDateTime.validate;

function makeAjv(options: Options): Ajv {
  // date-time: Ajv's format takes year 0, which the database refuses.
  // verbose: errors carry their schema, which is what the messages are written from.
  const ajv = new Ajv({ allErrors: true, discriminator: true, removeAdditional: false, useDefaults: true, strict: false, verbose: true, ...options });
  addFormats(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => dateTimeShape(value) && storableInstant(value) });
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

/** An integer as a query string or path writes it: decimal digits, perhaps a minus (not `1e2`, `0x10`, ` 5`). */
const DECIMAL_INTEGER = /^-?\d+$/;

type TextValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * A validator of query strings or path parameters. Ajv's coercion reads a text as JavaScript
 * reads a number, so `1e2` and `0x10` would pass as integers: the integer fields are checked
 * for plain decimal digits first, and refused as Ajv would refuse a wrong type.
 */
function textValidator(schema: Schema): TextValidator {
  const validate = textAjv.compile(schema);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const integers = Object.entries(properties).filter(([, field]) => field.type === 'integer');
  if (integers.length === 0) return validate;
  const checked: TextValidator = (data) => {
    const errors: ErrorObject[] = integers
      .filter(([name]) => {
        const value = (data as Record<string, unknown> | null)?.[name];
        return typeof value === 'string' && !DECIMAL_INTEGER.test(value);
      })
      .map(([name, field]) => ({
        keyword: 'type',
        instancePath: `/${escapePointer(name)}`,
        schemaPath: `#/properties/${escapePointer(name)}/type`,
        params: { type: 'integer' },
        message: 'must be integer',
        parentSchema: field,
      }));
    if (errors.length > 0) {
      checked.errors = errors;
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  return textValidator(schema as Schema) as ReturnType<FastifySchemaCompiler<unknown>>;
};

export const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

type Schema = Record<string, unknown>;

const range = (min: unknown, max: unknown): string => {
  if (typeof min === 'number' && typeof max === 'number') return ` from ${min} to ${max}`;
  if (typeof min === 'number') return ` of at least ${min}`;
  if (typeof max === 'number') return ` of at most ${max}`;
  return '';
};

/** What a value must be, in words, for the schemas of a request's fields; null when a schema has no short description. */
export function describeSchema(schema: Schema | undefined): string | null {
  if (schema === undefined || typeof schema !== 'object') return null;
  const branches = (schema.anyOf ?? (schema.discriminator ? undefined : schema.oneOf)) as Schema[] | undefined;
  if (branches) {
    const parts = branches.map(describeSchema);
    if (parts.some((part) => part === null)) return null;
    return [...new Set(parts)].join(' or ');
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(String).join(', ')}`;
  switch (schema.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'true or false';
    case 'integer':
      return `an integer${range(schema.minimum, schema.maximum)}`;
    case 'number':
      return `a number${range(schema.minimum, schema.maximum)}`;
    case 'string':
      if (schema.pattern === UUID_PATTERN) return 'a UUID';
      if (schema.format === 'date-time') return 'an ISO 8601 timestamp with an offset, in the years 1 to 9999';
      if (schema.format === 'uri') return 'an absolute URL';
      return 'a string';
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
  }
  return null;
}

/** Keywords whose failure is best told as what the value must be. */
const DESCRIBED_KEYWORDS = new Set(['type', 'enum', 'const', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/** The kinds a discriminated union takes, from its branches' `const` tags. */
function kindsOf(schema: Schema | undefined, tag: string): string[] {
  const branches = (schema?.oneOf ?? []) as Schema[];
  return branches
    .map((branch) => (branch.properties as Record<string, Schema> | undefined)?.[tag]?.const)
    .filter((kind): kind is string => typeof kind === 'string');
}

/** The member an error is about: the unknown, missing or tag member itself, else the value that failed. */
function pointerOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`;
    case 'required':
      return `${error.instancePath}/${escapePointer(String(params.missingProperty))}`;
    case 'discriminator':
      return `${error.instancePath}/${escapePointer(String(params.tag))}`;
  }
  return error.instancePath;
}

function detailOf(error: ErrorObject): { pointer: string; detail: string } {
  const params = error.params as Record<string, unknown>;
  const parent = error.parentSchema as Schema | undefined;
  const pointer = error.instancePath;
  switch (error.keyword) {
    case 'additionalProperties': {
      const renamed = (parent?.['x-renamed'] as Record<string, string> | undefined)?.[String(params.additionalProperty)];
      return { pointer: pointerOf(error), detail: renamed ? `was renamed to ${renamed}` : 'is not a recognized field' };
    }
    case 'required':
      return { pointer: pointerOf(error), detail: 'is required' };
    case 'discriminator': {
      const kinds = kindsOf(parent, String(params.tag));
      const detail =
        params.error === 'tag' || kinds.length === 0
          ? `is required and must be ${kinds.length > 0 ? `one of ${kinds.join(', ')}` : 'a string'}`
          : `must be one of ${kinds.join(', ')}`;
      return { pointer: pointerOf(error), detail };
    }
    case 'maxItems':
      return { pointer, detail: `must have at most ${String(params.limit)} items` };
    case 'minItems':
      return { pointer, detail: `must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}` };
    case 'maxLength':
      return { pointer, detail: `must be at most ${String(params.limit)} characters long` };
    case 'minLength':
      return { pointer, detail: params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long` };
    case 'uniqueItems':
      return { pointer, detail: 'must not list the same item twice' };
  }
  if (error.keyword === 'pattern' && params.pattern === TEXT_PATTERN) return { pointer, detail: 'must not contain a NUL character or an unpaired surrogate' };
  const described = DESCRIBED_KEYWORDS.has(error.keyword) || error.keyword === 'anyOf' || error.keyword === 'oneOf' ? describeSchema(parent) : null;
  return { pointer, detail: described === null ? (error.message ?? 'is invalid') : `must be ${described}` };
}

/** Field errors as a problem lists them: at most MAX_FIELD_ERRORS, and how many more there were. */
export interface FieldErrorList {
  errors: FieldError[];
  omitted: number;
}

/**
 * Validator errors read in full; those after are only counted, one per member they point at.
 * Reading relates each union to the errors inside it (pairs of errors), so it is bounded here;
 * the body's shape bounds how many errors there can be at all (json-limits.ts).
 */
const READ_IN_FULL = 200;

/**
 * One `{pointer, detail}` per field; an unknown or missing member points at itself. A union
 * the value fails as a whole ("a UUID or null") is told once, as what it must be; when the
 * value took one branch's shape and failed inside it, the errors inside say what is wrong.
 * At most MAX_FIELD_ERRORS are listed; the rest are counted.
 */
export function toFieldErrors(all: readonly ErrorObject[]): FieldErrorList {
  const errors = all.length > READ_IN_FULL ? all.slice(0, READ_IN_FULL) : all;
  const isUnion = (e: ErrorObject) => e.keyword === 'anyOf' || (e.keyword === 'oneOf' && !(e.parentSchema as Schema | undefined)?.discriminator);
  const inside = (union: ErrorObject, e: ErrorObject) =>
    e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`) && e.instancePath.startsWith(union.instancePath);
  // A union is told as a whole when every branch failed at the value itself (its type, form or range).
  const whole = errors.filter(
    (u) =>
      isUnion(u) &&
      describeSchema(u.parentSchema as Schema) !== null &&
      errors.every((e) => !inside(u, e) || (e.instancePath === u.instancePath && DESCRIBED_KEYWORDS.has(e.keyword))),
  );
  const partial = errors.filter((u) => isUnion(u) && !whole.includes(u));
  const byPointer = new Map<string, string>();
  for (const error of errors) {
    if (whole.some((u) => inside(u, error))) continue;
    // Another branch's type, where the value took a branch and failed inside it.
    if (error.keyword === 'type' && partial.some((u) => inside(u, error) && error.instancePath === u.instancePath)) continue;
    if (partial.includes(error) || error.keyword === 'if') continue; // the errors inside say what is wrong
    const { pointer, detail } = detailOf(error);
    if (!byPointer.has(pointer)) byPointer.set(pointer, detail); // the first word on a field is the one it gets
  }
  const out = [...byPointer].map(([pointer, detail]) => ({ pointer, detail }));
  if (out.length === 0) out.push({ pointer: '', detail: 'is invalid' });
  const unread = new Set<string>();
  for (let i = READ_IN_FULL; i < all.length; i++) {
    const pointer = pointerOf(all[i]!);
    if (!byPointer.has(pointer)) unread.add(pointer);
  }
  return { errors: out.slice(0, MAX_FIELD_ERRORS), omitted: Math.max(0, out.length - MAX_FIELD_ERRORS) + unread.size };
}

const VALID: FieldErrorList = Object.freeze({ errors: [], omitted: 0 }) as FieldErrorList;

/** Validates a value against a body schema outside HTTP (the CLI, MCP, bulk lines), with the same rules. */
export function compileBodyValidator(schema: object): (value: unknown) => FieldErrorList {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? VALID : toFieldErrors(validate.errors ?? []));
}
