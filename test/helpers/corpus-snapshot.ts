// What the database holds for one event type, read straight from its tables and written in
// names that do not depend on how it was loaded: events by a key the caller gives them
// (the line of the article that opened them), reports by the line that stored them, role
// values by role code name, receive sequence numbers by the line of the report that holds
// them. Two copies of one corpus loaded two ways then compare as plain values
// (test/corpus/ingest-equivalence.test.ts).
import type { Queryable } from '../../src/platform/db/database.js';

/** How one copy's ids read: its events by key, its reports by line, and text it alone holds. */
export interface CopyNames {
  eventKey: ReadonlyMap<string, string>;
  reportLine: ReadonlyMap<string, number>;
  /** Replaces what differs between copies by design (its type, its url prefix) in any text. */
  text(value: string): string;
}

export type Snapshot = Record<string, Record<string, unknown>>;

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/** SQL: report `r` is of event type $1 (its event's: migration 044). */
const REPORT_OF_TYPE = 'r.event_id IN (SELECT id FROM events WHERE event_type_id = $1)';

/** The receive sequence values of the reports of an event type, in order. */
export async function receiveSeqsOfType(db: Queryable, eventTypeId: string): Promise<number[]> {
  const rows = await db.query<{ s: number }>(`SELECT r.received_seq AS s FROM reports r WHERE ${REPORT_OF_TYPE} ORDER BY r.received_seq`, [eventTypeId]);
  return rows.map((row) => row.s);
}

/**
 * The type's events, reports (with their role values and mentions), receive order, and search
 * index rows (event_participants, event_sources, event_role_values), each table keyed by event
 * key or report line. An id the names do not know reads `unknown <id>`, which matches nothing.
 */
