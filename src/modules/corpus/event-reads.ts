// Events read by id on the public API (decisions.md, "events by id, revisions and update
// deliveries"): the event as it stands, counted over every report, and its revisions. An id
// merged away is answered by its survivor; a deleted or unknown one is not found. Not billed:
// finding events is what search bills.
import type { Database, Queryable } from '../../platform/db/database.js';
import { ProblemError } from '../../platform/problems.js';
import type { Clock } from '../../platform/clock.js';
import { revisionsKeptSince } from './event-revisions.js';
import { eventRevisionsStore } from './event-revisions.store.js';
import { type EventView, loadEventViews, searchEventOf } from './event-view.js';
import { eventsStore } from './events.store.js';

/** Merges flatten their chains (events.store.ts mergeEvent), so one hop suffices; more cover merges racing the read. */
const MAX_HOPS = 4;

const notFound = (id: string) => new ProblemError('not-found', `No event with id ${id}.`);

/**
 * What `id` names, following merges: `read` answers an event's row (or view), and the first
 * one neither merged away nor deleted is answered; null when deleted or unknown.
 */
async function followMerges<T extends { merged_into_event_id: string | null; deleted: boolean }>(
  id: string,
  read: (id: string) => Promise<T | undefined | null>,
): Promise<T | null> {
  let wanted = id;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const found = await read(wanted);
    if (!found || found.deleted) return null;
    if (!found.merged_into_event_id) return found;
    wanted = found.merged_into_event_id;
  }
  return null;
}

/** The event `id` names, as it stands, following merges; null when deleted or unknown. */
const currentEventView = (db: Queryable, id: string): Promise<EventView | null> =>
  followMerges(id, async (wanted) => (await loadEventViews(db, [wanted], 'all', { revision: true }))[0]);

/** The live event `id` names (itself, or its survivor); null when deleted or unknown. */
async function liveEventId(db: Queryable, id: string): Promise<string | null> {
  const row = await followMerges(id, async (wanted) => {
    const event = await eventsStore.getEvent(db, wanted);
    return event && { id: event.id, merged_into_event_id: event.merged_into_event_id, deleted: event.deleted_at !== null };
  });
  return row?.id ?? null;
}

/** The public shape of an event read by id (its view read with its revision). */
function eventById(view: EventView) {
  const { number, at } = view.revision!;
  return { ...searchEventOf(view), revision: number, updated_at: at };
}

export function eventReads({ db: primary, clock }: { db: Database; clock: Clock }) {
  const db = primary.reads; // no lock taken: a standby's, when there are any
  return {
    async get(id: string) {
      const view = await currentEventView(db, id);
      if (!view) throw notFound(id);
      return eventById(view);
    },

    /** The revisions of the event (its survivor's, for one merged away), newest first. */
    async revisions(id: string, query: { limit: number; starting_after?: number }) {
      const survivor = await liveEventId(db, id);
      if (!survivor) throw notFound(id);
      const rows = await eventRevisionsStore.list(db, survivor, query.limit + 1, query.starting_after ?? null, revisionsKeptSince(clock.nowMs()));
      const data = rows.slice(0, query.limit).map((row) => ({
        object: 'event_revision' as const,
        event_id: row.event_id,
        revision: row.revision,
        created_at: row.created_at.toISOString(),
        changes: row.changes,
        merged_event_ids: row.merged_event_ids,
      }));
      const hasMore = rows.length > query.limit;
      return { object: 'list' as const, data, has_more: hasMore, next_cursor: hasMore ? String(data[data.length - 1]!.revision) : null };
    },
  };
}

export type EventReads = ReturnType<typeof eventReads>;
