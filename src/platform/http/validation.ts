// Request validation with two Ajv instances: bodies are validated strictly (no type
// coercion, unknown fields kept so they are refused, not silently dropped), while query
// strings and path parameters arrive as text and are coerced to their declared types.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../problems.js';
import { TEXT_PATTERN } from './schema-kit.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, discriminator: true, removeAdditional: false, useDefaults: true, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** One `{pointer, detail}` per Ajv error; an unknown or missing member points at itself. */
export function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors) {
    let pointer = error.instancePath;
    let detail = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'additionalProperties') {
      pointer += `/${escapePointer(String(params.additionalProperty))}`;
      detail = 'is not a recognized field';
    } else if (error.keyword === 'required') {
      pointer += `/${escapePointer(String(params.missingProperty))}`;
      detail = 'is required';
    } else if (error.keyword === 'pattern' && params.pattern === TEXT_PATTERN) {
      detail = 'must not contain a NUL character or an unpaired surrogate';
    } else if (error.keyword === 'enum') {
      detail = `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    } else if (error.keyword === 'discriminator') {
      pointer += `/${escapePointer(String(params.tag))}`;
      detail = params.error === 'tag' ? 'is required and must be a string' : 'is not one of the allowed kinds';
    } else if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      continue; // the branch errors that follow say what is wrong
    }
    const key = `${pointer} ${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer, detail });
  }
  return out.length > 0 ? out : [{ pointer: '', detail: 'is invalid' }];
}

/** Validates a value against a body schema outside HTTP (the CLI), with the same rules. */
export function compileBodyValidator(schema: object): (value: unknown) => FieldError[] {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? [] : toFieldErrors(validate.errors ?? []));
}