export async function typeSnapshot(db: Queryable, eventTypeId: string, names: CopyNames): Promise<Snapshot> {
  const event = (id: string | null) => (id === null ? null : (names.eventKey.get(id) ?? `unknown ${id}`));
  const report = (id: string) => names.reportLine.get(id) ?? `unknown ${id}`;

  const reports = await db.query<{
    id: string;
    event_id: string;
    source_kind: string;
    outlet_id: string;
    published_at: Date | null;
    received_at: Date;
    report_date: Date;
    happened_at: string | null;
    headline: string | null;
    url: string | null;
    received_seq: string | number;
    copy_group: string | number;
    fingerprinted: boolean;
  }>(
    `SELECT r.id, r.event_id, r.source_kind, r.outlet_id, r.published_at, r.received_at, r.report_date, r.happened_at, r.headline, r.url,
            r.received_seq, COALESCE(r.copy_group, r.received_seq) AS copy_group, r.fingerprint IS NOT NULL AS fingerprinted
       FROM reports r WHERE ${REPORT_OF_TYPE} ORDER BY r.received_seq`,
    [eventTypeId],
  );
  // Receive sequence numbers differ between copies; the line of the report holding one does not.
  const lineOfSeq = new Map(reports.map((r) => [Number(r.received_seq), report(r.id)]));
  const seq = (value: string | number) => lineOfSeq.get(Number(value)) ?? `unknown seq ${value}`;

  const roles = await db.query<{
    report_id: string;
    position: number;
    code_name: string;
    entity_id: string | null;
    date: string | null;
    amount: number | null;
    unit: string | null;
    text: string | null;
  }>(
    `SELECT rr.report_id, rr.position, t.code_name, rr.entity_id, rr.date_value::text AS date, rr.amount_value AS amount, rr.amount_unit AS unit, rr.text_value AS text
       FROM report_roles rr JOIN reports r ON r.id = rr.report_id JOIN event_type_roles t ON t.id = rr.role_id
      WHERE ${REPORT_OF_TYPE} ORDER BY rr.report_id, rr.position`,
    [eventTypeId],
  );
  const mentions = await db.query<{ report_id: string; entity_id: string }>(
    `SELECT m.report_id, m.entity_id FROM report_mentions m JOIN reports r ON r.id = m.report_id WHERE ${REPORT_OF_TYPE} ORDER BY m.report_id, m.entity_id`,
    [eventTypeId],
  );
  const events = await db.query<{
    id: string;
    happened_at: string | null;
    happened_on: string | null;
    first_report_date: Date;
    last_report_date: Date;
    sentence: string | null;
    involved_entity_ids: string[];
    merged_into_event_id: string | null;
    deleted_at: Date | null;
    created_at: Date;
    updated_at: Date;
    source_seqs: (string | number)[];
  }>(
    `SELECT id, happened_at, happened_on::text AS happened_on, first_report_date, last_report_date, sentence, involved_entity_ids,
            merged_into_event_id, deleted_at, created_at, updated_at, source_seqs
       FROM events WHERE event_type_id = $1`,
    [eventTypeId],
  );
  const participants = await db.query<{ event_id: string; entity_id: string; anchor: Date }>(
    `SELECT p.event_id, p.entity_id, p.anchor FROM event_participants p JOIN events e ON e.id = p.event_id WHERE e.event_type_id = $1`,
    [eventTypeId],
  );
  const sources = await db.query<{ event_id: string; source_id: string; source_kind: string; first_seq: string | number; first_report_date: Date }>(
    `SELECT s.event_id, s.source_id, s.source_kind, s.first_seq, s.first_report_date
       FROM event_sources s JOIN events e ON e.id = s.event_id WHERE e.event_type_id = $1`,
    [eventTypeId],
  );
  const values = await db.query<{
    event_id: string;
    code_name: string;
    source_kind: string;
    seq: string | number;
    first_report_date: Date;
    entity_id: string | null;
    date: string | null;
    amount: number | null;
    unit: string | null;
  }>(
    `SELECT v.event_id, t.code_name, v.source_kind, v.seq, v.first_report_date, v.entity_id, v.date_value::text AS date, v.amount_value AS amount, v.amount_unit AS unit
       FROM event_role_values v JOIN events e ON e.id = v.event_id JOIN event_type_roles t ON t.id = v.role_id WHERE e.event_type_id = $1`,
    [eventTypeId],
  );

  const snapshot: Snapshot = {
    'reports in receive order': { lines: reports.map((r) => report(r.id)) },
    reports: {},
    events: {},
    event_participants: {},
    event_sources: {},
    event_role_values: {},
  };
  for (const r of reports) {
    snapshot.reports![report(r.id)] = {
      event: event(r.event_id),
      source_kind: r.source_kind,
      outlet_id: r.outlet_id,
      published_at: iso(r.published_at),
      received_at: iso(r.received_at),
      report_date: iso(r.report_date),
      happened_at: r.happened_at,
      headline: r.headline,
      url: r.url === null ? null : names.text(r.url),
      // Fingerprints differ between the copies (their words do); which reports have one, and their groups, do not.
      fingerprinted: r.fingerprinted,
      copy_group: seq(r.copy_group),
      roles: roles.filter((v) => v.report_id === r.id).map(({ report_id: _, ...value }) => value),
      mentions: mentions.filter((m) => m.report_id === r.id).map((m) => m.entity_id),
    };
  }
  for (const e of events) {
    snapshot.events![event(e.id)!] = {
      happened_at: e.happened_at,
      happened_on: e.happened_on,
      first_report_date: iso(e.first_report_date),
      last_report_date: iso(e.last_report_date),
      sentence: e.sentence,
      involved_entity_ids: e.involved_entity_ids,
      merged_into: event(e.merged_into_event_id),
      deleted_at: iso(e.deleted_at),
      created_at: iso(e.created_at),
      updated_at: iso(e.updated_at),
      // In order: the lines of the reports that brought each source first.
      source_seqs: e.source_seqs.map(seq),
    };
  }
  const rowsByEvent = <T extends { event_id: string }>(table: string, rows: T[], row: (r: T) => unknown[]) => {
    const byEvent = snapshot[table]!;
    const lists = new Map<string, string[]>();
    for (const r of rows) {
      const key = event(r.event_id)!;
      lists.set(key, [...(lists.get(key) ?? []), JSON.stringify(row(r))]);
    }
    for (const [key, list] of lists) byEvent[key] = list.sort();
  };
  rowsByEvent('event_participants', participants, (r) => [r.entity_id, iso(r.anchor)]);
  rowsByEvent('event_sources', sources, (r) => [r.source_id, r.source_kind, seq(r.first_seq), iso(r.first_report_date)]);
  rowsByEvent('event_role_values', values, (r) => [r.code_name, r.source_kind, seq(r.seq), iso(r.first_report_date), r.entity_id, r.date, r.amount, r.unit]);
  return snapshot;
}
