// Building blocks for operation schemas. One schema per operation feeds validation, the
// TypeScript types (TypeBox), the OpenAPI document and, later, MCP tool inputs.
import { MAX_FIELD_ERRORS, MAX_PROBLEM_TEXT } from '../problems.js';
import { Type, type TSchema } from '@sinclair/typebox';

// An explicit pattern rather than Ajv's `uuid` format, which also takes a `urn:uuid:` prefix
// that PostgreSQL refuses.
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const Uuid = Type.String({ pattern: UUID_PATTERN, description: 'A UUID.' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

/**
 * Text as PostgreSQL can store it: no NUL character and no unpaired UTF-16 surrogate (which
 * has no UTF-8 form; in a jsonb value it is refused outright). Ajv matches patterns in
 * Unicode mode, so a paired surrogate (an emoji) is one code point and passes.
 */
export const TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';
export const Text = (options: { minLength?: number; maxLength?: number; description?: string } = {}) => Type.String({ pattern: TEXT_PATTERN, ...options });
/** A string from a closed set: one `enum` keyword, so errors list the allowed values. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A JSON object body that refuses unknown members. */
export const StrictObject: typeof Type.Object = ((properties: never, options: object = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options })) as never;

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  });

export const ListQuery = StrictObject({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100. Larger is refused, not clamped.' }),
  starting_after: Type.Optional(Type.String({ pattern: UUID_PATTERN, description: 'The id of the last item of the previous page.' })),
});

export const IdParams = StrictObject({ id: Uuid });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ pointer: Type.String(), detail: Type.String() }), {
        maxItems: MAX_FIELD_ERRORS,
        description: `The fields that failed, at most ${MAX_FIELD_ERRORS}; a pointer or detail past ${MAX_PROBLEM_TEXT} characters is cut and ends in "…".`,
      }),
    ),
    errors_omitted: Type.Optional(Type.Integer({ minimum: 1, description: 'How many more field errors were found than `errors` lists.' })),
    code: Type.Optional(Type.String()),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);
