// Key-shaped strings out of log lines (decisions.md, "HTTP hardening": logs never contain a raw
// API key or signing secret, even one a client put in a URL). A client may write a key in a URL
// in any spelling that a server or proxy would read back as the key: percent-encoded in part or
// whole, encoded twice, after any character (`Bearer%20evk_…`, `=evk_…`, `xevk_…`). So every
// string of a line is read as a decoder would read it, decoded again until nothing changes, and
// a key found at any step is cut out; a string that held one is logged in its decoded form,
// which no longer holds it in any spelling.

/** A character as itself or percent-escaped, once or more (`%65`, `%2565`, `%u0065`). */
const spelled = (c: string) => `(?:${c}|%(?:25)*(?:u00)?${c.charCodeAt(0).toString(16)})`;
const spelledWord = (word: string) => [...word].map(spelled).join('');

/**
 * An API key (`evk_…`) or signing secret (`whsec_…`), its prefix in any spelling: a decoding
 * that reads an escape before it together with its first letter (`%4` and `evk_…` read as
 * `Nvk_…`) would otherwise hide it from the later rounds. Its random part is matched with the
 * escapes in it.
 */
const KEY_SHAPED = new RegExp(`(?:(${spelledWord('evk')})|${spelledWord('whsec')})${spelled('_')}[A-Za-z0-9_+/=%-]{16,}`, 'gi');

/** What a line must contain for a key to be in it, raw or encoded (JSON's \u escapes included). */
const MAYBE_KEY = /evk|whsec|%|\\u/i;

/** A JSON string literal of a log line (pino writes one JSON object per line). */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/** Percent-escapes of ASCII characters, `%XX` and the old `%uXXXX`; others are not part of a key. */
const ASCII_ESCAPE = /%(?:([0-7][0-9a-f])|u00([0-7][0-9a-f]))/gi;

// Each decoding shortens the text, so decoding ends; but a URL of 16 KiB could be encoded
// thousands of times over, each round a pass over it. Past this many rounds the text is not
// read further and is not logged at all.
const MAX_DECODINGS = 32;
const TOO_DEEP = '[not logged: encoded too many times over to check for keys]';

/** One round of decoding; malformed escapes (`%zz`, a lone `%`) stay as they are. */
const decodeOnce = (text: string): string =>
  text.replace(ASCII_ESCAPE, (_escape, hex: string | undefined, wide: string | undefined) => String.fromCharCode(Number.parseInt(hex ?? wide!, 16)));

const cutKeys = (text: string): string => text.replace(KEY_SHAPED, (_match, apiKey: string | undefined) => `${apiKey ? 'evk' : 'whsec'}_[redacted]`);

/**
 * The text with every key cut out, as it reads after decoding; the text unchanged when no
 * decoding of it holds a key. Keys are cut before each further decoding, so a key whose first
 * letters an escape before it would absorb (`%4evk_…` reads `Nvk_…`) is cut while it still reads
 * as one.
 */
function redactInText(text: string, cut: (text: string) => string): string {
  let current = text;
  let found = false;
  for (let round = 0; ; round++) {
    const cutText = cut(current);
    if (cutText !== current) found = true;
    const next = decodeOnce(cutText);
    if (next === cutText) return found ? cutText : text;
    if (round === MAX_DECODINGS) return TOO_DEEP;
    current = next;
  }
}

export const redactKeysInText = (text: string): string => redactInText(text, cutKeys);

/**
 * A log line's redaction (pino's streamWrite hook): every key-shaped string cut out, and every
 * secret of `secrets` (the operator token, which has no shape of its own), in any spelling a
 * decoder reads back to it.
 */
export function lineRedactor(secrets: readonly string[]): (line: string) => string {
  const named = secrets.filter((secret) => secret.length > 0);
  const cut = named.length === 0 ? cutKeys : (text: string) => named.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), cutKeys(text));
  const maybe = (text: string) => MAYBE_KEY.test(text) || named.some((secret) => text.includes(secret));
  return (line) => {
    if (!maybe(line)) return line;
    return line.replace(JSON_STRING, (literal) => {
      if (!maybe(literal)) return literal;
      const value = JSON.parse(literal) as string;
      const redacted = redactInText(value, cut);
      return redacted === value ? literal : JSON.stringify(redacted);
    });
  };
}

/** A log line with every key-shaped string in it cut out. */
export const redactKeyShaped = lineRedactor([]);
