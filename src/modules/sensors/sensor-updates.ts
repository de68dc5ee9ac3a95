// `event.updated` deliveries (decisions.md, "events by id, revisions and update deliveries"):
// a sensor with deliver_updates that sent `event.matched` for an event in the past 30 days is
// told of the event's changes. Whether an update is due is judged per (sensor, event) under
// the lock of what the sensor was last told (sensor_sent_events), so two processes never both
// make one. The changes it carries are those since the sensor's previous delivery for the
// event (the state that delivery carried, kept with the follow, against the event now); it is made only when a field
// decisions.md names changed or an event was merged in, and at most once per 10 minutes: a
// change within 10 minutes of the last update leaves a job due when they are over, which
// makes the update then, with the state of then.
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs.js';
import { latestRevisions, mergedInSince } from '../corpus/event-revisions.js';
import { loadEventViews, searchEventOf } from '../corpus/event-view.js';
import { changesBetween, type RevisionState, revisionStateOf, warrantsUpdate } from '../corpus/revision-changes.js';
import { deliveryBody, type DeliveryOutbox } from '../webhooks/outbox.js';

/** Makes the update of one (sensor, event) whose 10 minutes are over. */
export const SENSOR_UPDATE_JOB = 'sensors.event-update';
/** At most one `event.updated` per (sensor, event) this often. */
export const UPDATE_EVERY_MS = 10 * 60_000;
/** Events delivered as `event.matched` this long ago or less are followed. */
export const FOLLOWED_FOR_MS = 30 * 24 * 3_600_000;

export interface SensorUpdatesDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  jobs: JobQueue;
  outbox: DeliveryOutbox;
}

export function sensorUpdates({ db, clock, newId, jobs, outbox }: SensorUpdatesDeps) {
  /** Makes (sensor, event)'s update now, or leaves it due when its 10 minutes are over, or finds none called for. */
  async function updateOne(sensorId: string, eventId: string): Promise<void> {
    await db.transaction(async (tx) => {
      const follow = await outbox.lockFollow(tx, sensorId, eventId);
      const now = clock.now();
      if (!follow?.wanted || !follow.sent_at || follow.revision === null || follow.state === null) return;
      if (follow.sent_at.getTime() < now.getTime() - FOLLOWED_FOR_MS) return;
      // The cheap checks first: a newer revision, and the 10 minutes.
      const head = (await latestRevisions(tx, [eventId])).get(eventId);
      if (head === undefined || head <= follow.revision) return;
      if (follow.updated_at && now.getTime() < follow.updated_at.getTime() + UPDATE_EVERY_MS) {
        const due = new Date(follow.updated_at.getTime() + UPDATE_EVERY_MS);
        // A job for this very time is waiting (one left from an earlier update, whose run found
        // nothing to do, names another time).
        if (follow.update_due_at?.getTime() === due.getTime()) return;
        await outbox.followDue(tx, sensorId, eventId, due);
        await jobs.enqueue(tx, SENSOR_UPDATE_JOB, { sensor_id: sensorId, event_id: eventId }, { runAt: due });
        return;
      }
      const [view] = await loadEventViews(tx, [eventId], 'all', { revision: true });
      if (!view || view.deleted || view.merged_into_event_id) return; // a merge is told by event.merged
      const event = searchEventOf(view);
      const state = revisionStateOf(event);
      // Against what the sensor's latest delivery carried (entities read through their
      // survivors then included), not a revision's state: what it was told is what changed from.
      const changes = changesBetween(follow.state as RevisionState, state);
      if (!warrantsUpdate(changes, await mergedInSince(tx, eventId, follow.revision))) {
        // Nothing a sensor is told of changed: the next update still counts from its last delivery.
        if (follow.update_due_at) await outbox.followDue(tx, sensorId, eventId, null);
        return;
      }
      const revision = view.revision!.number;
      await outbox.storeUpdate(tx, {
        id: newId(),
        sensorId,
        eventId,
        revision,
        state,
        body: deliveryBody('event.updated', now, { sensor_id: sensorId, event, revision, changes }),
      });
    });
  }

  jobs.register(SENSOR_UPDATE_JOB, async (payload) => {
    const { sensor_id: sensorId, event_id: eventId } = payload as { sensor_id: string; event_id: string };
    await updateOne(sensorId, eventId);
  });

  return {
    /** These events changed: each follower told an older revision gets its update judged. */
    async eventsChanged(eventIds: readonly string[]): Promise<void> {
      const heads = await latestRevisions(db, [...new Set(eventIds)]);
      const behind = await outbox.followsBehind(heads, new Date(clock.nowMs() - FOLLOWED_FOR_MS));
      for (const { sensor_id: sensorId, event_id: eventId } of behind) await updateOne(sensorId, eventId);
    },
  };
}
