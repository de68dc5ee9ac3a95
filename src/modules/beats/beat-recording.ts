// From "an event changed" to beat entries (decisions.md, "Beats", "Credits and billing").
// Each process keeps every enabled beat's compiled clauses in an in-memory FilterIndex (the
// matching face), so one changed event is checked against its candidate clauses only; a new
// beat's backfill reads the corpus through the SQL face.
//
// Every entry is written by `record`: one transaction per account that locks the account row,
// then the beats, applies the month and the state table, skips (beat, event) pairs that have
// an entry, charges each entry under the beat's cap and the balance, and pauses a beat that
// cannot pay. Holding the account lock while inserting makes a beat's `seq` order its commit
// order, and makes two processes unable to record or charge one entry twice.
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { groupCommit } from '../../platform/group-commit.js';
import { type LedgerObserver, lockAccount, recordEntryCharges } from '../accounts/billing.js';
import type { EventChangeSubscriber } from '../corpus/event-changes.js';
import { compileAll } from '../filters/entity-resolver.js';
import { loadEventFactsOf, type StoredEventFacts } from '../filters/event-facts.js';
import { filterIndexCache } from '../filters/filter-index-cache.js';
import { normalizeFilter } from '../filters/filter.js';
import { FilterIndex } from '../filters/matching.js';
import { asOf, occurredAt, pause, recording } from './beat-state.js';
import { beatEntriesStore as entries, type Candidate, type NewEntry } from './beat-entries.store.js';
import { beatBackfill } from './beat-backfill.js';
import { beatsStore, type BeatState } from './beats.store.js';

export const BEAT_BACKFILL_JOB = 'beats.backfill';

export interface BeatRecordingDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  /** Hears of entry charges once committed (the metrics). */
  onLedger: LedgerObserver;
}

interface ClauseIndex {
  filters: FilterIndex;
  /** clause id → its beat, its account and its place in the beat's list. */
  clauses: Map<string, { beatId: string; accountId: string; position: number }>;
}

async function buildIndex(db: Database): Promise<ClauseIndex> {
  const beats = await beatsStore.enabledClauses(db);
  const clauses = beats.flatMap((beat) => beat.clauses.map((clause, position) => ({ clause, position, beatId: beat.id, accountId: beat.account_id })));
  const compiled = await compileAll(
    db,
    clauses.map(({ clause }) => normalizeFilter(clause)),
  );
  const index: ClauseIndex = { filters: new FilterIndex(), clauses: new Map() };
  clauses.forEach(({ clause, position, beatId, accountId }, i) => {
    index.filters.set(clause.id, compiled[i]!);
    index.clauses.set(clause.id, { beatId, accountId, position });
  });
  return index;
}

