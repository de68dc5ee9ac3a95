// The copy_of_report_id of a bulk batch's lines, as the single path answers each one by one:
// the origin of the copy group (earliest report date, ties by receive order) among the group's
// reports in one event, counting the stored reports and the batch's lines stored before it.
// Lines are noted as they are placed; the stored reports' origins are read once, at the end.
import type { Queryable } from '../../platform/db/database.js';
import type { GroupRef, Placed } from './batch-write.js';
import { copiesStore, originKey } from './copies.store.js';

interface Question {
  eventId: string;
  group: GroupRef;
  /** Lines placed before this many count. */
  before: number;
}

/** A group as a key: a stored group's receive sequence value, or the id of the line leading one. */
const keyOf = (group: GroupRef) => ('stored' in group ? `s${group.stored}` : `l${group.leader.id}`);

interface PlacedLine {
  id: string;
  /** Its place among the placed lines. */
  at: number;
  reportDate: number;
}

/** An (event, group) pair as a key of the lines placed in it. */
const pairKey = (eventId: string, group: GroupRef) => `${eventId} ${keyOf(group)}`;

export class CopyOrigins {
  private placedCount = 0;
  /** The placed lines of each (event, group) pair (pairKey), in the order placed: a question reads only its own pair's. */
  private readonly linesOf = new Map<string, PlacedLine[]>();
  private readonly questions: Question[] = [];
  private readonly atLine = new Map<string, number>(); // line id → its place among placed lines
  /** Outcomes whose copy_of_report_id is the answer to a question, filled in by resolve. */
  private readonly awaiting: { outcome: { copy_of_report_id: string | null }; question: number }[] = [];

  /**
   * Notes a placed line, and asks for its copy_of_report_id: the origin in the event and group
   * of the report it copies (`copied`; null: no copy). Answers the question's number, for `await`.
   */
  placed(entry: Placed, reportDate: Date, copied: { eventId: string; group: GroupRef } | null): number | null {
    const at = this.placedCount++;
    const question = copied ? this.ask({ ...copied, before: at }) : null;
    this.atLine.set(entry.id, at);
    const key = pairKey(entry.eventId, entry.group);
    const lines = this.linesOf.get(key) ?? this.linesOf.set(key, []).get(key)!;
    lines.push({ id: entry.id, at, reportDate: reportDate.getTime() });
    return question;
  }

  /** Asks for the answer a placed line gives when stored already: the origin among its group's reports in its event received before it. */
  storedAnswer(entry: Placed): number | null {
    const leads = 'leader' in entry.group && entry.group.leader === entry;
    return leads ? null : this.ask({ eventId: entry.eventId, group: entry.group, before: this.atLine.get(entry.id)! });
  }

  /** The outcome, its copy_of_report_id to be the answer to `question` (null: none, it stays null). */
  await<T extends { copy_of_report_id: string | null }>(outcome: T, question: number | null): T {
    if (question !== null) this.awaiting.push({ outcome, question });
    return outcome;
  }

  /** Reads the origins among stored reports, in the events `stored` says were stored before the batch, and fills in the outcomes awaiting them. */
  async resolve(tx: Queryable, stored: (eventId: string) => boolean): Promise<void> {
    // Only a stored group can have stored reports.
    const pairs = new Map<string, { eventId: string; group: number }>();
    for (const { eventId, group } of this.questions)
      if ('stored' in group && stored(eventId)) pairs.set(originKey(eventId, group.stored), { eventId, group: group.stored });
    const storedOrigins = await copiesStore.origins(tx, [...pairs.values()]);
    const answers = this.questions.map((q) => {
      let best: { id: string; date: number } | null = null;
      const origin = 'stored' in q.group ? storedOrigins.get(originKey(q.eventId, q.group.stored)) : undefined;
      if (origin) best = { id: origin.id, date: origin.reportDate.getTime() };
      // Lines were received after every stored report, in line order: only an earlier date wins.
      for (const line of this.linesOf.get(pairKey(q.eventId, q.group)) ?? []) {
        if (line.at >= q.before) break;
        if (!best || line.reportDate < best.date) best = { id: line.id, date: line.reportDate };
      }
      return best?.id ?? null;
    });
    for (const { outcome, question } of this.awaiting) outcome.copy_of_report_id = answers[question]!;
  }

  private ask(question: Question): number {
    return this.questions.push(question) - 1;
  }
}
