// The hand-off from the corpus to the features that react to events (sensors, beats): every
// change to an event (a new report, a merge, a deletion) stores one durable job per
// subscriber, "corpus.event-changed:<subscriber>", in the same transaction as the change. Each
// subscriber retries on its own, so a failing beat charge never re-runs sensor matching and
// the reverse; a retried subscriber must be idempotent (it is: one delivery per sensor and
// event, one entry per beat and event). The same call writes the events' revisions
// (event-revisions.ts): whatever changes an event publishes the change, so no revision is missed.
import type { Clock } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import type { JobQueue } from '../../platform/jobs.js';
import { type KnownViews, recordRevisions } from './event-revisions.js';

const EVENT_CHANGED_JOB = 'corpus.event-changed';
/** Recomputes the state of events after an entity they name was merged or deleted. */
export const REFRESH_EVENTS_JOB = 'corpus.refresh-events';

export type EventChange =
  | { kind: 'report-added'; eventId: string; reportId: string }
  /** A bulk ingest's: these events gained reports (each named once, whatever the number). */
  | { kind: 'reports-added'; eventIds: string[] }
  | { kind: 'merged'; eventId: string; mergedIntoEventId: string }
  | { kind: 'deleted'; eventId: string }
  | { kind: 'entities-changed'; eventId: string };

export type EventChangeSubscriber = (change: EventChange) => Promise<void>;

/**
 * Every feature that reacts to an event change, by name (the name is part of its jobs' kind,
 * so renaming one strands its queued jobs). The corpus does not import them; the composition
 * root hands them in, and this type makes it hand in each one.
 */
export interface EventChangeSubscribers {
  /** sensors/sensor-matching.ts: `event.matched` and `event.merged` deliveries to webhooks. */
  sensors: EventChangeSubscriber;
  /** beats/beat-recording.ts: charged beat entries, carried entries on merges. */
  beats: EventChangeSubscriber;
}

/** Told when a subscriber is done with a change: seconds since the change was stored (the metrics' event-change lag). */
export type EventChangeLag = (subscriber: keyof EventChangeSubscribers, seconds: number) => void;

export function eventChanges(jobs: JobQueue, subscribers: EventChangeSubscribers, lag: EventChangeLag, clock: Clock) {
  const kinds = (Object.entries(subscribers) as [keyof EventChangeSubscribers, EventChangeSubscriber][]).map(([name, subscriber]) => {
    const kind = `${EVENT_CHANGED_JOB}:${name}`;
    jobs.register(kind, (payload) => subscriber(payload as EventChange), { onDone: (seconds) => lag(name, seconds) });
    return kind;
  });
  const record = (tx: Queryable, changes: readonly EventChange[], known?: KnownViews) => recordRevisions(tx, revisedEvents(changes), clock.now(), known);
  return {
    /** Stores the change for every subscriber, and the revisions it makes, in the caller's transaction. */
    async publish(tx: Queryable, change: EventChange): Promise<void> {
      await jobs.enqueueEach(tx, kinds, change);
      await record(tx, [change]);
    },

    /**
     * Stores many changes for every subscriber in one statement, and their revisions (one per
     * event); `known` holds what the caller knows of the events already (a bulk batch).
     */
    async publishAll(tx: Queryable, changes: readonly EventChange[], known?: KnownViews): Promise<void> {
      await jobs.enqueueEachOf(tx, kinds, changes);
      await record(tx, changes, known);
    },

    /**
     * A publisher for one transaction that changes events many times (a bulk batch ingested
     * line by line): changes are stored as they come, the revisions once, by `recordRevisions`
     * before the commit, so an event touched twice gets one.
     */
    deferringRevisions() {
      const published: EventChange[] = [];
      return {
        async publish(tx: Queryable, change: EventChange): Promise<void> {
          await jobs.enqueueEach(tx, kinds, change);
          published.push(change);
        },
        async publishAll(tx: Queryable, changes: readonly EventChange[]): Promise<void> {
          await jobs.enqueueEachOf(tx, kinds, changes);
          published.push(...changes); // recorded from the views at the end, not from the states of one line
        },
        recordRevisions: (tx: Queryable) => record(tx, published),
      };
    },
  };
}

/** The events these changes revise, each with the events merged into it (a deleted event has no more revisions). */
function revisedEvents(changes: readonly EventChange[]): Map<string, string[]> {
  const revised = new Map<string, string[]>();
  const touch = (eventId: string) => {
    const merged = revised.get(eventId) ?? [];
    revised.set(eventId, merged);
    return merged;
  };
  for (const change of changes) {
    switch (change.kind) {
      case 'report-added':
      case 'entities-changed':
        touch(change.eventId);
        break;
      case 'reports-added':
        for (const eventId of change.eventIds) touch(eventId);
        break;
      case 'merged':
        touch(change.mergedIntoEventId).push(change.eventId);
        break;
      case 'deleted':
        break;
    }
  }
  return revised;
}

export type EventPublisher = ReturnType<typeof eventChanges>;
/** What a path that changes events needs of the hand-off. */
export type EventChanges = Pick<EventPublisher, 'publish' | 'publishAll'>;
