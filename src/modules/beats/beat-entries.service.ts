// Reading a beat's entries (v1 document, "Reading entries", Beat entries response;
// decisions.md, "Beats" and "Settled details"). Two modes: a window (newest first on one axis,
// with an exact count) and a poll (oldest first by the monotonic `seq`, so entries recorded in
// one millisecond are neither missed nor repeated). Positions are signed tokens bound to
// their beat: a poll token (`poll_since`) never expires, as clients persist it; a cursor is
// short-lived.
import type { Clock } from '../../platform/clock.js';
import type { CursorSigner } from '../../platform/cursors.js';
import type { Database } from '../../platform/db/database.js';
import { lastUtcDays, perDay } from '../../platform/day-series.js';
import { ProblemError, type FieldError } from '../../platform/problems.js';
import { storableInstant } from '../../platform/instants.js';
import { asOf, statusOf } from './beat-state.js';
import type { BeatEntries, BeatEntry, EntriesBody } from './beats.schemas.js';
import { beatEntriesStore as store, type EntryAxis, type EntryRow, type WindowPosition } from './beat-entries.store.js';
import { notEntitled } from './beats.service.js';
import { beatsStore } from './beats.store.js';
import { DAY_MS } from '../../platform/clock.js';

const DEFAULT_LIMIT = 20;
/** How long a `next_cursor` stays valid. */
export const ENTRY_CURSOR_TTL_MS = 3_600_000;
const LAST_MS = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS } as const;
const POLL_TOKEN = 'beat-poll';
const CURSOR = 'beat-entries';

type Read =
  | { mode: 'window'; axis: EntryAxis; fromMs: number; untilMs: number; after: { atMs: number; seq: number } | null; limit: number }
  | { mode: 'poll'; afterSeq: number; since: string; limit: number };

const invalid = (errors: FieldError[], detail = 'The entries read is not valid.') => new ProblemError('validation-failed', detail, { errors });
const MODE_MEMBERS = ['from', 'until', 'last', 'axis', 'since'] as const;

export interface BeatEntriesDeps {
  db: Database;
  clock: Clock;
  cursors: CursorSigner;
}

function entryView(row: EntryRow): BeatEntry {
  return {
    id: row.id,
    object: 'beat_entry',
    matched_clause_id: row.matched_clause_id,
    occurred_at: row.occurred_at.toISOString(),
    added_at: row.added_at.toISOString(),
    backfilled: row.backfilled,
    carried_from_event_id: row.carried_from_event_id,
    superseded_by_event_id: row.superseded_by_event_id,
    event: row.event_deleted ? null : { id: row.event_id, event_type: { code_name: row.code_name! }, sentence: row.sentence, happened_at: row.happened_at },
  };
}

