// The key that seals secrets at rest (operations.md, EVMON_ENCRYPTION_KEY): the configured one;
// without it, on the embedded database, a key file in the data folder, made on first start;
// in memory, a key of this process (its database dies with it). PostgreSQL without a key never
// gets here: the configuration refuses it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Config, decodeKey, KEY_BYTES } from '../config.js';
import { EncryptionKeyError, secretBox, type SecretBox } from './secret-box.js';

export const KEY_FILE = 'encryption.key';

/** The secret box of this process: the current key, and the previous one during a rotation. */
export function loadSecretBox(config: Config, logger: Logger): SecretBox {
  const current = config.encryptionKey ?? defaultKey(config, logger);
  return secretBox(current, config.previousEncryptionKey);
}

function defaultKey(config: Config, logger: Logger): Buffer {
  switch (config.database.kind) {
    case 'pglite':
      return keyFile(config.dataDir, logger);
    case 'pglite-memory':
      return randomBytes(KEY_BYTES);
    case 'postgres':
      throw new EncryptionKeyError('EVMON_ENCRYPTION_KEY is required with PostgreSQL');
  }
}

/**
 * Reads the data folder's key file, or makes it: written whole under another name with mode
 * 0600 and then linked into place, so a crash never leaves a partial key, and a key already
 * there is never replaced. Called with the data folder's lock held (one process at a time).
 */
function keyFile(dataDir: string, logger: Logger): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const draft = `${file}.${process.pid}.tmp`;
    const fd = fs.openSync(draft, 'w', 0o600);
    try {
      fs.fchmodSync(fd, 0o600); // whatever the umask
      fs.writeSync(fd, `${randomBytes(KEY_BYTES).toString('base64')}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(draft, file);
      logger.info(
        { path: file },
        'made the encryption key file of webhook signing secrets; back it up with the data folder, but keep it apart from copies of the database',
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  const stat = fs.statSync(file);
  if ((stat.mode & 0o077) !== 0) {
    logger.warn({ path: file, mode: (stat.mode & 0o777).toString(8) }, 'the encryption key file can be read by other users of this machine; chmod 600 it');
  }
  const key = decodeKey(fs.readFileSync(file, 'utf8'));
  if (!key)
    throw new EncryptionKeyError(
      `The encryption key file ${file} does not hold a key (32 bytes as base64 or 64 hex digits). Put back the file that sealed the secrets, or set EVMON_ENCRYPTION_KEY.`,
    );
  return key;
}
