// SQL for beat entries (migration 005): recording, merges, and the two read orders.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';

export interface NewEntry {
  id: string;
  beatId: string;
  eventId: string;
  clauseId: string;
  occurredAt: Date;
  backfilled: boolean;
  carriedFromEventId: string | null;
}

/** An entry to record, if its beat records and can pay for it. */
export type Candidate = Omit<NewEntry, 'id'>;

export interface EntryRow {
  seq: number;
  id: string;
  matched_clause_id: string;
  occurred_at: Date;
  added_at: Date;
  backfilled: boolean;
  carried_from_event_id: string | null;
  superseded_by_event_id: string | null;
  event_id: string;
  code_name: string | null;
  sentence: string | null;
  happened_at: string | null;
  event_deleted: boolean;
}

export type EntryAxis = 'occurred_at' | 'added_at';

/** Where a window read stands: entries strictly before this (axis value, seq), newest first. */
export interface WindowPosition {
  atMs: number;
  seq: number;
}

const ENTRY_COLUMNS = `be.seq, be.id, be.matched_clause_id, be.occurred_at, be.added_at, be.backfilled, be.carried_from_event_id, be.superseded_by_event_id,
       be.event_id, t.code_name, e.sentence, e.happened_at, e.deleted_at IS NOT NULL AS event_deleted`;
const ENTRY_JOINS = 'JOIN events e ON e.id = be.event_id JOIN event_types t ON t.id = e.event_type_id';
// The axis is one of two column names, never client text.
const column = (axis: EntryAxis) => (axis === 'added_at' ? 'be.added_at' : 'be.occurred_at');

