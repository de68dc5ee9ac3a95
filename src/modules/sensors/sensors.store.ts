// SQL for sensors and the reading side of their deliveries. Returns plain rows.
import { queryOne, type Queryable } from '../../platform/db/database.js';
import type { DeliveryType } from '../webhooks/outbox.js';
import type { SensorFilter } from './sensors.schemas.js';

export interface StoredAction {
  id: string;
  type: 'webhook';
  url: string;
  /** host:port, the per-host concurrency key of the outbox. */
  host: string;
}

export interface SensorRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  deliver_updates: boolean;
  filter: SensorFilter;
  actions: StoredAction[];
  /** Sealed (sensor-secrets.ts), never the secret itself. */
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  type: DeliveryType;
  /** Null for a test delivery that carries no event. */
  event_id: string | null;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
  /** An `event.updated` delivery's changed fields (the console shows them); null for other kinds. */
  changed_fields: string[] | null;
}

const COLUMNS = `id, account_id, name, description, enabled, filter, actions, signing_secret, previous_signing_secret,
                 previous_secret_expires_at, created_at, updated_at, deliver_updates`;

export interface StoredSecrets {
  id: string;
  signing_secret: string;
  previous_signing_secret: string | null;
}

/** The key id a stored secret names (secret-box.ts: `v1.<key id>.…`); '' for a secret kept in clear before migration 011. */
const keyIdSql = (column: string) => `split_part(${column}, '.', 2)`;

/** A delivery's status over its webhooks (targets): PENDING while any is, then FAILED if any failed, else SUCCEEDED. */
const DELIVERY_STATUS = `CASE WHEN bool_or(status = 'PENDING') THEN 'PENDING' WHEN bool_or(status = 'FAILED') THEN 'FAILED' ELSE 'SUCCEEDED' END`;

