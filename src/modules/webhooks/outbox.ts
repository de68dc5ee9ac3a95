// The delivery outbox as the features that make deliveries (sensors) see it. The webhooks
// module alone writes its tables (sensor_deliveries, sensor_delivery_targets): deliveries are
// stored and made due again here, attempted and settled by the dispatcher. Whatever makes a
// delivery due wakes the dispatcher once it is committed.
import type { Clock } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import { type DeliveryType, type EventDelivery, type FollowRow, type NewDelivery, outboxStore as store } from './outbox.store.js';

export type { DeliveryType, EventDelivery, FollowRow, NewDelivery } from './outbox.store.js';

/**
 * A finished delivery stays in its sensor's delivery log, listed and redeliverable, this long
 * after its latest attempt: the console's 30 days of outcomes per day are all still there.
 */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;

/** A delivery's body, the same bytes at every attempt: `{type, timestamp, data}` (decisions.md, "Webhook deliveries"). */
export function deliveryBody(type: DeliveryType, timestamp: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: timestamp.toISOString(), data });
}

export interface OutboxDeps {
  db: Queryable;
  clock: Clock;
  /** Tells the dispatcher that deliveries are due now. */
  wake: () => void;
}

export function deliveryOutbox({ db, clock, wake }: OutboxDeps) {
  return {
    /**
     * Stores deliveries, each of its event, at most one per (sensor, event, type) ever, due now.
     * One statement: atomic on its own, and committed when it returns. Answers how many were new.
     */
    async store(type: DeliveryType, deliveries: readonly EventDelivery[]): Promise<number> {
      const stored = await store.create(db, type, deliveries, clock.now());
      if (stored > 0) wake();
      return stored;
    },

    /**
     * In the caller's transaction, which holds the sensor's row: one `sensor.test` delivery
     * to each of its webhooks, due now, enabled or not. `eventId` is the event the body
     * carries, or null.
     */
    async storeTest(tx: Queryable, eventId: string | null, delivery: NewDelivery): Promise<void> {
      const stored = await store.create(tx, 'sensor.test', [{ ...delivery, eventId }], clock.now(), { anyState: true });
      if (stored !== 1) throw new Error(`test delivery ${delivery.id} was not stored: sensor ${delivery.sensorId} is gone`);
      tx.afterCommit?.(wake);
    },

    /** The (sensor, event) pairs whose sensor follows updates and was told an older revision than `heads` holds (event.matched sent since `since`). */
    followsBehind(heads: ReadonlyMap<string, number>, since: Date) {
      return store.followsBehind(db, heads, since);
    },

    /** In the caller's transaction: what the sensor was last told of the event, locked (null: never sent event.matched). */
    lockFollow: (tx: Queryable, sensorId: string, eventId: string): Promise<FollowRow | null> => store.lockFollow(tx, sensorId, eventId),

    /** In the caller's transaction: an `event.updated` delivery due now; the revision and state it carries become what the sensor was told. */
    async storeUpdate(tx: Queryable, delivery: EventDelivery & { revision: number; state: unknown }): Promise<void> {
      const at = clock.now();
      if ((await store.create(tx, 'event.updated', [delivery], at)) === 0) return; // the sensor was disabled or deleted meanwhile
      await store.setFollow(tx, delivery.sensorId, delivery.eventId!, { told: { revision: delivery.revision, state: delivery.state, at }, due: null });
      tx.afterCommit?.(wake);
    },

    /** In the caller's transaction: the follow's next update is due at `due` (a job will make it), or none is (null). */
    followDue: (tx: Queryable, sensorId: string, eventId: string, due: Date | null) => store.setFollow(tx, sensorId, eventId, { told: null, due }),

    /** Per event, the sensors that were given a delivery of this type for it. */
    sentTo(eventIds: readonly string[], type: DeliveryType): Promise<Map<string, Set<string>>> {
      return store.sensorsDelivered(db, eventIds, type);
    },

    /**
     * In the caller's transaction: a finished delivery of the sensor is made due now with a
     * fresh retry schedule (the same webhook-id and body). Answers 'not-found' when the
     * delivery is not the sensor's, 'pending' when it is still on its own schedule.
     */
    async redeliver(tx: Queryable, sensorId: string, deliveryId: string): Promise<'redelivered' | 'not-found' | 'pending'> {
      const targets = await store.lockTargets(tx, sensorId, deliveryId);
      if (targets.length === 0) return 'not-found';
      if (targets.some((target) => target.status === 'PENDING')) return 'pending';
      await store.retryTargets(tx, deliveryId, clock.now());
      tx.afterCommit?.(wake);
      return 'redelivered';
    },

    /** Deletes deliveries past DELIVERY_RETENTION_MS; a pending one is never deleted. Answers how many. */
    sweep(): Promise<number> {
      return store.deleteFinished(db, new Date(clock.nowMs() - DELIVERY_RETENTION_MS));
    },
  };
}

export type DeliveryOutbox = ReturnType<typeof deliveryOutbox>;
