// Secrets at rest (operations.md, EVMON_ENCRYPTION_KEY): AES-256-GCM under a key the operator
// holds outside the database, so a copy of the database alone does not give the secrets away.
//
// A sealed value describes itself: `v1.<key id>.<nonce>.<ciphertext>.<tag>`, the parts in
// base64url. The key id names the key that sealed it without revealing the key, so a process
// given a new key and the previous one opens values of both, and re-encryption finds the values
// still sealed under the previous one. The context (say, the sensor's id) is authenticated
// data: a sealed value copied onto another row does not open there.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { KEY_BYTES } from '../config.js';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A key that cannot be had or that does not fit what is stored: start-up stops with this message. */
export class EncryptionKeyError extends Error {}

/** A stored value that does not open with any key this process has (wrong key, altered, or not sealed). */
export class UnreadableSecretError extends Error {}

/** The id a key's sealed values carry: 8 characters of a hash of the key, which tells keys apart and reveals nothing of them. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('evmon secret-box key id\0').update(key).digest('base64url').slice(0, 8);
}

/** The key id a stored value names, or null when it is not a sealed value (a secret written in clear before sealing began). */
export function sealedKeyId(stored: string): string | null {
  const parts = stored.split('.');
  return parts.length === 5 && parts[0] === VERSION ? parts[1]! : null;
}

export interface SecretBox {
  /** The id of the key new values are sealed under. */
  readonly keyId: string;
  /** Every key id this process opens values of, the current one first. */
  readonly keyIds: readonly string[];
  seal(plaintext: string, context: string): string;
  /** The plaintext; throws UnreadableSecretError when no key of this process opens it. */
  open(stored: string, context: string): string;
}

/** Seals under `current`; opens what `current` or `previous` sealed. */
export function secretBox(current: Buffer, previous: Buffer | null = null): SecretBox {
  for (const key of [current, previous]) if (key && key.length !== KEY_BYTES) throw new EncryptionKeyError(`an encryption key must be ${KEY_BYTES} bytes`);
  const keys = new Map<string, Buffer>([[keyIdOf(current), current]]);
  if (previous) keys.set(keyIdOf(previous), previous);
  const keyId = keyIdOf(current);

  return {
    keyId,
    keyIds: [...keys.keys()],
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, keyId, nonce.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(stored, context) {
      const id = sealedKeyId(stored);
      if (id === null) throw new UnreadableSecretError('the stored value is not a sealed secret');
      const key = keys.get(id);
      if (!key)
        throw new UnreadableSecretError(`the secret is sealed under key ${id}, which this process does not have (it has ${[...keys.keys()].join(', ')})`);
      const [, , nonce, ciphertext, tag] = stored.split('.') as [string, string, string, string, string];
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // GCM's tag check: the value was altered, or belongs to another context.
        throw new UnreadableSecretError(`the secret sealed under key ${id} does not open: it was altered or belongs elsewhere`);
      }
    },
  };
}
