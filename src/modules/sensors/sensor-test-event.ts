// What a test delivery carries (decisions.md, 2026-11-25): the latest event that matches the
// sensor's filter among those first reported in the past 30 days, as event search would show
// it, or null. Read through the shared filter pipeline, so a test shows what search finds.
import type { Queryable } from '../../platform/db/database.js';
import { loadEventViews, receivedUpTo, searchEventOf, type SearchEvent } from '../corpus/event-view.js';
import { filteredEvents } from '../filters/filtered-events.js';
import type { SensorFilter } from './sensors.schemas.js';
import { DAY_MS } from '../../platform/clock.js';

export const TEST_EVENT_LOOKBACK_DAYS = 30;

export async function latestMatchingEvent(q: Queryable, filter: SensorFilter, now: Date): Promise<SearchEvent | null> {
  const countedUpTo = await receivedUpTo(q);
  const windowStart = new Date(now.getTime() - TEST_EVENT_LOOKBACK_DAYS * DAY_MS);
  const events = await filteredEvents(q, [filter], { countedUpTo, windowStart });
  const [latest] = await events.page('newest-first', null, 1);
  if (!latest) return null;
  const [view] = await loadEventViews(q, [latest.id], { seq: countedUpTo });
  return view ? searchEventOf(view) : null;
}