export function beatEntriesService({ db: primary, clock, cursors }: BeatEntriesDeps) {
  const db = primary.reads; // it only reads, and takes no lock: a standby's reads when there are any
  /** The read a body asks for; every mistake is a 400 naming its member. Nothing is looked up. */
  function parse(beatId: string, body: EntriesBody): Read {
    if (body.cursor !== undefined) {
      const sent = MODE_MEMBERS.filter((member) => body[member] !== undefined);
      if (sent.length > 0)
        throw invalid(
          sent.map((member) => ({ pointer: `/${member}`, detail: 'cannot be sent with a cursor' })),
          'A continuation takes only `cursor` and `limit`.',
        );
      return readCursor(beatId, body.cursor, body.limit);
    }
    const limit = body.limit ?? DEFAULT_LIMIT;
    const windowed = body.from !== undefined || body.until !== undefined || body.last !== undefined;
    if (windowed && body.since !== undefined)
      throw invalid([{ pointer: '/since', detail: 'cannot be sent with a window (from/until or last)' }], 'A read takes exactly one mode.');
    if (body.since !== undefined) {
      if (body.axis !== undefined) throw invalid([{ pointer: '/axis', detail: 'is for window reads only' }]);
      return { mode: 'poll', afterSeq: body.since === '' ? 0 : readPollToken(beatId, body.since), since: body.since, limit };
    }
    if (!windowed) throw invalid([{ pointer: '', detail: 'needs one mode: from and until, last, since, or a cursor' }], 'A read takes exactly one mode.');
    const axis = body.axis ?? 'occurred_at';
    if (body.last !== undefined) {
      const extra = (['from', 'until'] as const).filter((member) => body[member] !== undefined);
      if (extra.length > 0) throw invalid(extra.map((member) => ({ pointer: `/${member}`, detail: 'cannot be sent with last' })));
      // The window ends now, now included (entries recorded at this instant are in it).
      const untilMs = clock.nowMs() + 1;
      return { mode: 'window', axis, fromMs: untilMs - 1 - LAST_MS[body.last], untilMs, after: null, limit };
    }
    if (body.from === undefined) throw invalid([{ pointer: '/from', detail: 'is required with until' }]);
    if (body.until === undefined) throw invalid([{ pointer: '/until', detail: 'is required with from' }]);
    for (const member of ['from', 'until'] as const) {
      if (!storableInstant(body[member]!)) throw invalid([{ pointer: `/${member}`, detail: 'is not a timestamp between the years 1 and 9999' }]);
    }
    const fromMs = Date.parse(body.from);
    const untilMs = Date.parse(body.until);
    if (fromMs >= untilMs) throw invalid([{ pointer: '/from', detail: 'must be before until' }]);
    return { mode: 'window', axis, fromMs, untilMs, after: null, limit };
  }

  function readPollToken(beatId: string, token: string): number {
    const payload = cursors.verify(POLL_TOKEN, token);
    if (payload === null || payload.b !== beatId || typeof payload.s !== 'number') {
      throw invalid([{ pointer: '/since', detail: 'is not a poll_since this service issued for this beat' }], 'The poll position is not valid.');
    }
    return payload.s;
  }

  function readCursor(beatId: string, token: string, limit: number | undefined): Read {
    const payload = cursors.verify(CURSOR, token);
    const bad = (detail: string) => invalid([{ pointer: '/cursor', detail }], 'The cursor is not valid.');
    if (payload === null || payload.b !== beatId) throw bad('is not a cursor this service issued for this beat');
    if (typeof payload.x !== 'number' || clock.nowMs() >= payload.x) throw bad('has expired; start the read again');
    const { m, l } = payload;
    const size = limit ?? (typeof l === 'number' ? l : DEFAULT_LIMIT);
    if (m === 'p' && typeof payload.s === 'number') return { mode: 'poll', afterSeq: payload.s, since: signPoll(beatId, payload.s), limit: size };
    const { a, f, u, p } = payload;
    if (
      m === 'w' &&
      (a === 'occurred_at' || a === 'added_at') &&
      typeof f === 'number' &&
      typeof u === 'number' &&
      Array.isArray(p) &&
      p.every((v) => typeof v === 'number')
    ) {
      return { mode: 'window', axis: a, fromMs: f, untilMs: u, after: { atMs: p[0] as number, seq: p[1] as number }, limit: size };
    }
    throw bad('is not a cursor this service issued for this beat');
  }

  const signPoll = (beatId: string, seq: number) => cursors.sign(POLL_TOKEN, { b: beatId, s: seq });

  /** The account's beat to read entries of (403 without the entitlement, 404 when it is not the account's), and from when entries are retained. */
  async function readable(accountId: string, beatId: string) {
    const found = await beatsStore.forRead(db, accountId, beatId);
    if (!found.entitled) throw notEntitled();
    if (!found.beat) throw new ProblemError('not-found', `No beat with id ${beatId}.`);
    const now = clock.now();
    return { beat: found.beat, now, retainedFrom: new Date(now.getTime() - found.retentionDays * DAY_MS), retentionDays: found.retentionDays };
  }

  return {
    async read(accountId: string, pathId: string, body: EntriesBody): Promise<BeatEntries> {
      // Tokens are bound to the beat's id as stored (lower case), whatever case the path used.
      const beatId = pathId.toLowerCase();
      const read = parse(beatId, body);
      const { beat: stored, retainedFrom, now } = await readable(accountId, beatId);
      const beat = asOf(stored, now);
      const expires = now.getTime() + ENTRY_CURSOR_TTL_MS;
      const page = { object: 'beat_entries' as const, beat: { id: beat.id, status: statusOf(beat), gaps: beat.gaps } };

      if (read.mode === 'poll') {
        const rows = await store.poll(db, beatId, read.afterSeq, retainedFrom, read.limit + 1);
        const shown = rows.slice(0, read.limit);
        const last = shown[shown.length - 1];
        const hasMore = rows.length > read.limit;
        return {
          ...page,
          data: shown.map(entryView),
          has_more: hasMore,
          next_cursor: hasMore ? cursors.sign(CURSOR, { b: beatId, m: 'p', s: last!.seq, l: read.limit, x: expires }) : null,
          // Nothing new: the position comes back unchanged.
          poll_since: last ? signPoll(beatId, last.seq) : read.since,
          total_count: null,
        };
      }

      // A window reaching back past retention is clamped to it, on its own axis.
      const from = new Date(Math.max(read.fromMs, retainedFrom.getTime()));
      const until = new Date(read.untilMs);
      const rows = from < until ? await store.window(db, beatId, read.axis, from, until, read.after, read.limit + 1) : [];
      const total = from < until ? await store.windowCount(db, beatId, read.axis, from, until) : 0;
      const shown = rows.slice(0, read.limit);
      const last = shown[shown.length - 1];
      const hasMore = rows.length > read.limit;
      const position = (entry: EntryRow) => [(read.axis === 'added_at' ? entry.added_at : entry.occurred_at).getTime(), entry.seq];
      return {
        ...page,
        data: shown.map(entryView),
        has_more: hasMore,
        next_cursor: hasMore
          ? cursors.sign(CURSOR, { b: beatId, m: 'w', a: read.axis, f: read.fromMs, u: read.untilMs, p: position(last!), l: read.limit, x: expires })
          : null,
        poll_since: null,
        total_count: total,
      };
    },

    /**
     * The console's pages of a beat's retained entries, newest recorded first: the newest page,
     * or the page just older or just newer than a position (an entry's added_at and seq). A
     * position only says where a page starts, so it travels in the clear; the beat is checked
     * to be the account's like any read.
     */
    async browse(accountId: string, pathId: string, at: { older?: WindowPosition; newer?: WindowPosition }, limit: number): Promise<EntriesPage> {
      const beatId = pathId.toLowerCase();
      const { now, retainedFrom, retentionDays } = await readable(accountId, beatId);
      const until = new Date(now.getTime() + 1); // now included, as with `last`
      const position = (entry: EntryRow): WindowPosition => ({ atMs: entry.added_at.getTime(), seq: entry.seq });
      const total = await store.windowCount(db, beatId, 'added_at', retainedFrom, until);
      const reading = at.newer ? 'newer' : 'older';
      const from = at.newer ?? at.older ?? null;
      const rows = await store.window(db, beatId, 'added_at', retainedFrom, until, from, limit + 1, reading);
      const more = rows.length > limit;
      // A newer page is read oldest first; turned round, it is newest first like every page.
      const shown = reading === 'newer' ? rows.slice(0, limit).reverse() : rows.slice(0, limit);
      const first = shown[0];
      const last = shown[shown.length - 1];
      return {
        entries: shown.map(entryView),
        total,
        retentionDays,
        // Reading newer, what lies older is where we came from; reading older from a position, so is what lies newer.
        newer: first && (reading === 'newer' ? more : from !== null) ? position(first) : null,
        older: last && (reading === 'older' ? more : true) ? position(last) : null,
      };
    },

    /** Entries recorded on each of the last `days` UTC days, today (the clock's) included. */
    async recordedPerDay(accountId: string, pathId: string, days: number) {
      const beatId = pathId.toLowerCase();
      await readable(accountId, beatId);
      const range = lastUtcDays(clock.now(), days);
      const rows = await store.addedByDay(db, beatId, range.from, range.until);
      return { days: range.days, entries: perDay(range, rows, (row) => row.entries) };
    },
  };
}

/** A page of the console's entries list, with the positions of the pages either side (null at either end). */
export interface EntriesPage {
  entries: BeatEntry[];
  total: number;
  retentionDays: number;
  newer: WindowPosition | null;
  older: WindowPosition | null;
}

export type BeatEntriesService = ReturnType<typeof beatEntriesService>;
