// Opaque, signed position tokens (search cursors; later beat-entry cursors and poll tokens).
// A token is base64url(JSON payload) "." base64url(HMAC-SHA256): clients cannot read meaning
// into it or forge one, and every process sharing the database's secret verifies alike.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorSigner {
  /** Signs a payload as a token of the given kind. */
  sign(kind: string, payload: Record<string, unknown>): string;
  /** The payload of a token of this kind, or null when it is malformed, forged or of another kind. */
  verify(kind: string, token: string): Record<string, unknown> | null;
}

export function cursorSigner(secret: string): CursorSigner {
  const mac = (kind: string, body: string) => createHmac('sha256', secret).update(`${kind}.${body}`).digest();

  return {
    sign(kind, payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${mac(kind, body).toString('base64url')}`;
    },
    verify(kind, token) {
      const match = /^([A-Za-z0-9_-]{1,4096})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return null;
      const [, body, signature] = match;
      const expected = mac(kind, body!);
      const given = Buffer.from(signature!, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        const payload: unknown = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
        return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    },
  };
}
