// The input schema a model reads in tools/list: the tool's validation schema (derived from the
// REST request schema) made compact. Arguments are still validated against the full schema,
// so nothing here loosens what a call accepts (a refusal is -32602 naming the field); it only
// shortens what every conversation with the tools carries:
// - a UUID is `"type": "string", "format": "uuid"` instead of a string with the 90-character
//   pattern (which also refuses the `urn:uuid:` form the format would take); the type stays
//   beside a format, since hosts that turn tool schemas into their own function formats want
//   a type on every string;
// - the text pattern that keeps NUL characters and lone surrogates out of the database goes,
//   and so do length bounds and count ceilings (`minLength`, `maxLength`, `maxItems`), and a
//   lower bound of 1 on a count or page size;
// - a union tagged by `kind` (a role filter) becomes one object whose `kind` is an enum, with
//   a sentence naming the members each kind takes (their names say their types: `min_value`,
//   `after_iso`, `canonical_ids`), instead of five near-identical branches;
// - a member that may be null is listed by its value alone (null means the same as leaving it
//   out), and a `type` beside `const` or `enum` goes (the values say it);
// - a description already given once in the tool's schema is not repeated.
import { TEXT_PATTERN, UUID_PATTERN, Uuid } from '../platform/http/schema-kit.js';

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A union tagged by one member as one object: the tag an enum, the members every branch
 * requires as properties, and each branch's own members in words (`unit?` is optional).
 */
function mergeTaggedUnion(schema: Schema): Schema {
  const tag = (schema.discriminator as { propertyName: string }).propertyName;
  const branches = schema.oneOf as Schema[];
  const shared = branches.map((b) => b.required as string[]).reduce((all, required) => all.filter((name) => required.includes(name)));
  const first = branches[0]!.properties as Record<string, Schema>;
  const kinds = branches.map((branch) => {
    const members = branch.properties as Record<string, Schema>;
    const required = new Set(branch.required as string[]);
    const own = Object.entries(members).filter(([name]) => !shared.includes(name));
    return `${String(members[tag]!.const)} ${own.map(([name]) => `${name}${required.has(name) ? '' : '?'}`).join(' ')}`;
  });
  return {
    type: 'object',
    properties: Object.fromEntries(
      shared.map((name) => [name, name === tag ? { enum: branches.map((b) => (b.properties as Record<string, Schema>)[tag]!.const) } : first[name]]),
    ),
    required: shared,
    description: `${schema.description ? `${String(schema.description)} ` : ''}By ${tag} (? optional): ${kinds.join('; ')}.`,
  };
}

const DROPPED = new Set(['$id', 'discriminator', 'minLength', 'maxLength', 'maxItems']);

/** `anyOf: [X, {type: "null"}]` as X: in every tool's input, null means what leaving the member out means. */
function withoutNull(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2 || !isObject(branches[1]) || branches[1].type !== 'null') return schema;
  const { anyOf: _anyOf, ...rest } = schema;
  return { ...(branches[0] as Schema), ...rest };
}

function compact(value: unknown, said: Set<string>, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => compact(item, said));
  if (!isObject(value)) return value;
  // A map of member names to schemas: the names are not keywords.
  if (key === 'properties') return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, compact(member, said)]));
  let schema = value;
  if (isObject(schema.discriminator) && Array.isArray(schema.oneOf)) schema = mergeTaggedUnion(schema);
  schema = withoutNull(schema);
  const out: Schema = {};
  for (const [name, member] of Object.entries(schema)) {
    if (DROPPED.has(name)) continue;
    if ((name === 'minimum' || name === 'minItems') && member === 1) continue; // a count or a page size: at least one goes without saying
    if (name === 'pattern' && (member === TEXT_PATTERN || member === UUID_PATTERN)) continue;
    if (name === 'type' && (schema.const !== undefined || Array.isArray(schema.enum))) continue; // the values say their type
    if (name === 'description') {
      if (member === Uuid.description || said.has(member as string)) continue;
      said.add(member as string);
    }
    out[name] = compact(member, said, name);
  }
  if (schema.pattern === UUID_PATTERN) out.format = 'uuid';
  return out;
}

const listed = new WeakMap<object, Record<string, unknown>>();

/** The schema as listed to clients: self-contained and compact (see above); made once per schema. */
export function listedSchema(schema: object): Record<string, unknown> {
  const known = listed.get(schema);
  if (known) return known;
  const made = compact(JSON.parse(JSON.stringify(schema)), new Set()) as Record<string, unknown>;
  listed.set(schema, made);
  return made;
}
