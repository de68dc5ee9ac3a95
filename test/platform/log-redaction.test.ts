// decisions.md, "HTTP hardening": logs never contain a raw API key or signing secret, even one
// a client put in a URL, in whatever spelling it wrote it. Real HTTPS requests to a running
// server, its pino output captured; every string of every line is decoded here (by a decoder
// of this file's own: percent-escapes, HTML character references, `\u` escapes, `+` joins)
// before it is searched.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { lineRedactor, redactKeyShaped } from '../../src/platform/log-redaction.js';
import { STANDARD_PLAN_FIELDS } from '../helpers/fixtures.js';
import { bearer, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const newKey = () => `evk_${randomBytes(32).toString('base64url')}`;
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Every character as `%XX`. */
const encodeWhole = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** One round of every decoding a reader might apply: `%XX`, `&#NNN;`, `&#xHH;`, `\uXXXX`. */
const decodeAll = (text: string) =>
  text
    .replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_, dec: string) => String.fromCharCode(Number.parseInt(dec, 10)))
    .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Every reading of a text: itself, then decoded again and again until it stops changing, each also without `+` and spaces, and lower-cased. */
function readings(text: string): string[] {
  const all = [text];
  for (;;) {
    const next = decodeAll(all.at(-1)!);
    if (next === all.at(-1)) break;
    all.push(next);
  }
  return all.flatMap((reading) => [reading, reading.replace(/[+ ]/g, '')]).flatMap((reading) => [reading, reading.toLowerCase()]);
}

/** Every string of a JSON value, object keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...stringsOf(v)]);
  return [];
}

/**
 * Fails if a line holds any 12 characters in a row of the secret's random part, in any reading
 * of the line or of one of its strings: a part of a key is as good as leaked once a few guesses
 * finish it.
 */
