// SQL of the delivery outbox (migration 004). A delivery is one message; each of its sensor's
// webhook actions is a target, the unit that is claimed, attempted and settled.
import { queryOne, type Queryable } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/retention.js';
import { MAX_ATTEMPTS } from './retry-schedule.js';

export type DeliveryType = 'event.matched' | 'event.merged' | 'event.updated' | 'sensor.test';

export interface NewDelivery {
  id: string;
  sensorId: string;
  body: string;
}

/** A delivery and the event it is about (null: none, a test delivery's). */
export interface EventDelivery extends NewDelivery {
  eventId: string | null;
  /** The event's revision and state its body carries (`event.matched`: where the sensor's updates start). */
  revision?: number;
  state?: unknown;
}

/** What a sensor was last told of an event it was sent `event.matched` for (migration 024). */
export interface FollowRow {
  /** Null: sent before updates were kept (it gets none). */
  sent_at: Date | null;
  revision: number | null;
  /** The event's fields as the sensor's latest delivery carried them (RevisionState). */
  state: unknown;
  updated_at: Date | null;
  update_due_at: Date | null;
  /** The sensor is enabled and delivers updates. */
  wanted: boolean;
}

/** Kinds that may be sent any number of times for one (sensor, event); the others once ever. */
const REPEATABLE = `('sensor.test', 'event.updated')`;

