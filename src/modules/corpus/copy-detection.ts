// Copy detection at ingest (decisions.md, "independent sources"): the report a new article's
// text copies among the reports stored before it and received within 30 days of it, for the single path (findCopy)
// and for a bulk batch, against the corpus and against its own earlier lines (BatchCopies),
// with the same answer as one by one. The caller holds copy detection's lock
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

/** The stored report `text` (received at `receivedAt`) copies, or null. */
export async function findCopy(tx: Queryable, copies: RecentCopies, text: TextShingles, receivedAt: Date): Promise<FoundCopy | null> {
  const at = receivedAt.getTime();
  await copies.catchUp(tx, at, at);
  const copied = await storedBest(tx, copies.copied(text, at));
  if (copied === null) return null;
  const origin = (await copiesStore.origins(tx, [{ eventId: copied.event_id, group: copied.copy_group }])).get(originKey(copied.event_id, copied.copy_group));
  return { copied, originId: origin?.id ?? copied.id };
}

/**
 * The best of the candidates still stored (memory may hold the fingerprint of a report its own
 * transaction wrote and a savepoint took back), with its row.
 */
async function storedBest(tx: Queryable, candidates: readonly CopyCandidate<string>[]): Promise<CopiedReport | null> {
  if (candidates.length === 0) return null;
  const rows = new Map(
    (
      await copiesStore.copied(
        tx,
        candidates.map((c) => c.held.ref),
      )
    ).map((row) => [row.id, row]),
  );
  const best = bestCandidate(candidates.filter((c) => rows.has(c.held.ref)));
  return best === null ? null : rows.get(best.held.ref)!;
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
 * brought up to date once for the whole batch, the stored candidates read at once) and against
 * the batch's earlier stored lines, the best of both as the single path finds it one line at a
 * time (stored reports were received before any line).
 */
export class BatchCopies<Line> {
  private readonly lines = new FingerprintTable<Line>();
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
    const earlier = bestCandidate(this.lines.copied(text, (entry) => withinWindow(entry.receivedMs, at)));
    if (stored && (!earlier || stored.hits >= earlier.hits)) return { stored: this.rows.get(stored.held.ref)! };
    return earlier ? { line: earlier.held.ref } : null;
  }

  /** The line was stored: later lines may copy it. */
  placed({ line, text, receivedAt }: TextLine<Line>): void {
    this.lines.add({ ref: line, receivedMs: receivedAt.getTime(), order: this.placedLines++, fingerprint: text.fingerprint });
  }
}
