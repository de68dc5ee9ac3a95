// Copy detection at ingest (decisions.md, "independent sources"): the report a new article's
// text copies among the reports stored before it and received within 30 days of it, for a
// bulk batch, against the corpus and against its own earlier lines (BatchCopies), and for the
// single path as a batch of one (findCopy): the same answer as one by one. The caller holds copy detection's lock
// (ingestLocksStore.lockCopies). The method is copy-fingerprint.ts's.
import type { Queryable } from '../../platform/db/database.js';
import type { TextShingles } from './copy-fingerprint.js';
import { copiesStore, type CopiedReport, originKey } from './copies.store.js';
import { bestCandidate, type CopyCandidate, FingerprintTable } from './fingerprint-table.js';
import type { RecentCopies } from './recent-copies.js';
import { withinWindow } from './recent-copies.js';

/** A stored report a new text copies: its event and group, and the group's origin in that event. */
export interface FoundCopy {
  copied: CopiedReport;
  /** The origin of the group among its reports in the copied report's event, before the copy joins. */
  originId: string;
}

/** The stored report `text` (received at `receivedAt`) copies, or null: a batch of one line. */
export async function findCopy(tx: Queryable, copies: RecentCopies, text: TextShingles, receivedAt: Date): Promise<FoundCopy | null> {
  const line = { line: 0, text, receivedAt };
  const judged = (await BatchCopies.open(tx, copies, [line])).judge(line);
  if (judged === null || !('stored' in judged)) return null; // no line was placed before it
  const copied = judged.stored;
  const origin = (await copiesStore.origins(tx, [{ eventId: copied.event_id, group: copied.copy_group }])).get(originKey(copied.event_id, copied.copy_group));
  return { copied, originId: origin?.id ?? copied.id };
}

/** What a line of a batch copies: a stored report, or an earlier line of the batch. */
export type BatchCopy<Line> = { stored: CopiedReport } | { line: Line };

/** A line of a batch with a text. */
export interface TextLine<Line> {
  line: Line;
  text: TextShingles;
  receivedAt: Date;
}

/**
 * Copy detection over a batch, line by line in order: each text against the corpus (memory
 * brought up to date once for the whole batch, the stored candidates read at once, and those
 * no longer stored left out: memory may hold the fingerprint of a report its own transaction
 * wrote and a savepoint took back) and against
 * the batch's earlier stored lines, the best of both as the single path finds it one line at a
 * time (stored reports were received before any line).
 */
export class BatchCopies<Line> {
  /** The batch's lines placed so far, made at the first (a table's index is 320 KB: a single call places none). */
  private lines: FingerprintTable<Line> | null = null;
  private placedLines = 0;

  private constructor(
    private readonly storedOf: ReadonlyMap<Line, CopyCandidate<string>[]>,
    private readonly rows: ReadonlyMap<string, CopiedReport>,
  ) {}

  static async open<Line>(tx: Queryable, copies: RecentCopies, lines: readonly TextLine<Line>[]): Promise<BatchCopies<Line>> {
    if (lines.length === 0) return new BatchCopies(new Map(), new Map());
    const times = lines.map((l) => l.receivedAt.getTime());
    await copies.catchUp(tx, Math.min(...times), Math.max(...times));
    const storedOf = new Map(lines.map((l) => [l.line, copies.copied(l.text, l.receivedAt.getTime())]));
    const ids = [...new Set([...storedOf.values()].flatMap((found) => found.map((c) => c.held.ref)))];
    const rows = ids.length === 0 ? [] : await copiesStore.copied(tx, ids);
    return new BatchCopies(storedOf, new Map(rows.map((row) => [row.id, row])));
  }

  /** The events of the stored reports some line may copy (the batch locks and reads them). */
  get storedEvents(): string[] {
    return [...new Set([...this.rows.values()].map((row) => row.event_id))];
  }

  /**
   * What the line copies, among the stored reports and the lines placed before it: the one with
   * the most hits, a stored one on a tie (it was received first), then the earliest received.
   */
  judge({ line, text, receivedAt }: TextLine<Line>): BatchCopy<Line> | null {
    const stored = bestCandidate((this.storedOf.get(line) ?? []).filter((c) => this.rows.has(c.held.ref)));
    const at = receivedAt.getTime();
    const earlier = this.lines && bestCandidate(this.lines.copied(text, (entry) => withinWindow(entry.receivedMs, at)));
    if (stored && (!earlier || stored.hits >= earlier.hits)) return { stored: this.rows.get(stored.held.ref)! };
    return earlier ? { line: earlier.held.ref } : null;
  }

  /** The line was stored: later lines may copy it. */
  placed({ line, text, receivedAt }: TextLine<Line>): void {
    this.lines ??= new FingerprintTable<Line>();
    this.lines.add({ ref: line, receivedMs: receivedAt.getTime(), order: this.placedLines++, fingerprint: text.fingerprint });
  }
}