export const sensorsStore = {
  async insert(tx: Queryable, row: SensorRow): Promise<void> {
    await tx.query(`INSERT INTO sensors (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
      row.id,
      row.account_id,
      row.name,
      row.description,
      row.enabled,
      JSON.stringify(row.filter),
      JSON.stringify(row.actions),
      row.signing_secret,
      row.previous_signing_secret,
      row.previous_secret_expires_at,
      row.created_at,
      row.updated_at,
      row.deliver_updates,
    ]);
  },

  /** The account's sensor, or null (another account's sensor is as missing as a missing one). */
  async get(db: Queryable, accountId: string, id: string, options: { lock?: boolean } = {}): Promise<SensorRow | null> {
    return (
      (await queryOne<SensorRow>(db, `SELECT ${COLUMNS} FROM sensors WHERE id = $1 AND account_id = $2${options.lock ? ' FOR UPDATE' : ''}`, [
        id,
        accountId,
      ])) ?? null
    );
  },

  /** Newest first, after `startingAfter` (an id of the previous page). */
  list(db: Queryable, accountId: string, startingAfter: string | null, limit: number): Promise<SensorRow[]> {
    return db.query<SensorRow>(`SELECT ${COLUMNS} FROM sensors WHERE account_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`, [
      accountId,
      startingAfter,
      limit,
    ]);
  },

  async update(tx: Queryable, row: SensorRow): Promise<void> {
    await tx.query(
      `UPDATE sensors SET name = $2, description = $3, enabled = $4, filter = $5, actions = $6, signing_secret = $7,
              previous_signing_secret = $8, previous_secret_expires_at = $9, updated_at = $10, deliver_updates = $11
        WHERE id = $1`,
      [
        row.id,
        row.name,
        row.description,
        row.enabled,
        JSON.stringify(row.filter),
        JSON.stringify(row.actions),
        row.signing_secret,
        row.previous_signing_secret,
        row.previous_secret_expires_at,
        row.updated_at,
        row.deliver_updates,
      ],
    );
  },

  /** Deletes the sensor with its deliveries (pending ones are never attempted again). */
  async delete(tx: Queryable, id: string): Promise<void> {
    await tx.query('DELETE FROM sensors WHERE id = $1', [id]);
  },

  /**
   * A sensor's deliveries, newest first, each summed over its webhooks: PENDING while any is,
   * then FAILED if any failed, else SUCCEEDED; the latest attempt's code and error; for an update,
   * the fields its body says changed. `only`: that one delivery; `type`: deliveries of that type.
   */
  deliveries(
    db: Queryable,
    sensorId: string,
    { startingAfter, limit, only, type }: { startingAfter?: string; limit: number; only?: string; type?: DeliveryType },
  ): Promise<DeliveryRow[]> {
    // The rarer types are read from their own index (sensor_deliveries_rare_types): the planner
    // uses a partial index only for a predicate written out, not for a parameter.
    const ofType = !type ? '' : type === 'event.matched' ? 'AND d.type = $5' : `AND d.type = $5 AND d.type <> 'event.matched'`;
    return db.query<DeliveryRow>(
      `SELECT d.id, d.type, d.event_id, d.created_at, t.*,
              CASE WHEN d.type = 'event.updated' THEN ARRAY(SELECT jsonb_object_keys(d.body::jsonb -> 'data' -> 'changes')) END AS changed_fields
         FROM sensor_deliveries d
         CROSS JOIN LATERAL (
           SELECT ${DELIVERY_STATUS} AS status,
                  COALESCE(sum(attempts), 0)::int AS attempts,
                  max(last_attempt_at) AS last_attempt_at,
                  min(next_attempt_at) FILTER (WHERE status = 'PENDING') AS next_attempt_at,
                  (array_agg(last_status_code ORDER BY last_attempt_at DESC NULLS LAST))[1] AS last_status_code,
                  (array_agg(last_error ORDER BY last_attempt_at DESC NULLS LAST))[1] AS last_error
             FROM sensor_delivery_targets WHERE delivery_id = d.id
         ) t
        WHERE d.sensor_id = $1 AND ($2::uuid IS NULL OR d.id < $2) AND ($4::uuid IS NULL OR d.id = $4) ${ofType}
        ORDER BY d.id DESC LIMIT $3`,
      [sensorId, startingAfter ?? null, limit, only ?? null, ...(type ? [type] : [])],
    );
  },

  /** A sensor's deliveries created in [from, until) that succeeded and that failed, per UTC day (days without any left out). */
  outcomesByDay(db: Queryable, sensorId: string, from: Date, until: Date) {
    return db.query<{ day: string; succeeded: number; failed: number }>(
      `SELECT to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              count(*) FILTER (WHERE t.status = 'SUCCEEDED')::int AS succeeded,
              count(*) FILTER (WHERE t.status = 'FAILED')::int AS failed
         FROM sensor_deliveries d
         CROSS JOIN LATERAL (SELECT ${DELIVERY_STATUS} AS status FROM sensor_delivery_targets WHERE delivery_id = d.id) t
        WHERE d.sensor_id = $1 AND d.created_at >= $2 AND d.created_at < $3
        GROUP BY 1`,
      [sensorId, from, until],
    );
  },

  /** How many stored secrets (current and previous) each key id sealed; '' counts those still in clear. */
  secretKeyIds(db: Queryable): Promise<{ key_id: string; secrets: number }[]> {
    return db.query(
      `SELECT k.key_id, count(*)::int AS secrets
         FROM sensors CROSS JOIN LATERAL (VALUES (${keyIdSql('signing_secret')}), (${keyIdSql('previous_signing_secret')})) AS k(key_id)
        WHERE k.key_id IS NOT NULL
        GROUP BY k.key_id`,
    );
  },

  /**
   * Up to `limit` sensors after `after` (in id order) with a secret still in clear (`inClear`)
   * or not sealed under the key `notUnder`; locked as for an update of non-key columns, so the
   * KEY SHARE locks that deliveries take on their sensors do not wait for it (nor deadlock).
   */
  secretsToReseal(tx: Queryable, which: { inClear: true } | { notUnder: string }, after: string | null, limit: number): Promise<StoredSecrets[]> {
    const [op, keyId] = 'inClear' in which ? ['=', ''] : ['<>', which.notUnder];
    return tx.query<StoredSecrets>(
      `SELECT id, signing_secret, previous_signing_secret FROM sensors
        WHERE ($2::uuid IS NULL OR id > $2) AND (${keyIdSql('signing_secret')} ${op} $1 OR ${keyIdSql('previous_signing_secret')} ${op} $1)
        ORDER BY id LIMIT $3 FOR NO KEY UPDATE`,
      [keyId, after, limit],
    );
  },

  /** How many sensors have a secret not sealed under `keyId`. */
  async sensorsNotUnder(db: Queryable, keyId: string): Promise<number> {
    const row = await queryOne<{ n: number }>(
      db,
      `SELECT count(*)::int AS n FROM sensors WHERE ${keyIdSql('signing_secret')} <> $1 OR ${keyIdSql('previous_signing_secret')} <> $1`,
      [keyId],
    );
    return row?.n ?? 0;
  },

  /** Writes sensors' secrets (sealed anew), leaving everything else, updated_at included, as it was. */
  async setSecrets(tx: Queryable, rows: readonly StoredSecrets[]): Promise<void> {
    if (rows.length === 0) return;
    await tx.query(
      `UPDATE sensors s SET signing_secret = u.current, previous_signing_secret = u.previous
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, current, previous)
        WHERE s.id = u.id`,
      [rows.map((r) => r.id), rows.map((r) => r.signing_secret), rows.map((r) => r.previous_signing_secret)],
    );
  },

  /** Every enabled sensor's filter, for the in-memory matching index, and whether it delivers updates. */
  enabledFilters(db: Queryable): Promise<{ id: string; filter: SensorFilter; deliver_updates: boolean }[]> {
    return db.query('SELECT id, filter, deliver_updates FROM sensors WHERE enabled');
  },
};
