// Raw key format (decisions.md): `evk_` + 43 base64url characters (32 random bytes). Only the
// SHA-256 hash is stored, with the first 8 characters after `evk_` as a display prefix.
import { createHash, randomBytes } from 'node:crypto';

const KEY_SHAPE = /^evk_[A-Za-z0-9_-]{43}$/;
const BEARER = /^Bearer +(\S+) *$/i;

export interface NewRawKey {
  raw: string;
  prefix: string;
  hash: Buffer;
}

export function generateRawKey(): NewRawKey {
  const raw = `evk_${randomBytes(32).toString('base64url')}`;
  return { raw, prefix: raw.slice(4, 12), hash: hashKey(raw) };
}

export function hashKey(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}

/** The raw key from an Authorization header, or null when the header is absent or malformed. */
export function parseBearerKey(header: string | undefined): string | null {
  if (header === undefined || header.length > 200) return null;
  const match = BEARER.exec(header);
  const candidate = match?.[1];
  // Keys are looked up by the hash of the exact string, so a non-canonical spelling of the
  // same bytes simply matches nothing.
  if (candidate === undefined || !KEY_SHAPE.test(candidate)) return null;
  return candidate;
}
