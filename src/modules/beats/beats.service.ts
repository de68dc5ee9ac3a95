// Beats: saved clause sets (v1 document, Beat, Clause, the Beats endpoints and the Beat state
// table; decisions.md, "Beats"). Checks run in decisions.md's order: the body (400), the
// beats entitlement (403), the beat (404), its state (409). Writes lock the account row, then
// the beat (the order recording takes too), and move the "beats" filter version so every
// process's matching index picks the change up.
import { isDeepStrictEqual } from 'node:util';
import { monthStart, type Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { CommitAnswer } from '../../platform/idempotency-claims.js';
import type { JobQueue } from '../../platform/jobs.js';
import { ProblemError, type FieldError } from '../../platform/problems.js';
import { accountAndPlan, lockAccount } from '../accounts/billing.js';
import type { PlanRow } from '../accounts/accounts.store.js';
import { referenceStore } from '../corpus/reference.store.js';
import { entityListReferences, entityListsInaccessible, unusableEntityLists } from '../filters/entity-list-access.js';
import { bumpFilterVersion } from '../corpus/filter-versions.store.js';
import { normalizeFilter, roleFilterValueErrors } from '../filters/filter.js';
import { asOf, closeGap, statusOf } from './beat-state.js';
import { BEAT_BACKFILL_JOB } from './beat-recording.js';
import type { Beat, Clause, ClauseInput, CreateBeatBody, ReplaceBeatBody } from './beats.schemas.js';
import { beatsStore as store, type BeatRow } from './beats.store.js';

export interface BeatsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  jobs: JobQueue;
}

const notFound = (id: string) => new ProblemError('not-found', `No beat with id ${id}.`);
const invalid = (errors: FieldError[]) => new ProblemError('validation-failed', 'The beat is not valid.', { errors });
const conflict = (detail: string) => new ProblemError('state-conflict', detail);

export const notEntitled = () => new ProblemError('not-entitled', 'This account has no beats entitlement.', { code: 'FORBIDDEN' });

/** 403 not-entitled unless the account has beats (locking the account row with `lock`); answers its plan. */
async function entitled(q: Queryable, accountId: string, lock = false): Promise<PlanRow> {
  const { beats, plan } = lock
    ? await lockAccount(q, accountId).then(({ entitlements, plan }) => ({ ...entitlements, plan }))
    : await accountAndPlan(q, accountId).then(({ account, plan }) => ({ ...account, plan }));
  if (!beats) throw notEntitled();
  return plan;
}

export function beatView(row: BeatRow, plan: PlanRow, now: Date): Beat {
  const beat = asOf(row, now);
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  return {
    id: beat.id,
    object: 'beat',
    name: beat.name,
    description: beat.description,
    status: statusOf(beat),
    enabled: beat.enabled,
    spend_cap_credits: beat.spend_cap_credits,
    spent_this_month: beat.spent_this_month,
    entries_this_month: beat.entries_this_month,
    last_entry_at: iso(beat.last_entry_at),
    retention_days: plan.retention_days,
    backfill_days: plan.backfill_days,
    clauses: beat.clauses,
    gaps: beat.gaps,
    created_at: beat.created_at.toISOString(),
    updated_at: beat.updated_at.toISOString(),
  };
}

/** A clause with every field, defaults filled in (the filter module's defaults). */
function completeClause(id: string, input: ClauseInput): Clause {
  const { id: _id, ...fields } = input;
  return { id, ...normalizeFilter(fields) };
}

