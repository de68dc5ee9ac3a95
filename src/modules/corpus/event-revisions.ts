// An event's revisions (decisions.md, "events by id, revisions and update deliveries"): each
// committed change of its search-event view makes one, written in the transaction of the
// change by the hand-off that publishes it (event-changes.ts), so none is lost or doubled by a
// crash or by several processes (the change holds the event's row lock, which orders its
// revision numbers). Several changes of one event in one transaction (a bulk batch) make one.
import type { Queryable } from '../../platform/db/database.js';
import { type NewRevision, eventRevisionsStore as store } from './event-revisions.store.js';
import { loadEventViews } from './event-view.js';
import { changesBetween, type RevisionState, revisionStateOf } from './revision-changes.js';

/** Revisions are kept this long; an event keeps its latest whatever its age. */
const REVISION_RETENTION_MS = 90 * 24 * 3_600_000;

/** The oldest a revision may have been made at `nowMs` and still be kept (the sweep's cut, and the implied first's). */
export const revisionsKeptSince = (nowMs: number) => new Date(nowMs - REVISION_RETENTION_MS);

/** What a caller (a bulk batch) knows already: live events' views, and the events it made (no revision yet). */
export interface KnownViews {
  states: ReadonlyMap<string, RevisionState>;
  fresh: ReadonlySet<string>;
}

/**
 * Writes a revision for each live event in `revised` whose view differs from its
 * latest revision's (or that gained merged events, or has none yet: revision 1, no changes).
 * The caller's transaction holds the events' row locks, and has written their rows: the
 * latest revision's state is read from the row as it stood before (migration 041), entity ids
 * as the row held them. Those are live survivors whenever a revision is recorded (every path
 * that records one writes the row from its reports first, and the in-place path refuses a row
 * naming an entity merged or deleted), so the view's ids, which read the row through survivors,
 * are what the next revision compares with.
 */
export async function recordRevisions(
  tx: Queryable,
  revised: ReadonlyMap<string, readonly string[]>, // the events revised, each with the events merged into it
  at: Date,
  known: KnownViews = { states: new Map(), fresh: new Set() },
): Promise<void> {
  if (revised.size === 0) return;
  const ids = [...revised.keys()];
  const states = new Map(known.states);
  const unknown = ids.filter((id) => !states.has(id));
  for (const view of await loadEventViews(tx, unknown, 'all')) {
    if (!view.merged_into_event_id && !view.deleted) states.set(view.id, revisionStateOf(view));
  }
  const latest = await store.latest(
    tx,
    ids.filter((id) => !known.fresh.has(id)),
  );
  const revisions: NewRevision[] = [];
  for (const id of ids) {
    const state = states.get(id);
    if (!state) continue; // merged away or deleted
    const mergedEventIds = revised.get(id)!;
    const head = latest.get(id);
    if (!head) {
      revisions.push({ eventId: id, revision: 1, changes: {}, mergedEventIds, state });
      continue;
    }
    // A revision stored before states were kept: what changed since cannot be told.
    const changed = head.state ? changesBetween(head.state, state) : {};
    if (head.state && Object.keys(changed).length === 0 && mergedEventIds.length === 0) continue;
    revisions.push({ eventId: id, revision: head.revision + 1, changes: changed, mergedEventIds, state });
  }
  await store.insert(tx, revisions, at, ids);
}

/** Per event, its latest revision number (events without one left out). */
export const latestRevisions = (db: Queryable, eventIds: readonly string[]) => store.heads(db, eventIds);

/** Whether an event was merged into `eventId` by a revision after `after`. */
export const mergedInSince = async (db: Queryable, eventId: string, after: number) => (await store.mergedSince(db, eventId, after)).length > 0;
