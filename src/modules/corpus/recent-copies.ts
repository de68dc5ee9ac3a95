// The fingerprints of the reports received lately, kept in memory by each process for copy
// detection (decisions.md: a copy of a report received in the previous 30 days). It holds
// every fingerprinted report received within a span of receive times, as committed, and is
// brought up to date under copy detection's lock (ingestLocksStore.lockCopies) before each use: the
// reports written since it last looked are read by receive sequence value, and a span it does
// not cover yet is read by receive time. Every writer of a fingerprinted report holds that
// lock until it commits, so what it holds is exactly what the database holds.
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

/** A stored report's fingerprint, as the table holds it. */
const heldOf = (row: FingerprintRow): HeldFingerprint<string> => ({
  ref: row.id,
  receivedMs: row.received_ms,
  order: row.received_seq,
  fingerprint: fromHex(row.fingerprint),
});

/** Look-aheads fed at once: a loader looks one batch ahead while one is written. */
const MOST_AHEAD = 2;

/**
 * A batch's copy look-ups made ahead of its transaction (RecentCopies.lookAhead), while the
 * batch before it is written: each text's candidates among the fingerprints held then, and
 * every fingerprint held since, which its transaction looks the texts up in after catching up
 * (RecentCopies.copied). A candidate is judged by its own fingerprint alone, so the two
 * together find what one look-up after catching up finds; at ten million events' density the
 * look-ups are a seventh of the loader's thread, and ahead they run while it waits for the
 * database (bench/RESULTS.md, "A compact corpus, fourteenth step").
 */
export class CopiesAhead {
  /** Each text's candidates among the fingerprints held when it was looked up, whatever their receive time. */
  readonly found = new Map<TextShingles, CopyCandidate<string>[]>();
  /** The fingerprints held since the look-ahead began. */
  readonly since = new FingerprintTable<string>();
  /** Not fed (begun before the first catch-up, or let go when more than MOST_AHEAD began): its texts are looked up anew. */
  dropped = false;

  constructor(private readonly ending: (ahead: CopiesAhead) => void) {}

  /** Its batch has looked its texts up, or will not be ingested: it is fed no more. */
  end(): void {
    this.ending(this);
  }
}

export class RecentCopies {
  private table = new FingerprintTable<string>();
  /** The look-aheads begun and not ended, oldest first: each is fed what is held from now on. */
  private readonly aheads: CopiesAhead[] = [];
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
      this.table = this.table.filtered((entry) => entry.receivedMs >= keepFrom);
      this.from = keepFrom;
    }
  }

  /**
   * The reports the text copies among those received within 30 days of `receivedMs` (held since
   * catchUp); with `ahead`, from its look-up of the text and the fingerprints held since.
   */
  copied(text: TextShingles, receivedMs: number, ahead?: CopiesAhead): CopyCandidate<string>[] {
    const eligible = (entry: HeldFingerprint<string>) => withinWindow(entry.receivedMs, receivedMs);
    const before = ahead && !ahead.dropped ? ahead.found.get(text) : undefined;
    if (!before) return this.table.copied(text, eligible);
    // A fingerprint may be held twice: when the text was looked up and read again since, or
    // let go and read again since (a span moving back and forth). Each counts once.
    const refs = new Set<string>();
    return [...before, ...ahead!.since.copied(text, () => true)].filter((candidate) => {
      if (!eligible(candidate.held) || refs.has(candidate.held.ref)) return false;
      refs.add(candidate.held.ref);
      return true;
    });
  }

  /** Begins a look-ahead for a batch: from now on, every fingerprint held is fed to it too, until endAhead. */
  beginAhead(): CopiesAhead {
    const ahead = new CopiesAhead((ended) => this.endAhead(ended));
    // Nothing is held before the first catch-up, which reads the whole window: its batch looks up once, after it.
    if (this.upTo < 0) {
      ahead.dropped = true;
      return ahead;
    }
    this.aheads.push(ahead);
    if (this.aheads.length > MOST_AHEAD) this.aheads.shift()!.dropped = true;
    return ahead;
  }

  /** Looks the text up among the fingerprints held now, for its batch's transaction to complete (copied). */
  lookAhead(ahead: CopiesAhead, text: TextShingles): void {
    if (!ahead.dropped)
      ahead.found.set(
        text,
        this.table.copied(text, () => true),
      );
  }

  private endAhead(ahead: CopiesAhead): void {
    const at = this.aheads.indexOf(ahead);
    if (at >= 0) this.aheads.splice(at, 1);
  }

  private load(rows: readonly FingerprintRow[]): void {
    for (const row of rows) {
      const held = heldOf(row);
      this.table.add(held);
      for (const ahead of this.aheads) ahead.since.add(held);
    }
  }
}

/**
 * Was a report stored before, received at `earlierMs`, in the 30 days of one received at
 * `receivedMs`? Stored first, it was received first; its receive time, as its source gave it,
 * may still be a few minutes later (crawlers' clocks and queues differ), so either side counts.
 */
export const withinWindow = (earlierMs: number, receivedMs: number): boolean => Math.abs(earlierMs - receivedMs) <= COPY_WINDOW_MS;
