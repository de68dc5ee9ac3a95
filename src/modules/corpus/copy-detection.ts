// Copy detection at ingest (decisions.md, "independent sources"): the report a new article's
// text copies among the reports stored before it and received within 30 days of it, for a
// bulk batch, against the corpus and against its own earlier lines (BatchCopies), and for the
// single path as a batch of one (findCopy): the same answer as one by one. The caller holds copy detection's lock
// (ingestLocksStore.lockCopies). The method is copy-fingerprint.ts's, and one rule beside the
// texts: a report is joined only when the two name an entity in common (namesShared).
import type { Queryable } from '../../platform/db/database.js';
import type { TextShingles } from './copy-fingerprint.js';
import { copiesStore, type CopiedReport, originKey } from './copies.store.js';
import { bestCandidate, type CopyCandidate, FingerprintTable } from './fingerprint-table.js';
import type { CopiesAhead, RecentCopies } from './recent-copies.js';
import { withinWindow } from './recent-copies.js';

/** A stored report a new text copies: its event and group, and the group's origin in that event. */
export interface FoundCopy {
  copied: CopiedReport;
  /** The origin of the group among its reports in the copied report's event, before the copy joins. */
  originId: string;
}

/**
 * Whether two reports naming these entities (live survivors) may be copies: they name one in
 * common, or one of them names none. A wire copy names the story's participants, as its origin
 * does; two stories of one type written apart from the same phrases (a stock lead, a standard
 * sentence) rarely name one in common. Among the tens of thousands of reports of a 30-day
 * window, texts alone link such stories: at a million demo events the groups' pairwise
 * precision was 0.15 on texts alone, 0.9995 with this rule, recall 0.976 and 0.974
 * (bench/copy-thresholds.ts, bench/RESULTS.md "Independent sources").
 */
export function namesShared(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return a.some((id) => b.includes(id));
}

/** The stored report `text` (received at `receivedAt`, naming `entities`) copies, or null: a batch of one line. */
export async function findCopy(tx: Queryable, copies: RecentCopies, { text, receivedAt, entities }: Omit<TextLine<0>, 'line'>): Promise<FoundCopy | null> {
  const line = { line: 0 as const, text, receivedAt, entities };
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
  /** The live survivors of the entities it names (participants and mentions). */
  entities: readonly string[];
}

/**
 * Copy detection over a batch, line by line in order: each text against the corpus (memory
 * brought up to date once for the whole batch, the stored candidates read at once, and those
 * naming no entity in common with the line (namesShared) or no longer stored left out: memory
 * may hold the fingerprint of a report its own transaction wrote and a savepoint took back)
 * and against the batch's earlier stored lines, the best of both as the single path finds it
 * one line at a time (stored reports were received before any line).
 */
export class BatchCopies<Line> {
  /** The batch's lines placed so far, made at the first (a single call places none). */
  private lines: FingerprintTable<TextLine<Line>> | null = null;
  private placedLines = 0;

  private constructor(
    private readonly storedOf: ReadonlyMap<Line, CopyCandidate<string>[]>,
    private readonly rows: ReadonlyMap<string, CopiedReport>,
  ) {}

  /** `ahead`: the batch's texts looked up before its transaction (RecentCopies.lookAhead). */
  static async open<Line>(tx: Queryable, copies: RecentCopies, lines: readonly TextLine<Line>[], ahead?: CopiesAhead): Promise<BatchCopies<Line>> {
    if (lines.length === 0) return new BatchCopies(new Map(), new Map());
    const times = lines.map((l) => l.receivedAt.getTime());
    await copies.catchUp(tx, Math.min(...times), Math.max(...times));
    const found = lines.map((l) => ({ l, candidates: copies.copied(l.text, l.receivedAt.getTime(), ahead) }));
    const ids = [...new Set(found.flatMap(({ candidates }) => candidates.map((c) => c.held.ref)))];
    const rows = new Map((ids.length === 0 ? [] : await copiesStore.copied(tx, ids)).map((row) => [row.id, row]));
    // Each line's stored candidates that are still stored and name an entity in common with it.
    const storedOf = new Map(
      found.map(({ l, candidates }) => [
        l.line,
        candidates.filter((c) => {
          const row = rows.get(c.held.ref);
          return row !== undefined && namesShared(l.entities, row.entity_ids);
        }),
      ]),
    );
    const kept = new Set([...storedOf.values()].flatMap((candidates) => candidates.map((c) => c.held.ref)));
    return new BatchCopies(storedOf, new Map([...rows].filter(([id]) => kept.has(id))));
  }

  /**
   * The events of the stored reports some line may copy (the batch locks and reads them): each
   * line's best stored candidate's, the only stored report judge may answer for it.
   */
  get storedEvents(): string[] {
    const best = [...this.storedOf.values()].flatMap((candidates) => bestCandidate(candidates) ?? []);
    return [...new Set(best.map((candidate) => this.rows.get(candidate.held.ref)!.event_id))];
  }

  /**
   * What the line copies, among the stored reports and the lines placed before it that name an
   * entity in common with it (namesShared): the one with the most hits, a stored one on a tie
   * (it was received first), then the earliest received.
   */
  judge({ line, text, receivedAt, entities }: TextLine<Line>): BatchCopy<Line> | null {
    const stored = bestCandidate(this.storedOf.get(line) ?? []);
    const at = receivedAt.getTime();
    const earlier =
      this.lines && bestCandidate(this.lines.copied(text, (entry) => withinWindow(entry.receivedMs, at) && namesShared(entities, entry.ref.entities)));
    if (stored && (!earlier || stored.hits >= earlier.hits)) return { stored: this.rows.get(stored.held.ref)! };
    return earlier ? { line: earlier.held.ref.line } : null;
  }

  /** The line was stored: later lines may copy it. */
  placed(placed: TextLine<Line>): void {
    this.lines ??= new FingerprintTable<TextLine<Line>>();
    this.lines.add({ ref: placed, receivedMs: placed.receivedAt.getTime(), order: this.placedLines++, fingerprint: placed.text.fingerprint });
  }
}
