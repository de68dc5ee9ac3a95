// SQL for beats (migration 005). Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import type { Clause } from './beats.schemas.js';

export interface Gap {
  from: string;
  until: string | null;
}

export interface BeatRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  clauses: Clause[];
  enabled: boolean;
  paused: boolean;
  spend_cap_credits: number;
  counters_month: Date;
  spent_this_month: number;
  entries_this_month: number;
  last_entry_at: Date | null;
  gaps: Gap[];
  created_at: Date;
  updated_at: Date;
}

/** What recording reads and moves: the beat's state and counters, not its clauses. */
export type BeatState = Pick<
  BeatRow,
  'id' | 'account_id' | 'enabled' | 'paused' | 'spend_cap_credits' | 'counters_month' | 'spent_this_month' | 'entries_this_month' | 'last_entry_at' | 'gaps'
>;
const STATE_COLUMNS = 'id, account_id, enabled, paused, spend_cap_credits, counters_month, spent_this_month, entries_this_month, last_entry_at, gaps';

const COLUMNS =
  'id, account_id, name, description, clauses, enabled, paused, spend_cap_credits, counters_month, spent_this_month, entries_this_month, last_entry_at, gaps, created_at, updated_at';

export const beatsStore = {
  insert(tx: Queryable, row: BeatRow) {
    return tx.query(`INSERT INTO beats (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
      row.id,
      row.account_id,
      row.name,
      row.description,
      JSON.stringify(row.clauses),
      row.enabled,
      row.paused,
      row.spend_cap_credits,
      row.counters_month,
      row.spent_this_month,
      row.entries_this_month,
      row.last_entry_at,
      JSON.stringify(row.gaps),
      row.created_at,
      row.updated_at,
    ]);
  },

  /** Writes every mutable column. */
  update(tx: Queryable, row: BeatRow) {
    return tx.query(
      `UPDATE beats SET name = $2, description = $3, clauses = $4, enabled = $5, paused = $6, spend_cap_credits = $7, counters_month = $8,
              spent_this_month = $9, entries_this_month = $10, last_entry_at = $11, gaps = $12, updated_at = $13
        WHERE id = $1`,
      [
        row.id,
        row.name,
        row.description,
        JSON.stringify(row.clauses),
        row.enabled,
        row.paused,
        row.spend_cap_credits,
        row.counters_month,
        row.spent_this_month,
        row.entries_this_month,
        row.last_entry_at,
        JSON.stringify(row.gaps),
        row.updated_at,
      ],
    );
  },

  /** Writes what recording moves, for several beats in one statement. */
  updateCounters(tx: Queryable, rows: readonly BeatState[]) {
    if (rows.length === 0) return;
    return tx.query(
      `UPDATE beats b SET paused = u.paused, counters_month = u.month, spent_this_month = u.spent, entries_this_month = u.entries,
              last_entry_at = u.last, gaps = u.gaps
         FROM unnest($1::uuid[], $2::boolean[], $3::timestamptz[], $4::bigint[], $5::int[], $6::timestamptz[], $7::jsonb[])
              AS u(id, paused, month, spent, entries, last, gaps)
        WHERE b.id = u.id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.paused),
        rows.map((r) => r.counters_month),
        rows.map((r) => r.spent_this_month),
        rows.map((r) => r.entries_this_month),
        rows.map((r) => r.last_entry_at),
        rows.map((r) => JSON.stringify(r.gaps)),
      ],
    );
  },

  /** The account's beat (locked for the transaction with `lock`); another account's reads as missing. */
  get(db: Queryable, accountId: string, id: string, options: { lock?: boolean } = {}) {
    return queryOne<BeatRow>(db, `SELECT ${COLUMNS} FROM beats WHERE id = $1 AND account_id = $2${options.lock ? ' FOR UPDATE' : ''}`, [id, accountId]);
  },

  /**
   * What an entries read needs, in one statement: whether the account has beats, its plan's
   * retention, and its beat's state (null when the account has no such beat).
   */
  async forRead(db: Queryable, accountId: string, id: string) {
    const row = await queryOne<{ entitled: boolean; retention_days: number; beat: BeatState | null }>(
      db,
      `SELECT a.beats AS entitled, p.retention_days,
              (SELECT to_jsonb(s) FROM (SELECT ${STATE_COLUMNS} FROM beats WHERE id = $2 AND account_id = a.id) s) AS beat
         FROM accounts a JOIN plans p ON p.name = a.plan WHERE a.id = $1`,
      [accountId, id],
    );
    if (!row) throw new Error(`account ${accountId} does not exist`);
    const beat = row.beat && {
      ...row.beat,
      counters_month: new Date(row.beat.counters_month),
      last_entry_at: row.beat.last_entry_at && new Date(row.beat.last_entry_at),
    };
    return { entitled: row.entitled, retentionDays: row.retention_days, beat };
  },

  byId(db: Queryable, id: string) {
    return queryOne<BeatRow>(db, `SELECT ${COLUMNS} FROM beats WHERE id = $1`, [id]);
  },

  /**
   * For recording: these beats locked in id order (one order for every locker, so two never
   * deadlock), each with its current clause ids and those of `eventIds` it has an entry for;
   * and which of `eventIds` are live (neither merged away nor deleted). One statement.
   */
  async lockForRecording(tx: Queryable, ids: readonly string[], eventIds: readonly string[]) {
    const rows = await tx.query<BeatState & { recorded: string[]; clause_ids: string[]; live_events: string[] }>(
      `SELECT ${STATE_COLUMNS},
              ARRAY(SELECT be.event_id FROM beat_entries be WHERE be.beat_id = beats.id AND be.event_id = ANY($2::uuid[])) AS recorded,
              ARRAY(SELECT c->>'id' FROM jsonb_array_elements(beats.clauses) c) AS clause_ids,
              ARRAY(SELECT e.id FROM events e WHERE e.id = ANY($2::uuid[]) AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL) AS live_events
         FROM beats WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE OF beats`,
      [ids, eventIds],
    );
    return {
      beats: rows.map(({ recorded, clause_ids, live_events: _live, ...state }) => ({ state, recorded, clauseIds: new Set(clause_ids) })),
      liveEvents: new Set(rows[0]?.live_events ?? []),
    };
  },

  /** The names of those of `ids` that are the account's beats (a deleted beat has none). */
  names(db: Queryable, accountId: string, ids: readonly string[]) {
    return db.query<{ id: string; name: string }>('SELECT id, name FROM beats WHERE account_id = $1 AND id = ANY($2::uuid[])', [accountId, ids]);
  },

  list(db: Queryable, accountId: string) {
    return db.query<BeatRow>(`SELECT ${COLUMNS} FROM beats WHERE account_id = $1 ORDER BY id DESC`, [accountId]);
  },

  delete(tx: Queryable, id: string) {
    return tx.query('DELETE FROM beats WHERE id = $1', [id]);
  },

  /** What the plan's quotas count: the account's beats and their clauses (`except` one being replaced). */
  async usage(tx: Queryable, accountId: string, except: string | null = null) {
    const row = await queryOne<{ beats: number; clauses: number }>(
      tx,
      `SELECT count(*)::int AS beats, COALESCE(sum(jsonb_array_length(clauses)), 0)::int AS clauses
         FROM beats WHERE account_id = $1 AND id IS DISTINCT FROM $2::uuid`,
      [accountId, except],
    );
    return row ?? { beats: 0, clauses: 0 };
  },

  /** Every enabled beat's clauses, for the matching index. */
  enabledClauses(db: Queryable) {
    return db.query<{ id: string; account_id: string; clauses: Clause[] }>('SELECT id, account_id, clauses FROM beats WHERE enabled');
  },
};