export interface ClaimedTarget {
  delivery_id: string;
  action_id: string;
  url: string;
  host: string;
  attempts: number;
  body: string;
  sensor_id: string;
  /** Sealed (the sensors module opens them); signing needs them in clear. */
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export interface AttemptOutcome {
  deliveryId: string;
  actionId: string;
  attempts: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  statusCode: number | null;
  error: string | null;
  at: Date;
  nextAttemptAt: Date | null;
}

export const outboxStore = {
  /**
   * Stores deliveries, each of its event (null: none, for a test), with a target per webhook
   * due at `at`, to sensors still enabled unless `anyState`; a (sensor, event, type) that was
   * ever sent one (sensor_sent_events, which outlives the delivery log) is left alone, except
   * test deliveries, which may repeat. Answers how many were stored. Locks the sensors' rows
   * against deletion (KEY SHARE), so a sensor deleted meanwhile is skipped rather than failing
   * the foreign key. One (sensor, event) at most once in `deliveries`. Test and update deliveries may repeat. The sent keys are taken
   * in (event, sensor) order, so two statements over the same events do not deadlock.
   */
  async create(tx: Queryable, type: DeliveryType, deliveries: readonly EventDelivery[], at: Date, options: { anyState?: boolean } = {}): Promise<number> {
    if (deliveries.length === 0) return 0;
    const rows = await tx.query<{ n: number }>(
      `WITH wanted AS (
         SELECT d.id, d.sensor_id, d.event_id, d.body, d.revision, d.state, s.actions
           FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $8::int[], $9::text[]) AS d(id, sensor_id, event_id, body, revision, state)
           JOIN sensors s ON s.id = d.sensor_id AND (s.enabled OR $7::boolean)
            FOR KEY SHARE OF s
       ), first_time AS (
         INSERT INTO sensor_sent_events (event_id, type, sensor_id, sent_at, revision, state)
         SELECT event_id, $5, sensor_id, $6, revision, state::jsonb FROM wanted WHERE $5 NOT IN ${REPEATABLE} ORDER BY event_id, sensor_id
         ON CONFLICT DO NOTHING
         RETURNING event_id, sensor_id
       ), stored AS (
         INSERT INTO sensor_deliveries (id, sensor_id, event_id, type, body, created_at)
         SELECT id, sensor_id, event_id, $5, body, $6 FROM wanted
          WHERE $5 IN ${REPEATABLE} OR (event_id, sensor_id) IN (SELECT event_id, sensor_id FROM first_time)
         RETURNING id
       ), targets AS (
         INSERT INTO sensor_delivery_targets (delivery_id, action_id, url, host, next_attempt_at)
         SELECT w.id, (a->>'id')::uuid, a->>'url', a->>'host', $6
           FROM stored JOIN wanted w ON w.id = stored.id CROSS JOIN jsonb_array_elements(w.actions) a
       )
       SELECT count(*)::int AS n FROM stored`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.sensorId),
        deliveries.map((d) => d.eventId),
        deliveries.map((d) => d.body),
        type,
        at,
        options.anyState ?? false,
        deliveries.map((d) => d.revision ?? null),
        deliveries.map((d) => (d.state === undefined ? null : JSON.stringify(d.state))),
      ],
    );
    return rows[0]?.n ?? 0;
  },

  /**
   * What sensors that follow updates were last told of these events: per (sensor, event) sent
   * `event.matched` at or after `since`, by an enabled sensor with deliver_updates, whose event's
   * latest revision (`heads`) is past the one last delivered.
   */
  followsBehind(db: Queryable, heads: ReadonlyMap<string, number>, since: Date): Promise<{ sensor_id: string; event_id: string }[]> {
    if (heads.size === 0) return Promise.resolve([]);
    return db.query(
      `SELECT f.sensor_id, f.event_id
         FROM unnest($1::uuid[], $2::int[]) AS h(event_id, revision)
         JOIN sensor_sent_events f ON f.event_id = h.event_id AND f.type = 'event.matched' AND f.sent_at >= $3 AND f.revision < h.revision
         JOIN sensors s ON s.id = f.sensor_id AND s.enabled AND s.deliver_updates`,
      [[...heads.keys()], [...heads.values()], since],
    );
  },

  /**
   * The follow of (sensor, event), locked, with whether its sensor still wants updates; null
   * when never sent `event.matched` (or the sensor is gone). The sensor's row is share-locked
   * first, as a delivery's insert locks it: a sensor being deleted (which locks its row, then
   * its follows) is waited for instead of deadlocked with.
   */
  async lockFollow(tx: Queryable, sensorId: string, eventId: string): Promise<FollowRow | null> {
    const sensor = await queryOne<{ wanted: boolean }>(tx, 'SELECT enabled AND deliver_updates AS wanted FROM sensors WHERE id = $1 FOR KEY SHARE', [sensorId]);
    if (!sensor) return null;
    const follow = await queryOne<Omit<FollowRow, 'wanted'>>(
      tx,
      `SELECT sent_at, revision, state, updated_at, update_due_at FROM sensor_sent_events
        WHERE event_id = $2 AND type = 'event.matched' AND sensor_id = $1 FOR NO KEY UPDATE`,
      [sensorId, eventId],
    );
    return follow ? { ...follow, wanted: sensor.wanted } : null;
  },

  /** Sets what the sensor was last told of the event (an update: its revision, state and time; or nothing new) and when the next is due (null: none waiting). */
  async setFollow(
    tx: Queryable,
    sensorId: string,
    eventId: string,
    change: { told: { revision: number; state: unknown; at: Date } | null; due: Date | null },
  ): Promise<void> {
    const { told, due } = change;
    await tx.query(
      `UPDATE sensor_sent_events
          SET revision = COALESCE($3, revision), state = COALESCE($4::jsonb, state), updated_at = COALESCE($5, updated_at), update_due_at = $6
        WHERE event_id = $2 AND type = 'event.matched' AND sensor_id = $1`,
      [sensorId, eventId, told?.revision ?? null, told ? JSON.stringify(told.state) : null, told?.at ?? null, due],
    );
  },

  /** Per event, the sensors that were ever given a delivery of this type for it (its delivery may have left the log since). */
  async sensorsDelivered(db: Queryable, eventIds: readonly string[], type: DeliveryType): Promise<Map<string, Set<string>>> {
    const sent = new Map<string, Set<string>>(eventIds.map((id) => [id, new Set()]));
    if (eventIds.length === 0) return sent;
    const rows = await db.query<{ event_id: string; sensor_id: string }>(
      'SELECT event_id, sensor_id FROM sensor_sent_events WHERE event_id = ANY($1::uuid[]) AND type = $2',
      [eventIds, type],
    );
    for (const row of rows) sent.get(row.event_id)?.add(row.sensor_id);
    return sent;
  },

  /**
   * A delivery's targets (one per webhook), locked, if the delivery is the sensor's. The
   * delivery's row is locked too, as `retryTargets` writes it: the retention sweep skips
   * locked rows, and once the redelivery has committed it sees its `redelivered_at`.
   */
  lockTargets(tx: Queryable, sensorId: string, deliveryId: string) {
    return tx.query<{ status: string }>(
      `SELECT t.status FROM sensor_delivery_targets t JOIN sensor_deliveries d ON d.id = t.delivery_id
        WHERE d.id = $1 AND d.sensor_id = $2 ORDER BY t.action_id FOR UPDATE OF t FOR NO KEY UPDATE OF d`,
      [deliveryId, sensorId],
    );
  },

  /**
   * Deletes deliveries (their targets with them) of which no target is pending and whose
   * latest attempt, or creation when none was made, and latest redelivery are before
   * `before`; answers how many. A row-level lock re-reads the delivery's own row only, so a
   * redelivery that commits while this runs is seen by its `redelivered_at`, not by its
   * targets.
   */
  deleteFinished(db: Queryable, before: Date): Promise<number> {
    return deleteInBatches(
      db,
      `DELETE FROM sensor_deliveries WHERE id IN (
         SELECT d.id FROM sensor_deliveries d
          WHERE d.created_at < $2 AND (d.redelivered_at IS NULL OR d.redelivered_at < $2)
            AND NOT EXISTS (SELECT 1 FROM sensor_delivery_targets t WHERE t.delivery_id = d.id AND (t.status = 'PENDING' OR t.last_attempt_at >= $2))
          LIMIT $1 FOR UPDATE OF d SKIP LOCKED)
       RETURNING 1`,
      [before],
    );
  },

  /**
   * Makes every target of a delivery due now, with a fresh retry schedule, and notes the
   * redelivery on the delivery's row, which the retention sweep re-reads when it locks it.
   */
  async retryTargets(tx: Queryable, deliveryId: string, now: Date) {
    await tx.query(
      `UPDATE sensor_delivery_targets SET status = 'PENDING', attempts = 0, next_attempt_at = $2, leased_by = NULL, lease_until = NULL
        WHERE delivery_id = $1`,
      [deliveryId, now],
    );
    await tx.query('UPDATE sensor_deliveries SET redelivered_at = $2 WHERE id = $1', [deliveryId, now]);
  },

  /**
   * Leases up to `limit` targets due at `now`, at most `room(host)` per host (`rooms` for the
   * hosts named there, `perHost` for the others), counting the attempt, with what signing
   * them needs. Targets whose lease lapsed with no attempt left (their process died during
   * the last one) fail for good first.
   */
  async claim(
    db: Queryable,
    options: { now: Date; limit: number; rooms: Map<string, number>; perHost: number; worker: string; leaseSeconds: number },
  ): Promise<ClaimedTarget[]> {
    await db.query(
      `UPDATE sensor_delivery_targets SET status = 'FAILED', next_attempt_at = NULL, leased_by = NULL, lease_until = NULL,
              last_error = COALESCE(last_error, 'the attempt was interrupted')
        WHERE leased_by IS NOT NULL AND lease_until < now() AND attempts >= $1 AND status = 'PENDING'`,
      [MAX_ATTEMPTS],
    );
    return db.query<ClaimedTarget>(
      `WITH due AS (
         SELECT delivery_id, action_id, host, next_attempt_at FROM sensor_delivery_targets
          WHERE status = 'PENDING' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < now())
            AND attempts < $8 AND NOT (host = ANY($9::text[]))
          ORDER BY next_attempt_at
          LIMIT $2 * 4
       ), ranked AS (
         SELECT due.*, row_number() OVER (PARTITION BY host ORDER BY next_attempt_at) AS place FROM due
       ), chosen AS (
         SELECT t.delivery_id, t.action_id
           FROM ranked r
           JOIN sensor_delivery_targets t USING (delivery_id, action_id)
           LEFT JOIN unnest($3::text[], $4::int[]) AS held(host, room) ON held.host = r.host
          WHERE r.place <= COALESCE(held.room, $5)
            AND t.status = 'PENDING' AND (t.lease_until IS NULL OR t.lease_until < now())
          ORDER BY r.next_attempt_at
          LIMIT $2
            FOR UPDATE OF t SKIP LOCKED
       )
       UPDATE sensor_delivery_targets t
          SET attempts = t.attempts + 1, leased_by = $6, lease_until = now() + make_interval(secs => $7)
         FROM chosen, sensor_deliveries d, sensors s
        WHERE t.delivery_id = chosen.delivery_id AND t.action_id = chosen.action_id AND d.id = t.delivery_id AND s.id = d.sensor_id
       RETURNING t.delivery_id, t.action_id, t.url, t.host, t.attempts, d.body, d.sensor_id, s.signing_secret, s.previous_signing_secret, s.previous_secret_expires_at`,
      [
        options.now,
        options.limit,
        [...options.rooms.keys()],
        [...options.rooms.values()],
        options.perHost,
        options.worker,
        options.leaseSeconds,
        MAX_ATTEMPTS,
        // Hosts without room are left out before the window is cut, so a backlog of theirs
        // cannot fill it and starve the others.
        [...options.rooms].filter(([, room]) => room <= 0).map(([host]) => host),
      ],
    );
  },

  /** Writes outcomes, each only if this worker still holds that attempt's lease. */
  async settle(db: Queryable, worker: string, outcomes: readonly AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await db.query(
      `UPDATE sensor_delivery_targets t
          SET status = o.status, last_status_code = o.code, last_error = o.error, last_attempt_at = o.at, next_attempt_at = o.next,
              leased_by = NULL, lease_until = NULL
         FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::int[], $6::text[], $7::timestamptz[], $8::timestamptz[])
              AS o(delivery_id, action_id, attempts, status, code, error, at, next)
        WHERE t.delivery_id = o.delivery_id AND t.action_id = o.action_id AND t.attempts = o.attempts AND t.leased_by = $9`,
      [
        outcomes.map((o) => o.deliveryId),
        outcomes.map((o) => o.actionId),
        outcomes.map((o) => o.attempts),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.statusCode),
        outcomes.map((o) => o.error),
        outcomes.map((o) => o.at),
        outcomes.map((o) => o.nextAttemptAt),
        worker,
      ],
    );
  },

  /** Hands back leased targets that were never attempted, uncounting their attempt. */
  async release(db: Queryable, worker: string, targets: readonly ClaimedTarget[]): Promise<void> {
    if (targets.length === 0) return;
    await db.query(
      `UPDATE sensor_delivery_targets t SET attempts = t.attempts - 1, leased_by = NULL, lease_until = NULL
         FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS o(delivery_id, action_id, attempts)
        WHERE t.delivery_id = o.delivery_id AND t.action_id = o.action_id AND t.attempts = o.attempts AND t.leased_by = $4`,
      [targets.map((t) => t.delivery_id), targets.map((t) => t.action_id), targets.map((t) => t.attempts), worker],
    );
  },

  /**
   * Embedded database only: this process is alone, so leases left by a dead process are free.
   * The interrupted attempt counts; one that was the last fails the target for good.
   */
  async releaseLeases(db: Queryable): Promise<number> {
    const rows = await db.query(
      `UPDATE sensor_delivery_targets
          SET leased_by = NULL, lease_until = NULL,
              status = CASE WHEN attempts >= $1 THEN 'FAILED' ELSE status END,
              next_attempt_at = CASE WHEN attempts >= $1 THEN NULL ELSE next_attempt_at END,
              last_error = CASE WHEN attempts >= $1 THEN COALESCE(last_error, 'the attempt was interrupted') ELSE last_error END
        WHERE leased_by IS NOT NULL RETURNING delivery_id`,
      [MAX_ATTEMPTS],
    );
    return rows.length;
  },

  /**
   * Targets not yet settled: due at `now` (waiting or being attempted), and scheduled for a
   * later retry; and how long the oldest due one has waited, by the service's clock. Walks the
   * partial index of pending targets only.
   */
  async backlog(db: Queryable, now: Date): Promise<{ due: number; scheduled: number; oldestDueSeconds: number }> {
    const [row] = await db.query<{ due: number; scheduled: number; oldest: Date | null }>(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= $1)::int AS due, count(*) FILTER (WHERE next_attempt_at > $1)::int AS scheduled,
              min(next_attempt_at) AS oldest
         FROM sensor_delivery_targets WHERE status = 'PENDING'`,
      [now],
    );
    const oldest = row?.oldest && row.oldest <= now ? (now.getTime() - row.oldest.getTime()) / 1000 : 0;
    return { due: row?.due ?? 0, scheduled: row?.scheduled ?? 0, oldestDueSeconds: oldest };
  },

  /** Targets due at `now` that are waiting or leased anywhere, excluding this worker's own. */
  async outstanding(db: Queryable, now: Date, worker: string): Promise<number> {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sensor_delivery_targets
        WHERE status = 'PENDING' AND next_attempt_at <= $1 AND leased_by IS DISTINCT FROM $2`,
      [now, worker],
    );
    return rows[0]?.n ?? 0;
  },
};
