// fast-check arbitraries for fuzzing an HTTP API: hostile strings, numbers and JSON values,
// path parameters, query strings, headers and credentials (bodies are in fuzz-bodies.ts). Being
// arbitraries, they replay from a property's seed and shrink a failure to a small example.
import fc from 'fast-check';
import type { Operation } from './openapi-operations.js';

/** Raw JSON text, for numbers and tokens JSON.stringify cannot write (1e400, -0, 2^53 + 1). */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that Raw values go in as their text. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([name, item]) => `${JSON.stringify(name)}:${toJson(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const visibleAscii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
/** What undici sends as a header value: tab, visible ASCII and Latin-1, no CR, LF or NUL. */
const headerText = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constantFrom(0x09, 0x80, 0xa0, 0xe9, 0xff)).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const hostileStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\ufeff',
  '\ufffe\uffff',
  '\u202e',
  'é',
  '𝕏',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '\u0024{jndi:ldap://x}',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-0',
  '1e2',
  '0x10',
  ' 5',
  'null',
  'true',
  '00000000-0000-0000-0000-000000000000',
  '00000000-0000-4000-8000-00000000000G',
  '{00000000-0000-4000-8000-000000000000}',
  '2026-02-30T25:61:00Z',
  '0000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-11-20T12:00:00.000+99:00',
  '2026-11-20',
  'https://127.0.0.1/hook',
  'http://example.com/hook',
  'https://[::1]/hook',
  'INDIVIDUAL',
  'standard',
  'NAMED_ENTITY',
  'SENSORS_READ',
);

const hostileNumbers = fc.oneof(
  fc.constantFrom(-1, 0, 1, 1.5, -1.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER),
  fc.constantFrom('1e400', '-1e400', '-0', '9007199254740993', '1'.padEnd(400, '0'), '1e-400', '0.1e1', '1E2').map((text) => new Raw(text)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A value no field should take, and some that fields take in odd forms. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileStrings },
  { weight: 3, arbitrary: hostileNumbers },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], [[]], [{}], { '': '' }) },
  { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}').map((text) => JSON.parse(text)) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 70_000 }).map((length) => 'x'.repeat(length)) },
);

/** Member names no schema has: prototype keys, arbitrary text, long names. */
export const memberNames = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'surprise', '', ' ', '\u0000', 'a/b', '~1', 'name\u0000'),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: 100, max: 20_000 }).map((length) => 'k'.repeat(length)),
);

/**
 * The operation's path with `realId(name)` for each parameter; `hostile` sometimes puts something
 * else there: another id, odd spellings of the real one, bad escapes, long text.
 */
export function pathArbitrary(operation: Operation, realId: (name: string) => string, hostile: boolean): fc.Arbitrary<string> {
  if (operation.pathParams.length === 0) return fc.constant(operation.path);
  const segment = (name: string): fc.Arbitrary<string> => {
    const real = realId(name);
    if (!hostile) return fc.constant(real);
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(real) },
      { weight: 1, arbitrary: fc.uuid() },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.string({ maxLength: 40 }).map(encodeURIComponent),
          fc.constantFrom(
            real.toUpperCase(),
            `${real}%20`,
            `%20${real}`,
            `${real}%00`,
            '0',
            '-1',
            '1e2',
            'null',
            '%00',
            '%2e%2e',
            '%E0%A4%A',
            '%ff',
            '%ED%A0%80',
            '00000000-0000-0000-0000-000000000000',
          ),
          fc.integer({ min: 199, max: 15_000 }).map((length) => 'a'.repeat(length)),
        ),
      },
    );
  };
  return fc.tuple(...operation.pathParams.map(segment)).map((values) => {
    let path = operation.path;
    operation.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, values[i]!);
    });
    return path;
  });
}

const queryValues = fc.oneof(
  fc.constantFrom(
    '1e2',
    '0x10',
    '-0',
    ' 5',
    '5 ',
    '+5',
    '5.0',
    '1_000',
    '0',
    '-1',
    '101',
    '1e400',
    '9'.repeat(30),
    '9'.repeat(400),
    String(2 ** 53 + 1),
    'NaN',
    'Infinity',
    'true',
    'null',
    '',
    '[]',
    '{}',
    '00000000-0000-4000-8000-000000000000',
    '\u0000',
    '\ud800',
    'é',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: 100, max: 20_000 }).map((length) => '7'.repeat(length)),
);

/** A query string: names of the operation with odd values, arbitrary ones, badly encoded ones. */
export function queryArbitrary(operation: Operation): fc.Arbitrary<string> {
  const names = [...operation.queryParams, 'limit', 'starting_after', 'query', 'cursor', '__proto__', 'limit[]', ''];
  // A lone surrogate has no UTF-8 form: it goes as the bytes of one (ED A0 80), which no decoder takes.
  const encoded = (value: string) =>
    [...value]
      .map((char) => {
        try {
          return encodeURIComponent(char);
        } catch {
          return '%ED%A0%80';
        }
      })
      .join('');
  const pairs = fc
    .array(
      fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, memberNames), queryValues, fc.constantFrom('encoded', 'raw-escape', 'bare')),
      {
        minLength: 1,
        maxLength: 5,
      },
    )
    .map((list) =>
      list
        .map(([name, value, form]) => {
          if (form === 'bare') return encoded(name);
          if (form === 'raw-escape') return `${encoded(name)}=${value.length % 2 === 0 ? '%ZZ' : '%E0%A4%A'}${encoded(value)}`;
          return `${encoded(name)}=${encoded(value)}`;
        })
        .join('&'),
    );
  return fc.oneof({ weight: 3, arbitrary: pairs }, { weight: 1, arbitrary: fc.webQueryParameters() });
}

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="UTF-8"; foo=bar',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json ;charset=utf-8',
  'application/merge-patch+json',
  'application/problem+json',
  'application/x-ndjson',
  'application/jsonx',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  'json',
  '',
  ';',
  'application/',
  '/json',
);

const idempotencyKeys = fc.oneof(
  fc.constantFrom('', ' ', 'a', 'fuzz-key', 'a b', 'schlüssel', '%00', 'key\twith\ttabs', '-', '_'),
  visibleAscii,
  fc.integer({ min: 200, max: 20_000 }).map((length) => 'k'.repeat(length)),
  headerText,
);

/** Extra headers: odd content types and charsets, idempotency keys, long values. */
export const extraHeaders = fc
  .record(
    {
      'content-type': fc.oneof(
        contentTypes,
        headerText,
        fc.integer({ min: 100, max: 20_000 }).map((length) => `application/json; x=${'y'.repeat(length)}`),
      ),
      'idempotency-key': idempotencyKeys,
      accept: fc.constantFrom('application/xml', 'text/html', '*/*', 'application/problem+json', '', 'application/json;q=0'),
      'accept-charset': fc.constantFrom('utf-16', 'iso-8859-1', '*', 'x-unknown'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'deflate, gzip;q=0', 'x-unknown', 'identity;q=0'),
      'content-encoding': fc.constantFrom('gzip', 'identity', 'br', 'x-unknown', ''),
      'x-request-id': fc.oneof(headerText, fc.constant('\t')),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
      'user-agent': headerText,
      'x-fuzz-padding': fc.integer({ min: 1, max: 20_000 }).map((length) => 'p'.repeat(length)),
    },
    { requiredKeys: [] },
  )
  .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>);

/**
 * Authorization headers that are no valid credentials: none, malformed ones, key-shaped ones,
 * and `wrong`, the caller's spellings of real tokens that must not pass (revoked, too narrow,
 * of the other API).
 */
export function badCredentials(wrong: readonly string[]): fc.Arbitrary<Record<string, string>> {
  const keyShaped = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((tail) => `Bearer evk_${tail}`);
  return fc
    .oneof(
      fc.constantFrom(null, '', 'Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', ...wrong, `Bearer ${'A'.repeat(10_000)}`),
      keyShaped,
      headerText.map((text) => `Bearer ${text}`),
      headerText,
    )
    .map((authorization): Record<string, string> => (authorization === null ? {} : { authorization }));
}
