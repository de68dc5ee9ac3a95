// A new beat's look-back (decisions.md, "Beats"): the events first reported within the plan's
// `backfill_days` before the beat was created, oldest first, recorded like any entry
// (`backfilled: true`, charged, under the cap). It runs as a durable job after the create
// has answered, in batches of its own transactions, so the beat is readable at once and the
// account lock is never held for long; a retried job skips what it already recorded.
import type { Database } from '../../platform/db/database.js';
import { accountAndPlan } from '../accounts/billing.js';
import { receivedUpTo } from '../corpus/event-view.js';
import { filteredEvents } from '../filters/filtered-events.js';
import type { Candidate } from './beat-entries.store.js';
import { occurredAt, recording } from './beat-state.js';
import { beatsStore, type BeatState } from './beats.store.js';
import { DAY_MS } from '../../platform/clock.js';

const BATCH = 100;

export interface BeatBackfillDeps {
  db: Database;
  record: (accountId: string, candidates: readonly Candidate[]) => Promise<Map<string, BeatState>>;
}

export function beatBackfill({ db, record }: BeatBackfillDeps) {
  return async (payload: unknown): Promise<void> => {
    const { beat_id: beatId } = payload as { beat_id: string };
    const beat = await beatsStore.byId(db, beatId);
    if (!beat) return; // deleted since
    const { plan } = await accountAndPlan(db, beat.account_id);
    if (plan.backfill_days === 0) return;
    const windowStart = new Date(beat.created_at.getTime() - plan.backfill_days * DAY_MS);
    // Every report received before the look-back starts (so before the beat could match live):
    // an event that arrived while the beat was being created is found here, whatever its
    // report date, and one that arrives later is matched live.
    const countedUpTo = await receivedUpTo(db);
    const matching = await filteredEvents(db, beat.clauses, { countedUpTo, windowStart });
    for await (const events of matching.batches('oldest-first', BATCH)) {
      const candidates = events.map((event) => ({
        beatId,
        eventId: event.id,
        clauseId: beat.clauses[event.filterIndex]!.id,
        occurredAt: occurredAt(event.happenedAt, event.firstReportDate),
        backfilled: true,
        carriedFromEventId: null,
      }));
      const now = (await record(beat.account_id, candidates)).get(beatId);
      // Deleted, disabled or paused by the cap: the look-back ends there.
      if (!now || !recording(now)) return;
    }
  };
}