function assertNotLogged(lines: readonly string[], secret: string, context: string) {
  const random = secret.slice(secret.indexOf('_') + 1);
  const pieces = Array.from({ length: random.length - 11 }, (_, i) => random.slice(i, i + 12)).flatMap((piece) => [piece, piece.toLowerCase()]);
  for (const line of lines) {
    const texts = [line, ...stringsOf(JSON.parse(line))].flatMap(readings);
    for (const text of texts) {
      const piece = pieces.find((p) => text.includes(p));
      assert.equal(piece, undefined, `${context}: the log line holds "${piece}" of the secret: ${line}`);
    }
  }
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

describe('keys and secrets in URLs, in the log', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  /**
   * Sends a request; answers the lines logged since it was sent, once the request's own line
   * (found by its request id, with its path) is in, or `waitMs` has passed: a request refused
   * before any route (a path the router cannot decode, a parameter too long) writes no line.
   */
  async function sent(method: string, path: string, options: { headers?: Record<string, string>; rawBody?: string }, waitMs: number) {
    const from = server.logs.length;
    const response = await server.http.request(method, path, options);
    const requestId = response.headers['x-request-id'];
    assert.ok(requestId, `${method} ${path}: ${response.status}`);
    const logged = () => server.logs.slice(from).some((line) => line.includes(requestId) && JSON.parse(line).path !== undefined);
    // The request's own line is written once the answer has gone out.
    const deadline = Date.now() + waitMs;
    while (!logged() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return { lines: server.logs.slice(from), logged: logged(), status: response.status };
  }

  const logsOfRequest = async (method: string, path: string, options: { headers?: Record<string, string>; rawBody?: string } = {}) =>
    (await sent(method, path, options, 1000)).lines;

  /** GETs a path; its lines, which hold the request's own if and only if its path can be decoded. */
  async function logsOf(path: string): Promise<string[]> {
    const routable = decodable(path.split('?')[0]!);
    const { lines, logged, status } = await sent('GET', path, {}, routable ? 5000 : 50);
    assert.equal(logged, routable, `${path} (${status}): logged with its path if and only if its path can be decoded`);
    return lines;
  }

  it('when a key or secret is written in a URL behind an escape or a letter, encoded whole, or its underscore encoded twice, then no log line holds it', async () => {
    const key = newKey();
    const body = key.slice(4);
    const secret = newSecret();
    const forms: [string, string][] = [
      [key, `/v1/sensors?auth=Bearer%20${key}`],
      [key, `/v1/sensors?auth=Bearer+${key}`],
      [key, `/v1/sensors?k=%3D${key}`],
      [key, `/v1/sensors?k=x${key}`],
      [key, `/v1/sensors?k=${encodeWhole(key)}`],
      [key, `/v1/sensors?k=${encodeWhole(key).toLowerCase()}`],
      [key, `/v1/sensors?k=evk%255F${body}`],
      [key, `/v1/sensors?k=evk%25255F${body}`],
      [key, `/v1/sensors?k=${encodeWhole(encodeWhole(key))}`],
      [key, `/v1/sensors?k=%4${key}`],
      [key, `/v1/sensors?k=%zz${key}%`],
      [key, `/v1/x${key}/sensors`],
      [key, `/console/${encodeWhole(key)}`],
      [key, `/nowhere/${encodeURIComponent(`"${key}"`)}`],
      [secret, `/v1/sensors?s=${encodeWhole(secret)}`],
      [secret, `/v1/sensors?s=${encodeURIComponent(secret)}`],
      [secret, `/v1/sensors?s=Bearer%20${encodeURIComponent(secret)}`],
      [secret, `/v1/sensors?s=xwhsec%5F${encodeURIComponent(secret.slice(6))}`],
    ];
    for (const [written, path] of forms) {
      const lines = await logsOf(path);
      assertNotLogged(lines, written, path);
    }
    // The request is still logged: its route and path, the names of the parameters the route
    // declares, and a count of the others; never the URL as written.
    const [line] = (await logsOf(`/v1/sensors?auth=Bearer%20${key}&limit=2&page=2`)).filter((l) => JSON.parse(l).msg === 'request');
    const logged = JSON.parse(line!);
    assert.deepEqual(
      { method: logged.method, route: logged.route, path: logged.path, query: logged.query, query_others: logged.query_others, url: logged.url },
      { method: 'GET', route: '/v1/sensors', path: '/v1/sensors', query: ['limit'], query_others: 2, url: undefined },
    );
    // Ids in a path are kept; another value of a parameter is not.
    const id = '3f1c2b9a-0d4e-4f5a-8b6c-7d8e9f0a1b2c';
    const [byId] = (await logsOf(`/v1/sensors/${id}/deliveries?limit=1`)).filter((l) => JSON.parse(l).msg === 'request');
    assert.equal(JSON.parse(byId!).path, `/v1/sensors/${id}/deliveries`);
    const [byName] = (await logsOf(`/v1/sensors/${key}`)).filter((l) => JSON.parse(l).msg === 'request');
    assert.equal(JSON.parse(byName!).path, '/v1/sensors/:id');
    // An unmatched path keeps the service's own words and ids only.
    const [unmatched] = (await logsOf(`/v1/${id}/nothing-here/${key}`)).filter((l) => JSON.parse(l).msg === 'request');
    assert.deepEqual([JSON.parse(unmatched!).route, JSON.parse(unmatched!).path], [null, `/v1/${id}/*/*`]);
  });

  /**
   * Every spelling of a secret a reader might decode back to it: as written, behind an HTML
   * character reference or a `\u` escape for its first letter or for every character, its
   * prefix in mixed case, percent-encoded once to three times, split by `+`, and its random
   * part alone.
   */
  function spellings(secret: string): string[] {
    const underscore = secret.indexOf('_');
    const random = secret.slice(underscore + 1);
    const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');
    const percent = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    return [
      secret,
      `&#${secret.charCodeAt(0)};${secret.slice(1)}`,
      `&#x${secret.charCodeAt(0).toString(16)};${secret.slice(1)}`,
      `\\u${hex(secret[0]!)}${secret.slice(1)}`,
      [...secret].map((c) => `\\u${hex(c)}`).join(''),
      [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(''),
      `${secret.slice(0, underscore).toUpperCase()}${secret.slice(underscore)}`,
      `${secret.slice(0, 1).toUpperCase()}${secret.slice(1, underscore)}${secret.slice(underscore)}`,
      percent(secret),
      percent(percent(secret)),
      percent(percent(percent(secret))),
      secret.replace(/(.{5})/g, '$1+'),
      random,
    ];
  }

  it('when a key, a signing secret or the operator token is spelled in any way in a path, a query, a body or a header, then no log line holds it', async () => {
    // A budget that never runs out, so every request reaches the body's validation.
    const plan = await server.http.request('PUT', '/ops/v1/plans/unmetered', {
      headers: bearer(OPS_TOKEN),
      body: { ...STANDARD_PLAN_FIELDS, rest_requests_per_minute: 1_000_000 },
    });
    assert.equal(plan.status, 200, plan.text);
    const account = await server.ops.createAccount({ plan: 'unmetered' });
    const realKey = await server.ops.createKey(account.id, ['SENSORS_WRITE', 'SENSORS_READ']);
    const json = { authorization: `Bearer ${realKey}`, 'content-type': 'application/json' };
    for (const secret of [newKey(), newSecret(), OPS_TOKEN]) {
      for (const spelled of spellings(secret)) {
        const inUrl = encodeURIComponent(spelled);
        const sent: [string, string, { headers?: Record<string, string>; rawBody?: string }][] = [
          ['GET', `/v1/sensors/${inUrl}`, { headers: json }],
          ['GET', `/v1/${inUrl}/sensors`, {}],
          ['GET', `/${inUrl}`, {}],
          ['GET', `/v1/sensors?x=${inUrl}&limit=1`, { headers: json }],
          ['GET', `/v1/sensors?x=${spelled.replace(/[#&]/g, encodeURIComponent)}`, { headers: json }],
          ['GET', `/v1/sensors?${inUrl}=1`, { headers: json }],
          ['GET', `/ops/v1/metrics?token=${inUrl}`, {}],
          ['GET', `/ops/v1/plans/${inUrl}`, {}],
          ['POST', '/v1/sensors', { headers: json, rawBody: JSON.stringify({ name: spelled, [spelled]: spelled, filter: { x: spelled } }) }],
          [
            'POST',
            '/ops/v1/articles/bulk',
            { headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/x-ndjson' }, rawBody: `${JSON.stringify({ [spelled]: 1 })}\n` },
          ],
          ['GET', '/v1/sensors', { headers: { authorization: `Bearer ${spelled}` } }],
          ['GET', '/v1/sensors', { headers: { ...json, 'x-forwarded-for': spelled, 'idempotency-key': spelled, cookie: `k=${inUrl}` } }],
          ['POST', '/v1/sensors', { headers: { ...json, 'idempotency-key': spelled }, rawBody: '{}' }],
        ];
        for (const [method, path, options] of sent) {
          assertNotLogged(await logsOfRequest(method, path, options), secret, `${method} ${path} ${JSON.stringify(options.headers ?? {})}`);
        }
      }
    }
  });

  it('when random keys and secrets are spelled in random encodings after random prefixes in URLs, then no log line of the server holds one', async () => {
    const secretArb = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `evk_${Buffer.from(bytes).toString('base64url')}`),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`),
    );
    // How one character is written: as itself (when a URL may hold it), or escaped once to three times, in either case.
    const spelling = fc.constantFrom('raw', 'raw', 'raw', 'escaped', 'escaped-lower', 'twice', 'thrice');
    const spell = (c: string, how: string) => {
      const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
      if (how === 'raw' && /[A-Za-z0-9_\-.~+=/]/.test(c)) return c;
      if (how === 'escaped-lower') return `%${hex.toLowerCase()}`;
      if (how === 'twice') return `%25${hex.toUpperCase()}`;
      if (how === 'thrice') return `%2525${hex.toUpperCase()}`;
      return `%${hex.toUpperCase()}`;
    };
    const prefix = fc.oneof(
      fc.constantFrom('', 'x', 'Bearer%20', 'Bearer+', '%3D', '=', '%20', 'a_', '%2F', '%25', '%', '%4', '%zz', '0', '%C3%A9', '%E2%80%8B', 'evk', 'whsec_'),
      fc.stringMatching(/^[A-Za-z0-9_\-.~%]{0,12}$/),
    );
    const suffix = fc.constantFrom('', '&page=2', '%', '%2', 'x', '%00', '/more');
    const place = fc.constantFrom(
      (s: string) => `/v1/sensors?q=${s}`,
      (s: string) => `/v1/${s}/sensors`,
      (s: string) => `/console/${s}`,
      (s: string) => `/ops/v1/clock?token=${s}`,
      (s: string) => `/${s}`,
    );
    await fc.assert(
      fc.asyncProperty(secretArb, fc.array(spelling, { minLength: 60, maxLength: 60 }), prefix, suffix, place, async (secret, hows, before, afterwards, at) => {
        const spelled = [...secret].map((c, i) => spell(c, hows[i]!)).join('');
        const path = at(`${before}${spelled}${afterwards}`);
        assertNotLogged(await logsOf(path), secret, path);
      }),
      { numRuns: 150 },
    );
  });

  it('when any line is redacted, then it stays one JSON object and no reading of its strings holds a key', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.array(fc.constantFrom('raw', '%', '%25', '%2525'), { minLength: 47, maxLength: 47 }),
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        (bytes, hows, before, afterwards) => {
          const key = `evk_${Buffer.from(bytes).toString('base64url')}`;
          const spelled = [...key].map((c, i) => (hows[i] === 'raw' ? c : `${hows[i]}${c.charCodeAt(0).toString(16)}`)).join('');
          const line = `${JSON.stringify({ msg: 'request', url: `${before}${spelled}${afterwards}`, [`k${spelled}`]: 1 })}\n`;
          const redacted = redactKeyShaped(line);
          assert.ok(redacted.endsWith('}\n'));
          assertNotLogged([redacted], key, line);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('when a named secret without a shape of its own (the operator token) is in any string of a line, in any spelling, then it is cut', () => {
    const token = `ops-${randomBytes(12).toString('hex')}`;
    const redact = lineRedactor([token]);
    for (const spelled of [token, encodeWhole(token), encodeWhole(encodeWhole(token)), `x${token}y`]) {
      const line = redact(`${JSON.stringify({ msg: 'warn', err: { message: `Reply already sent for /ops/v1/metrics?token=${spelled}` } })}\n`);
      assertNotLogged([line], token, spelled);
      assert.match(JSON.parse(line).err.message, /token=.*\[redacted\]/);
    }
  });

  it('when a URL is encoded more times over than is read, then it is not logged rather than logged unchecked', () => {
    const key = newKey();
    // The underscore's last hex digit escaped forty times over: only the 41st decoding shows `evk_`.
    const url = `/v1/sensors?k=evk%5%${'25'.repeat(40)}46${key.slice(4)}`;
    const line = redactKeyShaped(`${JSON.stringify({ msg: 'request', url })}\n`);
    assertNotLogged([line], key, 'forty times over');
    assert.match(JSON.parse(line).url, /^\[not logged/);
    // Encoded twice, it is read and logged redacted.
    const twice = redactKeyShaped(`${JSON.stringify({ msg: 'request', url: `/v1/sensors?k=evk%5%2546${key.slice(4)}` })}\n`);
    assert.equal(JSON.parse(twice).url, '/v1/sensors?k=evk_[redacted]');
  });
});
