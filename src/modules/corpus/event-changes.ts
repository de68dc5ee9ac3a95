// The hand-off from the corpus to the features that react to events (sensors, beats): every
// change to an event (a new report, a merge, a deletion) stores one durable
// "corpus.event-changed" job in the same transaction as the change. Its handler calls each
// subscriber in turn; a failure retries the whole job, so subscribers must be idempotent
// (they are: one delivery per sensor and event, one entry per beat and event).
import type { Queryable } from '../../platform/db/database.js';
import type { JobQueue } from '../../platform/jobs.js';

export const EVENT_CHANGED_JOB = 'corpus.event-changed';
/** Recomputes the state of events after an entity they name was merged or deleted. */
export const REFRESH_EVENTS_JOB = 'corpus.refresh-events';

export type EventChange =
  | { kind: 'report-added'; eventId: string; reportId: string }
  | { kind: 'merged'; eventId: string; mergedIntoEventId: string }
  | { kind: 'deleted'; eventId: string }
  | { kind: 'entities-changed'; eventId: string };

export type EventChangeSubscriber = (change: EventChange) => Promise<void>;

export function eventChanges(jobs: JobQueue) {
  const subscribers = new Map<string, EventChangeSubscriber>();
  jobs.register(EVENT_CHANGED_JOB, async (payload) => {
    for (const subscriber of subscribers.values()) await subscriber(payload as EventChange);
  });
  return {
    /** Stores the change in the caller's transaction. */
    publish: (tx: Queryable, change: EventChange) => jobs.enqueue(tx, EVENT_CHANGED_JOB, change),
    subscribe(name: string, subscriber: EventChangeSubscriber): void {
      subscribers.set(name, subscriber);
    },
  };
}

export type EventChanges = ReturnType<typeof eventChanges>;