export function beatsService({ db, clock, newId, jobs }: BeatsDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  /** The content rules a schema cannot state (400, pointing into the body). */
  async function checkClauses(clauses: readonly ClauseInput[], options: { create: boolean }): Promise<void> {
    const errors: FieldError[] = [];
    const types = await referenceStore.eventTypesWithRoles(db, [...new Set(clauses.flatMap((c) => (c.event_type_id ? [c.event_type_id] : [])))]);
    clauses.forEach((clause, i) => {
      const at = `/clauses/${i}`;
      if (options.create && clause.id !== undefined)
        errors.push({ pointer: `${at}/id`, detail: 'cannot be sent on create; clause ids are assigned by the service' });
      const named = (clause.involved_entity_ids?.length ?? 0) + (clause.involved_entity_list_ids?.length ?? 0);
      if (!clause.event_type_id && named === 0) errors.push({ pointer: at, detail: 'names no event type, so it must name at least one entity or entity list' });
      if (clause.event_type_id && !types.has(clause.event_type_id)) errors.push({ pointer: `${at}/event_type_id`, detail: 'names no event type' });
      const typeRoles = clause.event_type_id ? types.get(clause.event_type_id)?.codeNames : undefined;
      clause.role_filters?.forEach((rf, j) => {
        if (typeRoles && !typeRoles.has(rf.role_code_name))
          errors.push({ pointer: `${at}/role_filters/${j}/role_code_name`, detail: 'is not a role of the event type' });
      });
      errors.push(...roleFilterValueErrors(clause.role_filters, at));
      const represented = (clause.represented_entity_ids?.length ?? 0) + (clause.represented_entity_list_ids?.length ?? 0);
      if (clause.report_source_kind === 'REPRESENTED_ONLY' && represented === 0) {
        errors.push({ pointer: `${at}/report_source_kind`, detail: 'REPRESENTED_ONLY needs represented_entity_ids or represented_entity_list_ids' });
      }
      if (clause.report_source_kind !== 'REPRESENTED_ONLY' && represented > 0) {
        errors.push({ pointer: `${at}/report_source_kind`, detail: 'must be REPRESENTED_ONLY when represented entities are named' });
      }
    });
    if (errors.length > 0) throw invalid(errors);
  }

  async function checkLists(tx: Queryable, accountId: string, clauses: readonly ClauseInput[]): Promise<void> {
    const refused = await unusableEntityLists(
      tx,
      accountId,
      clauses.flatMap((clause, i) => entityListReferences(clause, `/clauses/${i}`)),
    );
    if (refused.length > 0) throw entityListsInaccessible(refused);
  }

  async function checkQuota(tx: Queryable, accountId: string, plan: PlanRow, clauses: number, replacing: string | null): Promise<void> {
    const usage = await store.usage(tx, accountId, replacing);
    if (replacing === null && usage.beats + 1 > plan.beats_max)
      throw new ProblemError('quota-exceeded', `The plan allows ${plan.beats_max} beats per account.`);
    if (usage.clauses + clauses > plan.clauses_max) {
      throw new ProblemError(
        'quota-exceeded',
        `The plan allows ${plan.clauses_max} clauses across the account's beats; this would make ${usage.clauses + clauses}.`,
      );
    }
  }

  /**
   * Runs a change on the account's beat, the account then the beat locked; 404 when it is not
   * the account's. `commitAnswer` stores the change's answer in its transaction.
   */
  function change(
    accountId: string,
    id: string,
    apply: (row: BeatRow, tx: Queryable, plan: PlanRow, now: Date) => Promise<BeatRow>,
    commitAnswer?: CommitAnswer<Beat>,
  ): Promise<Beat> {
    return db.transaction(async (tx) => {
      const plan = await entitled(tx, accountId, true);
      const locked = await store.get(tx, accountId, id, { lock: true });
      if (!locked) throw notFound(id);
      const now = clock.now();
      const next = await apply(asOf(locked, now), tx, plan, now);
      await store.update(tx, { ...next, updated_at: now });
      const answer = beatView({ ...next, updated_at: now }, plan, now);
      await commitAnswer?.(tx, answer, now);
      return answer;
    });
  }

  return {
    async create(accountId: string, body: CreateBeatBody, commitAnswer?: CommitAnswer<Beat>): Promise<Beat> {
      await checkClauses(body.clauses, { create: true });
      return db.transaction(async (tx) => {
        const plan = await entitled(tx, accountId, true);
        await checkLists(tx, accountId, body.clauses);
        await checkQuota(tx, accountId, plan, body.clauses.length, null);
        const now = clock.now();
        const row: BeatRow = {
          id: newId(),
          account_id: accountId,
          name: body.name,
          description: body.description ?? null,
          clauses: body.clauses.map((clause) => completeClause(newId(), clause)),
          enabled: true,
          paused: false,
          spend_cap_credits: body.spend_cap_credits ?? plan.default_spend_cap_credits,
          counters_month: monthStart(now),
          spent_this_month: 0,
          entries_this_month: 0,
          last_entry_at: null,
          gaps: [],
          created_at: now,
          updated_at: now,
        };
        await store.insert(tx, row);
        await bumpFilterVersion(tx, 'beats');
        await jobs.enqueue(tx, BEAT_BACKFILL_JOB, { beat_id: row.id });
        const answer = beatView(row, plan, now);
        await commitAnswer?.(tx, answer, now);
        return answer;
      });
    },

    async list(accountId: string) {
      const plan = await entitled(reads, accountId);
      const now = clock.now();
      const rows = await store.list(reads, accountId);
      return { object: 'list' as const, data: rows.map((row) => beatView(row, plan, now)), has_more: false as const, next_cursor: null };
    },

    /**
     * The names of the account's beats among `ids`, by id, for pages that name beats they
     * charged for (the ledger): read without the entitlement, which may since have been lost.
     */
    async names(accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      return new Map((await store.names(reads, accountId, ids)).map((row) => [row.id, row.name]));
    },

    async get(accountId: string, id: string): Promise<Beat> {
      const plan = await entitled(reads, accountId);
      const row = await store.get(reads, accountId, id);
      if (!row) throw notFound(id);
      return beatView(row, plan, clock.now());
    },

    /** Whole-shape replace of name, description and clauses (echoed clause ids are kept). */
    async replace(accountId: string, id: string, body: ReplaceBeatBody): Promise<Beat> {
      await checkClauses(body.clauses, { create: false });
      return change(accountId, id, async (row, tx, plan) => {
        const current = new Set(row.clauses.map((clause) => clause.id));
        const echoed = new Set<string>();
        const errors: FieldError[] = [];
        body.clauses.forEach((clause, i) => {
          if (clause.id === undefined) return;
          if (!current.has(clause.id)) errors.push({ pointer: `/clauses/${i}/id`, detail: "is not one of the beat's current clause ids" });
          else if (echoed.has(clause.id)) errors.push({ pointer: `/clauses/${i}/id`, detail: 'is given to more than one clause' });
          echoed.add(clause.id);
        });
        if (errors.length > 0) throw invalid(errors);
        await checkLists(tx, accountId, body.clauses);
        await checkQuota(tx, accountId, plan, body.clauses.length, row.id);
        const next: BeatRow = {
          ...row,
          name: body.name,
          description: body.description ?? null,
          clauses: body.clauses.map((clause) => completeClause(clause.id ?? newId(), clause)),
        };
        // Compared as stored: through JSON (where -0 is 0), and with deep equality, which ignores
        // member order (jsonb does not keep it).
        const stored = (clauses: Clause[]) => JSON.parse(JSON.stringify(clauses)) as unknown;
        const same = next.name === row.name && next.description === row.description && isDeepStrictEqual(stored(next.clauses), stored(row.clauses));
        if (same) throw conflict('The replace changes nothing.');
        await bumpFilterVersion(tx, 'beats');
        return next;
      });
    },

    async remove(accountId: string, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        await entitled(tx, accountId, true);
        const row = await store.get(tx, accountId, id, { lock: true });
        if (!row) throw notFound(id);
        await store.delete(tx, id);
        await bumpFilterVersion(tx, 'beats');
      });
    },

    /** Enable (ACTIVE afterwards) or disable (an open gap ends: disabled time is not a gap). */
    async setEnabled(accountId: string, id: string, enabled: boolean, commitAnswer?: CommitAnswer<Beat>): Promise<Beat> {
      return change(
        accountId,
        id,
        async (row, tx, _plan, now) => {
          if (row.enabled === enabled) throw conflict(`The beat is already ${enabled ? 'enabled' : 'disabled'}.`);
          await bumpFilterVersion(tx, 'beats');
          return enabled ? { ...row, enabled } : { ...closeGap(row, now), enabled };
        },
        commitAnswer,
      );
    },

    /** Resume after a spend-cap pause: the open gap ends now. */
    async resume(accountId: string, id: string, commitAnswer?: CommitAnswer<Beat>): Promise<Beat> {
      return change(
        accountId,
        id,
        async (row, _tx, _plan, now) => {
          if (!row.enabled) throw conflict('The beat is disabled; enable it instead.');
          if (!row.paused) throw conflict('The beat is not paused by its spend cap.');
          return closeGap(row, now);
        },
        commitAnswer,
      );
    },

    /** A new monthly cap; it does not resume a paused beat. */
    async setSpendCap(accountId: string, id: string, cap: number): Promise<Beat> {
      return change(accountId, id, async (row) => ({ ...row, spend_cap_credits: cap }));
    },
  };
}

export type BeatsService = ReturnType<typeof beatsService>;