export function beatRecording({ db, clock, newId, onLedger }: BeatRecordingDeps) {
  const index = filterIndexCache(db, ['beats', 'entities'], () => buildIndex(db));

  /**
   * Records what it can of one account's candidates, in their order, in one transaction.
   * Answers the beats as they stand afterwards, and the events it recorded entries for.
   */
  async function recordNow(accountId: string, candidates: readonly Candidate[]) {
    return db.transaction(async (tx) => {
      const { balance: before, entitlements, plan } = await lockAccount(tx, accountId);
      const eventIds = [...new Set(candidates.map((c) => c.eventId))];
      const locked = await beatsStore.lockForRecording(tx, [...new Set(candidates.map((c) => c.beatId))], eventIds);
      // Read under the locks, and never before the last entry or pause of these beats (a
      // clock behind another process's), so no entry lands inside a gap and added_at follows seq.
      const now = new Date(
        Math.max(
          clock.nowMs(),
          ...locked.beats.flatMap(({ state }) => [state.last_entry_at?.getTime() ?? 0, Date.parse(state.gaps.at(-1)?.from ?? '')].filter(Number.isFinite)),
        ),
      );
      const beats = new Map(locked.beats.map(({ state }) => [state.id, asOf(state, now)]));
      const changed = new Set(locked.beats.filter(({ state }) => beats.get(state.id)!.counters_month !== state.counters_month).map(({ state }) => state.id));
      const have = new Set(locked.beats.flatMap(({ state, recorded }) => recorded.map((eventId) => `${state.id}:${eventId}`)));
      const clauseIds = new Map(locked.beats.map(({ state, clauseIds: ids }) => [state.id, ids]));
      let balance = before;
      const written: NewEntry[] = [];
      const charges: { amount: number; beatId: string; entryId: string }[] = [];
      for (const candidate of candidates) {
        const beat = beats.get(candidate.beatId);
        const key = `${candidate.beatId}:${candidate.eventId}`;
        if (!beat || beat.account_id !== accountId || !recording(beat) || !entitlements.beats || have.has(key)) continue;
        // An event merged or deleted since it matched is not recorded (a merge's survivor is
        // matched in its turn); nor is a match on a clause a replace has removed since.
        if (!locked.liveEvents.has(candidate.eventId)) continue;
        if (candidate.carriedFromEventId === null && !clauseIds.get(beat.id)!.has(candidate.clauseId)) continue;
        const cost = candidate.carriedFromEventId === null ? plan.beat_entry_credit_cost : 0;
        if (cost > 0 && (beat.spent_this_month + cost > beat.spend_cap_credits || balance < cost)) {
          beats.set(beat.id, pause(beat, now));
          changed.add(beat.id);
          continue;
        }
        const entry = { ...candidate, id: newId() };
        written.push(entry);
        have.add(key);
        balance -= cost;
        if (cost > 0) charges.push({ amount: cost, beatId: beat.id, entryId: entry.id });
        beats.set(beat.id, { ...beat, spent_this_month: beat.spent_this_month + cost, entries_this_month: beat.entries_this_month + 1, last_entry_at: now });
        changed.add(beat.id);
      }
      await entries.insert(tx, written, now);
      await recordEntryCharges(tx, accountId, charges, now, onLedger);
      await beatsStore.updateCounters(
        tx,
        [...changed].map((id) => beats.get(id)!),
      );
      return { beats, recordedEvents: new Set(written.map((entry) => entry.eventId)) };
    });
  }

  // Concurrent recordings for one account share a transaction: they would queue for its row
  // lock one commit at a time otherwise.
  const grouped = groupCommit((accountId: string, lists: readonly (readonly Candidate[])[]) => recordNow(accountId, lists.flat()));

  async function record(accountId: string, candidates: readonly Candidate[]): Promise<Map<string, BeatState>> {
    const { beats, recordedEvents } = await grouped(accountId, candidates);
    // An event merged after the transaction saw it live, whose merge job has already read its
    // entries, would keep an entry neither superseded nor carried: carry it now (idempotent).
    const mine = [...new Set(candidates.map((c) => c.eventId))].filter((id) => recordedEvents.has(id));
    for (const eventId of await entries.mergedAway(db, mine)) await carryMerge(eventId);
    return beats;
  }

  /** Records candidates of any accounts, one transaction per account. */
  async function recordAll(candidates: readonly Candidate[], accountOf: (beatId: string) => string): Promise<void> {
    const byAccount = new Map<string, Candidate[]>();
    for (const candidate of candidates) {
      const accountId = accountOf(candidate.beatId);
      (byAccount.get(accountId) ?? byAccount.set(accountId, []).get(accountId)!).push(candidate);
    }
    for (const [accountId, list] of byAccount) await record(accountId, list);
  }

  async function occurredAtOf(eventId: string): Promise<Date | null> {
    const [event] = await entries.eventTimes(db, [eventId]);
    return event ? occurredAt(event.happened_at, event.first_report_date) : null;
  }

  /**
   * Each event's first matching clause on each enabled beat without an entry for it: the
   * events' facts read together, then the matches of them all recorded together (a bulk
   * load's change names hundreds of events).
   */
  async function matchEvents(eventIds: readonly string[]): Promise<void> {
    const current = await index.current();
    if (current.filters.size === 0) return; // no enabled beat: nothing to read
    const facts = await loadEventFactsOf(db, eventIds, null, current.filters);
    const live = [...new Set(eventIds)].flatMap((eventId) => {
      const event = facts.get(eventId);
      return event?.live ? [event] : [];
    });
    await recordMatches(current, live);
  }

  const matchEvent = (eventId: string) => matchEvents([eventId]);

  /** Entries for the beats the events match (facts read already). */
  async function recordMatches({ filters, clauses }: Awaited<ReturnType<typeof index.current>>, events: readonly StoredEventFacts[]): Promise<void> {
    const matches: { beatId: string; clauseId: string; event: StoredEventFacts }[] = [];
    for (const event of events) {
      const first = new Map<string, { clauseId: string; position: number }>();
      for (const clauseId of filters.match(event)) {
        const { beatId, position } = clauses.get(clauseId)!;
        const best = first.get(beatId);
        if (!best || position < best.position) first.set(beatId, { clauseId, position });
      }
      for (const [beatId, { clauseId }] of first) matches.push({ beatId, clauseId, event });
    }
    if (matches.length === 0) return;
    const beatIds = [...new Set(matches.map((match) => match.beatId))];
    // Most changes are further reports of events already recorded: looked up here, they never
    // queue for the account lock (recordNow checks again under it).
    const have = await entries.existing(
      db,
      beatIds,
      events.map((event) => event.eventId),
    );
    const fresh = matches.filter(({ beatId, event }) => !have.has(`${beatId}:${event.eventId}`));
    // A beat that has an entry for an event merged into this one carries it, free, even when
    // this change runs before the merge's own job (A into B, then B into D: D's change may
    // come first).
    const carriable = new Map(
      (await entries.carriable(db, [...new Set(fresh.map((match) => match.beatId))], [...new Set(fresh.map((match) => match.event.eventId))])).map((entry) => [
        `${entry.beat_id}:${entry.survivor_id}`,
        entry,
      ]),
    );
    const candidates = fresh.map(({ beatId, clauseId, event }) => {
      const { eventId } = event;
      const occurred = occurredAt(event.happenedAt, event.firstReportDate);
      const carried = carriable.get(`${beatId}:${eventId}`);
      return carried
        ? { beatId, eventId, clauseId: carried.matched_clause_id, occurredAt: occurred, backfilled: false, carriedFromEventId: carried.event_id }
        : { beatId, eventId, clauseId, occurredAt: occurred, backfilled: false, carriedFromEventId: null };
    });
    const accountOf = new Map(fresh.map(({ beatId, clauseId }) => [beatId, clauses.get(clauseId)!.accountId]));
    await recordAll(candidates, (beatId) => accountOf.get(beatId)!);
  }

  /**
   * Event A merged away: A's entries name its survivor as their successor, every beat with an
   * entry for A and none for the survivor gets a free one carried over, then the survivor is
   * matched again. The survivor is read now, not taken from the change: when A was merged
   * into B and B into D, both jobs carry to D, whichever runs first.
   */
  async function carryMerge(eventId: string): Promise<void> {
    const survivorId = await entries.survivorOf(db, eventId);
    if (survivorId === null) return;
    await entries.supersede(db, eventId, survivorId);
    const merged = await entries.ofEvent(db, eventId);
    const occurred = merged.length > 0 ? await occurredAtOf(survivorId) : null;
    if (occurred !== null) {
      const accounts = new Map(merged.map((entry) => [entry.beat_id, entry.account_id]));
      const carried = merged.map((entry) => ({
        beatId: entry.beat_id,
        eventId: survivorId,
        clauseId: entry.matched_clause_id,
        occurredAt: occurred,
        backfilled: false,
        carriedFromEventId: eventId,
      }));
      await recordAll(carried, (beatId) => accounts.get(beatId)!);
    }
    await matchEvent(survivorId);
  }

  const onEventChange: EventChangeSubscriber = async (change) => {
    switch (change.kind) {
      case 'report-added':
      case 'entities-changed':
        return matchEvent(change.eventId);
      case 'reports-added':
        return matchEvents(change.eventIds);
      case 'merged':
        return carryMerge(change.eventId);
      case 'deleted':
        return; // its entries stay, and read `event: null`
    }
  };

  return {
    onEventChange,
    /** The BEAT_BACKFILL_JOB handler. */
    backfill: beatBackfill({ db, record }),
  };
}

export type BeatRecording = ReturnType<typeof beatRecording>;
