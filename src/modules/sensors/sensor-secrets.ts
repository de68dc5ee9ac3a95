// Webhook signing secrets at rest (operations.md, EVMON_ENCRYPTION_KEY): the sensors table
// holds them sealed by the secret box (platform/secret-box.ts) and bound to their sensor's id.
// A secret exists in clear only in memory: in the one answer that creates or rotates it, and
// while a delivery is signed with it.
//
// - Start-up (`prepare`) refuses a database whose secrets are sealed under a key this process
//   lacks, rather than sign with garbage, then seals the secrets an earlier version kept in
//   clear. That runs in one transaction under an advisory lock: a process killed midway
//   leaves them as they were (in clear, readable by the next start), and a second process
//   starting meanwhile waits, then finds nothing left to seal.
// - Key rotation (`reencrypt`, `evmon secrets re-encrypt`): every secret not sealed under the
//   current key is opened (under the previous key) and sealed again, a small batch per
//   transaction, so deliveries and sensor changes wait at most for one batch.
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { EncryptionKeyError, sealedKeyId, type SecretBox, UnreadableSecretError } from '../../platform/secret-box.js';
import { sensorsStore as store, type StoredSecrets } from './sensors.store.js';

const SEAL_LOCK = 7_411_011;
const SEAL_BATCH = 500;
export const RESEAL_BATCH = 100;

const context = (sensorId: string) => `sensor:${sensorId}`;

export interface SensorSecretsDeps {
  db: Database;
  box: SecretBox;
  logger: Logger;
}

export function sensorSecrets({ db, box, logger }: SensorSecretsDeps) {
  /** A row's secrets sealed under the current key: opened first when sealed, taken as they are when still in clear. */
  function resealed(row: StoredSecrets): StoredSecrets {
    const again = (stored: string) => box.seal(sealedKeyId(stored) === null ? stored : box.open(stored, context(row.id)), context(row.id));
    return {
      id: row.id,
      signing_secret: again(row.signing_secret),
      previous_signing_secret: row.previous_signing_secret === null ? null : again(row.previous_signing_secret),
    };
  }

  return {
    /** A new secret of the sensor, sealed for storing. */
    seal: (sensorId: string, secret: string): string => box.seal(secret, context(sensorId)),

    /** The secret a stored value holds; throws UnreadableSecretError when no key of this process opens it. */
    open: (sensorId: string, stored: string): string => box.open(stored, context(sensorId)),

    /** At start-up, before anything reads a secret: checks the keys, and seals what is still in clear. */
    async prepare(): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [SEAL_LOCK]);
        const sealedUnder = (await store.secretKeyIds(tx)).filter((row) => row.key_id !== '');
        const unknown = sealedUnder.filter((row) => !box.keyIds.includes(row.key_id));
        if (unknown.length > 0) {
          throw new EncryptionKeyError(
            `${unknown.reduce((n, row) => n + row.secrets, 0)} webhook signing secrets are sealed under a key this process does not have ` +
              `(key id ${unknown.map((row) => row.key_id).join(', ')}; its own: ${box.keyIds.join(', ')}). ` +
              'Start it with the key that sealed them: EVMON_ENCRYPTION_KEY, or during a rotation EVMON_ENCRYPTION_KEY_PREVIOUS ' +
              "(on the embedded database without EVMON_ENCRYPTION_KEY, the data folder's encryption.key file).",
          );
        }
        let sealed = 0;
        for (let after: string | null = null; ; ) {
          const rows = await store.secretsToReseal(tx, { inClear: true }, after, SEAL_BATCH);
          if (rows.length === 0) break;
          await store.setSecrets(tx, rows.map(resealed));
          sealed += rows.length;
          after = rows.at(-1)!.id;
        }
        if (sealed > 0) logger.info({ sensors: sealed, key_id: box.keyId }, 'sealed the webhook signing secrets an earlier version kept in clear');
        const previous = sealedUnder.filter((row) => row.key_id !== box.keyId);
        if (previous.length > 0) {
          const secrets = previous.reduce((n, row) => n + row.secrets, 0);
          logger.warn(
            { secrets, key_ids: previous.map((row) => row.key_id) },
            'webhook signing secrets sealed under the previous key: run evmon secrets re-encrypt',
          );
        } else if (box.keyIds.length > 1) {
          logger.info('no webhook signing secret is sealed under EVMON_ENCRYPTION_KEY_PREVIOUS any more: it can be removed');
        }
      });
    },

    /** Seals every secret not under the current key anew, in batches; answers how many sensors it changed and how many are left. */
    async reencrypt(batchSize = RESEAL_BATCH): Promise<{ key_id: string; resealed: number; remaining: number }> {
      let resealedCount = 0;
      for (let after: string | null = null; ; ) {
        const rows = await db.transaction(async (tx) => {
          const batch = await store.secretsToReseal(tx, { notUnder: box.keyId }, after, batchSize);
          // A secret no key opens (damaged, or sealed for another sensor) is left as it is and
          // counted in `remaining`: one such row must not stop the rest from being resealed.
          const readable = batch.flatMap((row) => {
            try {
              return [resealed(row)];
            } catch (error) {
              if (!(error instanceof UnreadableSecretError)) throw error;
              logger.error({ sensor_id: row.id }, "a webhook signing secret no key opens was left as it is; rotate that sensor's secret");
              return [];
            }
          });
          await store.setSecrets(tx, readable);
          return batch;
        });
        if (rows.length === 0) break;
        resealedCount += rows.length;
        after = rows.at(-1)!.id;
      }
      // Only another process still sealing under an older key leaves any.
      const remaining = await store.sensorsNotUnder(db, box.keyId);
      return { key_id: box.keyId, resealed: resealedCount, remaining };
    },
  };
}

export type SensorSecrets = ReturnType<typeof sensorSecrets>;
