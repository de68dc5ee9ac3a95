// From "an event changed" to deliveries. Each process keeps every enabled sensor's compiled
// filter in an in-memory FilterIndex, rebuilt when a filter version moved (a sensor written,
// an entity merged or deleted), so one changed event is checked against its candidates only.
//
// - A report added, or the event's entities changed: every enabled sensor the event now
//   satisfies and that was never sent `event.matched` for it gets one (the outbox records
//   each first sending under a unique key that outlives the delivery log, which makes that
//   "ever", whatever retries or processes do).
// - Event A merged into B: each enabled sensor that was sent A gets `event.merged`, and B is
//   matched again (it gained A's reports).
// - Then, whatever the change, sensors that follow updates of the events are told of them
//   (sensor-updates.ts).
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { EventChangeSubscriber } from '../corpus/event-changes.js';
import { loadEventViews, searchEventOf, type SearchEvent } from '../corpus/event-view.js';
import { revisionStateOf } from '../corpus/revision-changes.js';
import { compileAll } from '../filters/entity-resolver.js';
import { loadEventFactsOf } from '../filters/event-facts.js';
import { filterIndexCache } from '../filters/filter-index-cache.js';
import { normalizeFilter } from '../filters/filter.js';
import { FilterIndex } from '../filters/matching.js';
import { deliveryBody, type DeliveryOutbox } from '../webhooks/outbox.js';
import { sensorUpdates } from './sensor-updates.js';
import { sensorsStore } from './sensors.store.js';

export interface SensorMatchingDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  /** The webhooks module's outbox, which alone writes deliveries. */
  outbox: DeliveryOutbox;
  jobs: JobQueue;
}

/** The enabled sensors' compiled filters, and whether any of them delivers updates. */
async function buildIndex(db: Database): Promise<{ index: FilterIndex; following: boolean }> {
  const sensors = await sensorsStore.enabledFilters(db);
  const compiled = await compileAll(
    db,
    sensors.map(({ filter }) => normalizeFilter(filter)),
  );
  const index = new FilterIndex();
  for (const [i, { id }] of sensors.entries()) index.set(id, compiled[i]!);
  return { index, following: sensors.some((sensor) => sensor.deliver_updates) };
}

/** Deliveries stored per statement at most (but one event's all together): their bodies are in memory till then. */
const DELIVERIES_PER_STATEMENT = 1_000;

/**
 * Events' deliveries in chunks of at most `limit` (an event with more is a chunk of its own),
 * events without any left out. Each chunk sorted by event, then sensor: two statements storing
 * deliveries of the same events insert their unique keys (sensor_sent_events) in one order, so
 * neither waits on the other's while holding one it wants.
 */
export function deliveryChunks<T extends { eventId: string; sensorIds: readonly string[] }>(events: readonly T[], limit: number): T[][] {
  const sorted = events
    .filter((event) => event.sensorIds.length > 0)
    .map((event) => ({ ...event, sensorIds: [...event.sensorIds].sort() }))
    .sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let size = 0;
  for (const event of sorted) {
    if (size > 0 && size + event.sensorIds.length > limit) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(event);
    size += event.sensorIds.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** The sensors' subscriber to the "event changed" hand-off. */
export function sensorMatching({ db, clock, newId, outbox, jobs }: SensorMatchingDeps): EventChangeSubscriber {
  const filters = filterIndexCache(db, ['sensors', 'entities'], () => buildIndex(db));
  const updates = sensorUpdates({ db, clock, newId, jobs, outbox });

  async function eventView(eventId: string): Promise<SearchEvent | null> {
    const [view] = await loadEventViews(db, [eventId], { at: clock.now() });
    return view ? searchEventOf(view) : null;
  }

  /**
   * Matches events against every enabled sensor: their facts read together, then the matches of
   * them all delivered together (a bulk load's change names hundreds of events).
   */
  async function matchEvents(eventIds: readonly string[]): Promise<void> {
    const { index } = await filters.current();
    if (index.size === 0) return; // no enabled sensor: nothing to read
    const facts = await loadEventFactsOf(db, eventIds, null, index);
    const matches = new Map<string, string[]>();
    for (const eventId of new Set(eventIds)) {
      const event = facts.get(eventId);
      const matched = event?.live ? index.match(event) : [];
      if (matched.length > 0) matches.set(eventId, matched);
    }
    await deliverMatches(matches);
  }

  const matchEvent = (eventId: string) => matchEvents([eventId]);

  /**
   * One `event.matched` delivery to each matched sensor (by event) that has had none for the
   * event: the events' views read and the deliveries stored a statement per chunk (each body
   * holds its event's view).
   */
  async function deliverMatches(matches: ReadonlyMap<string, readonly string[]>): Promise<void> {
    if (matches.size === 0) return;
    const delivered = await outbox.sentTo([...matches.keys()], 'event.matched');
    const unsent = [...matches].map(([eventId, sensorIds]) => ({ eventId, sensorIds: sensorIds.filter((id) => !delivered.get(eventId)!.has(id)) }));
    for (const chunk of deliveryChunks(unsent, DELIVERIES_PER_STATEMENT)) await storeMatched(chunk);
  }

  async function storeMatched(matches: readonly { eventId: string; sensorIds: readonly string[] }[]): Promise<void> {
    if (matches.length === 0) return;
    // With its revision: where the sensor's updates start.
    const views = await loadEventViews(
      db,
      matches.map((match) => match.eventId),
      { at: clock.now() },
      { revision: true },
    );
    const viewOf = new Map(views.map((view) => [view.id, view]));
    const timestamp = clock.now();
    await outbox.store(
      'event.matched',
      matches.flatMap(({ eventId, sensorIds }) => {
        const view = viewOf.get(eventId);
        if (!view) return [];
        const event = searchEventOf(view);
        return sensorIds.map((sensorId) => ({
          id: newId(),
          sensorId,
          eventId,
          revision: view.revision?.number ?? 1,
          state: revisionStateOf(event),
          body: deliveryBody('event.matched', timestamp, { sensor_id: sensorId, event }),
        }));
      }),
    );
  }

  async function announceMerge(eventId: string, mergedIntoEventId: string): Promise<void> {
    const sent = (await outbox.sentTo([eventId], 'event.matched')).get(eventId)!;
    if (sent.size === 0) return;
    const event = await eventView(mergedIntoEventId);
    if (!event) return;
    const timestamp = clock.now();
    await outbox.store(
      'event.merged',
      [...sent].map((sensorId) => ({
        id: newId(),
        sensorId,
        eventId,
        body: deliveryBody('event.merged', timestamp, { sensor_id: sensorId, event_id: eventId, merged_into_event_id: mergedIntoEventId, event }),
      })),
    );
  }

  /** Then the updates of the changed events, unless no enabled sensor delivers any. */
  async function follow(eventIds: readonly string[]): Promise<void> {
    if ((await filters.current()).following) await updates.eventsChanged(eventIds);
  }

  // Updates are judged after the change's matching, in the same job: an event first matched by
  // this change is then followed from the revision its event.matched carried.
  return async (change) => {
    switch (change.kind) {
      case 'report-added':
      case 'entities-changed':
        await matchEvent(change.eventId);
        return follow([change.eventId]);
      case 'reports-added':
        await matchEvents(change.eventIds);
        return follow(change.eventIds);
      case 'merged':
        await announceMerge(change.eventId, change.mergedIntoEventId);
        await matchEvent(change.mergedIntoEventId);
        return follow([change.mergedIntoEventId]);
      case 'deleted':
        return;
    }
  };
}