export const beatEntriesStore = {
  /** Inserts entries in the given order (their seq follows it); the caller holds the account's and beats' locks. */
  async insert(tx: Queryable, entries: readonly NewEntry[], addedAt: Date) {
    if (entries.length === 0) return;
    await tx.query(
      `INSERT INTO beat_entries (id, beat_id, event_id, matched_clause_id, occurred_at, added_at, backfilled, carried_from_event_id)
       SELECT id, beat, event, clause, occurred, $7, backfilled, carried
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::boolean[], $8::uuid[])
              WITH ORDINALITY AS t(id, beat, event, clause, occurred, backfilled, carried, n)
        ORDER BY n`,
      [
        entries.map((e) => e.id),
        entries.map((e) => e.beatId),
        entries.map((e) => e.eventId),
        entries.map((e) => e.clauseId),
        entries.map((e) => e.occurredAt),
        entries.map((e) => e.backfilled),
        addedAt,
        entries.map((e) => e.carriedFromEventId),
      ],
    );
  },

  /** "beat:event" for the entries that exist among these beats and events. */
  async existing(db: Queryable, beatIds: readonly string[], eventIds: readonly string[]): Promise<Set<string>> {
    if (beatIds.length === 0 || eventIds.length === 0) return new Set();
    const rows = await db.query<{ beat_id: string; event_id: string }>(
      'SELECT beat_id, event_id FROM beat_entries WHERE event_id = ANY($1::uuid[]) AND beat_id = ANY($2::uuid[])',
      [eventIds, beatIds],
    );
    return new Set(rows.map((row) => `${row.beat_id}:${row.event_id}`));
  },

  /** The entries of an event, with their beats' accounts. */
  ofEvent(db: Queryable, eventId: string) {
    return db.query<{ beat_id: string; account_id: string; matched_clause_id: string }>(
      'SELECT be.beat_id, b.account_id, be.matched_clause_id FROM beat_entries be JOIN beats b ON b.id = be.beat_id WHERE be.event_id = $1 ORDER BY be.seq',
      [eventId],
    );
  },

  /**
   * Per (beat, survivor), the beat's first entry of an event merged into the survivor: what a
   * match on the survivor carries (free) rather than records afresh, whichever of the merge's
   * jobs runs first. Of these beats and survivors (every pair of them).
   */
  carriable(db: Queryable, beatIds: readonly string[], survivorIds: readonly string[]) {
    if (beatIds.length === 0 || survivorIds.length === 0) return Promise.resolve([]);
    return db.query<{ beat_id: string; survivor_id: string; event_id: string; matched_clause_id: string }>(
      `SELECT DISTINCT ON (be.beat_id, e.merged_into_event_id) be.beat_id, e.merged_into_event_id AS survivor_id, be.event_id, be.matched_clause_id
         FROM beat_entries be JOIN events e ON e.id = be.event_id
        WHERE e.merged_into_event_id = ANY($1::uuid[]) AND be.beat_id = ANY($2::uuid[])
        ORDER BY be.beat_id, e.merged_into_event_id, be.seq`,
      [survivorIds, beatIds],
    );
  },

  /** Of these events, those merged away since. */
  async mergedAway(db: Queryable, eventIds: readonly string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const rows = await db.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[]) AND merged_into_event_id IS NOT NULL', [eventIds]);
    return rows.map((row) => row.id);
  },

  /** The live event a merged-away event's reports are in now (merges rewrite earlier ones' pointers); null when it was not merged or its survivor is deleted. */
  async survivorOf(db: Queryable, eventId: string): Promise<string | null> {
    const row = await queryOne<{ id: string }>(
      db,
      `SELECT s.id FROM events e JOIN events s ON s.id = e.merged_into_event_id WHERE e.id = $1 AND s.merged_into_event_id IS NULL AND s.deleted_at IS NULL`,
      [eventId],
    );
    return row?.id ?? null;
  },

  /** A merged event's entries now name their survivor. */
  supersede(db: Queryable, eventId: string, survivorId: string) {
    return db.query('UPDATE beat_entries SET superseded_by_event_id = $2 WHERE event_id = $1 AND superseded_by_event_id IS NULL', [eventId, survivorId]);
  },

  /** Poll order: the entries after `afterSeq`, oldest first, added at or after `addedFrom`. */
  poll(db: Queryable, beatId: string, afterSeq: number, addedFrom: Date, limit: number) {
    return db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM beat_entries be ${ENTRY_JOINS}
        WHERE be.beat_id = $1 AND be.seq > $2 AND be.added_at >= $3
        ORDER BY be.seq LIMIT $4`,
      [beatId, afterSeq, addedFrom, limit],
    );
  },

  /**
   * Window order: entries with the axis in [from, until), before `after`, newest first. Read
   * `newer`, the entries after `after` instead, oldest first (the page before, for the console).
   */
  window(
    db: Queryable,
    beatId: string,
    axis: EntryAxis,
    from: Date,
    until: Date,
    after: WindowPosition | null,
    limit: number,
    direction: 'older' | 'newer' = 'older',
  ) {
    const col = column(axis);
    const [compare, order] = direction === 'older' ? ['<', 'DESC'] : ['>', 'ASC'];
    const params: unknown[] = [beatId, from, until, limit];
    const position = after ? ` AND (${col}, be.seq) ${compare} ($5, $6)` : '';
    if (after) params.push(new Date(after.atMs), after.seq);
    return db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM beat_entries be ${ENTRY_JOINS}
        WHERE be.beat_id = $1 AND ${col} >= $2 AND ${col} < $3${position}
        ORDER BY ${col} ${order}, be.seq ${order} LIMIT $4`,
      params,
    );
  },

  /** Entries recorded in [from, until), per UTC day of `added_at` (days without any left out). */
  addedByDay(db: Queryable, beatId: string, from: Date, until: Date) {
    return db.query<{ day: string; entries: number }>(
      `SELECT to_char(added_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS entries
         FROM beat_entries WHERE beat_id = $1 AND added_at >= $2 AND added_at < $3 GROUP BY 1`,
      [beatId, from, until],
    );
  },

  async windowCount(db: Queryable, beatId: string, axis: EntryAxis, from: Date, until: Date) {
    const col = column(axis);
    const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM beat_entries be WHERE be.beat_id = $1 AND ${col} >= $2 AND ${col} < $3`, [
      beatId,
      from,
      until,
    ]);
    return row?.n ?? 0;
  },

  /** What `occurred_at` is read from, for these events. */
  eventTimes(db: Queryable, eventIds: readonly string[]) {
    return db.query<{ id: string; happened_at: string | null; first_report_date: Date }>(
      'SELECT id, happened_at, first_report_date FROM events WHERE id = ANY($1::uuid[])',
      [eventIds],
    );
  },
};
