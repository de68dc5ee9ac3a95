// The fingerprints of the reports received lately, kept in memory by each process for copy
// detection (decisions.md: a copy of a report received in the previous 30 days). It holds
// every fingerprinted report received within a span of receive times, as committed, and is
// brought up to date under copy detection's lock (ingestLocksStore.lockCopies) before each use: the
// reports written since it last looked are read by receive sequence value, and a span it does
// not cover yet is read by receive time. Every writer of a fingerprinted report holds that
// lock until it commits, so what it holds is exactly what the database holds. Each is filed
// under the entities its report names too, so that a text naming entities is looked up among
// the reports naming them (copied's `naming`).
import { DAY_MS } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import type { TextShingles } from './copy-fingerprint.js';
import { copiesStore, type FingerprintRow } from './copies.store.js';
import { receivedUpTo } from './event-view.js';
import { type CopyCandidate, FingerprintTable, type HeldFingerprint } from './fingerprint-table.js';

/** A copy is of a report stored before it and received at most this long apart from it. */
const COPY_WINDOW_MS = 30 * DAY_MS;
/** Receive times kept beyond a window before the oldest are let go (a backfill moving forward keeps going). */
const SLACK_MS = 15 * DAY_MS;

/** The table copies a fingerprint into its own arrays: a Buffer (a Uint8Array) read from the hex is enough. */
const fromHex = (hex: string): Uint8Array => Buffer.from(hex, 'hex');

/** The group of the reports that name no entity: looked up by every text. */
const NAMING_NONE = 0;

export class RecentCopies {
  private table = new FingerprintTable<string>();
  /**
   * The table's groups (FingerprintTable.copiedIn): the entities the reports name, by number
   * (from 1), a report filed under each of its own; one that names none under NAMING_NONE.
   */
  private entityNumbers = new Map<string, number>();
  /** The span of receive times held, [from, to). */
  private from = 0;
  private to = 0;
  /** Every fingerprinted report at or below this receive sequence value is held (when in the span); -1: nothing read yet. */
  private upTo = -1;

  /**
   * Brings the fingerprints up to date for texts received in [fromMs, toMs] (their windows):
   * call it under ingestLocksStore.lockCopies, in the transaction that then writes.
   */
  async catchUp(tx: Queryable, fromMs: number, toMs: number): Promise<void> {
    const wantFrom = fromMs - COPY_WINDOW_MS;
    const wantTo = toMs + COPY_WINDOW_MS + 1;
    // Under the lock no fingerprinted report is being written: every one at or below the last
    // value handed out is committed (or never will be).
    const upTo = await receivedUpTo(tx);
    if (this.upTo < 0) {
      this.load(await copiesStore.receivedBetween(tx, wantFrom, wantTo));
      Object.assign(this, { from: wantFrom, to: wantTo, upTo });
      return;
    }
    if (upTo > this.upTo) {
      const written = await copiesStore.writtenBetween(tx, this.upTo, upTo);
      this.load(written.filter((row) => row.received_ms >= this.from && row.received_ms < this.to));
      this.upTo = upTo;
    }
    if (wantFrom < this.from) {
      this.load(await copiesStore.receivedBetween(tx, wantFrom, this.from));
      this.from = wantFrom;
    }
    if (wantTo > this.to) {
      this.load(await copiesStore.receivedBetween(tx, this.to, wantTo));
      this.to = wantTo;
    }
    // Let the oldest go once the span outgrows the window and its slack, keeping what is wanted now.
    if (this.to - this.from > COPY_WINDOW_MS + 2 * SLACK_MS && wantFrom - this.from > SLACK_MS) {
      const keepFrom = wantFrom;
      // The entities numbered anew: only those the reports kept name keep a number.
      const named = [...this.entityNumbers.keys()];
      this.entityNumbers = new Map();
      this.table = this.table.filtered(
        (entry) => entry.receivedMs >= keepFrom,
        (group) => (group === NAMING_NONE ? group : this.entityNumber(named[group - 1]!)),
      );
      this.from = keepFrom;
    }
  }

  /**
   * The reports the text copies among those received within 30 days of `receivedMs` (held
   * since catchUp). With `naming` (entity ids: those the text's entities stand for,
   * copiesStore.standingFor), only among the reports that name one of them or name none: of
   * the rest, none could be joined (copy-detection.ts, namesShared), and a text's look-up then
   * visits a few reports where its stock phrases' keys hold thousands.
   */
  copied(text: TextShingles, receivedMs: number, naming?: readonly string[]): CopyCandidate<string>[] {
    const eligible = (entry: HeldFingerprint<string>) => withinWindow(entry.receivedMs, receivedMs);
    if (naming === undefined) return this.table.copied(text, eligible);
    const groups = new Set([NAMING_NONE]);
    for (const id of naming) {
      const number = this.entityNumbers.get(id);
      if (number !== undefined) groups.add(number);
    }
    // The same answer either way: by the groups, or by the keys keeping those filed under one.
    if (this.table.cheaperIn(text, groups)) return this.table.copiedIn(text, groups, eligible);
    return this.table.copied(text, (entry) => eligible(entry) && entry.groups!.some((group) => groups.has(group)));
  }

  private load(rows: readonly FingerprintRow[]): void {
    for (const row of rows) {
      this.table.add({
        ref: row.id,
        receivedMs: row.received_ms,
        order: row.received_seq,
        fingerprint: fromHex(row.fingerprint),
        groups: row.entity_ids.length === 0 ? [NAMING_NONE] : row.entity_ids.map((id) => this.entityNumber(id)),
      });
    }
  }

  private entityNumber(id: string): number {
    let number = this.entityNumbers.get(id);
    if (number === undefined) {
      number = this.entityNumbers.size + 1;
      this.entityNumbers.set(id, number);
    }
    return number;
  }
}

/**
 * Was a report stored before, received at `earlierMs`, in the 30 days of one received at
 * `receivedMs`? Stored first, it was received first; its receive time, as its source gave it,
 * may still be a few minutes later (crawlers' clocks and queues differ), so either side counts.
 */
export const withinWindow = (earlierMs: number, receivedMs: number): boolean => Math.abs(earlierMs - receivedMs) <= COPY_WINDOW_MS;
