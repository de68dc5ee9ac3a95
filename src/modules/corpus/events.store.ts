// SQL for events and reports. Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { clearEventIndex } from './event-index.js';

export interface EventRow {
  id: string;
  event_type_id: string;
  happened_at: string | null;
  first_report_date: Date;
  last_report_date: Date;
  sentence: string | null;
  involved_entity_ids: string[];
  merged_into_event_id: string | null;
  deleted_at: Date | null;
}

export interface ReportValueRow {
  role_id: string;
  entity_id: string | null; // canonical
  entity_name: string | null;
  entity_deleted: boolean | null;
  date_value: string | null;
  amount_value: number | null;
  amount_unit: string | null;
  text_value: string | null;
}

export interface EventReportRow {
  id: string;
  report_date: Date;
  happened_at: string | null;
  received_seq: number;
  /** The outlet, or the filing account of a structured report. */
  source_id: string;
  values: ReportValueRow[];
  mentions: string[];
}

const EVENT_COLUMNS = 'id, event_type_id, happened_at, first_report_date, last_report_date, sentence, involved_entity_ids, merged_into_event_id, deleted_at';

export const eventsStore = {
  getEvent(db: Queryable, id: string, forUpdate = false) {
    return queryOne<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  },

  insertEvent(db: Queryable, row: { id: string; event_type_id: string; at: Date; report_date: Date }) {
    return db.query(`INSERT INTO events (id, event_type_id, first_report_date, last_report_date, created_at, updated_at) VALUES ($1, $2, $3, $3, $4, $4)`, [
      row.id,
      row.event_type_id,
      row.report_date,
      row.at,
    ]);
  },

  insertReport(
    db: Queryable,
    row: {
      id: string;
      event_id: string;
      source_kind: 'ARTICLE' | 'STRUCTURED';
      outlet_id: string | null;
      account_id: string | null;
      grant_id: string | null;
      event_type_id: string;
      published_at: Date | null;
      received_at: Date;
      report_date: Date;
      happened_at: string | null;
      headline: string | null;
      url: string | null;
      created_at: Date;
    },
  ) {
    return db.query(
      `INSERT INTO reports (id, event_id, source_kind, outlet_id, account_id, grant_id, event_type_id, published_at, received_at,
                            report_date, happened_at, headline, url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        row.id,
        row.event_id,
        row.source_kind,
        row.outlet_id,
        row.account_id,
        row.grant_id,
        row.event_type_id,
        row.published_at,
        row.received_at,
        row.report_date,
        row.happened_at,
        row.headline,
        row.url,
        row.created_at,
      ],
    );
  },

  insertRoleValues(
    db: Queryable,
    reportId: string,
    values: readonly { roleId: string; entityId: string | null; date: string | null; amount: { value: number; unit: string } | null; text: string | null }[],
  ) {
    if (values.length === 0) return Promise.resolve([]);
    return db.query(
      `INSERT INTO report_roles (report_id, position, role_id, entity_id, date_value, amount_value, amount_unit, text_value)
       SELECT $1, n, role_id, entity_id, date_value, amount_value, amount_unit, text_value
         FROM unnest($2::uuid[], $3::uuid[], $4::date[], $5::float8[], $6::text[], $7::text[]) WITH ORDINALITY
              AS t(role_id, entity_id, date_value, amount_value, amount_unit, text_value, n)`,
      [
        reportId,
        values.map((v) => v.roleId),
        values.map((v) => v.entityId),
        values.map((v) => v.date),
        values.map((v) => v.amount?.value ?? null),
        values.map((v) => v.amount?.unit ?? null),
        values.map((v) => v.text),
      ],
    );
  },

  insertMentions(db: Queryable, reportId: string, entityIds: readonly string[]) {
    if (entityIds.length === 0) return Promise.resolve([]);
    return db.query(`INSERT INTO report_mentions (report_id, entity_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [reportId, entityIds]);
  },

  /**
   * An event's reports, oldest report date first, each with its role values (entities resolved
   * to their survivors, in role order) and its mentioned entities (live survivors, by id), in
   * one statement.
   */
  async reportsWithValues(db: Queryable, eventId: string): Promise<EventReportRow[]> {
    const rows = await db.query<
      Omit<EventReportRow, 'values'> & {
        values: [string, string | null, string | null, boolean | null, string | null, number | null, string | null, string | null][];
      }
    >(
      `SELECT r.id, r.report_date, r.happened_at, r.received_seq, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id,
              COALESCE((SELECT json_agg(json_build_array(rr.role_id, c.id, c.name, c.deleted_at IS NOT NULL, to_char(rr.date_value, 'YYYY-MM-DD'),
                                                         rr.amount_value, rr.amount_unit, rr.text_value) ORDER BY rr.position)
                          FROM report_roles rr
                          LEFT JOIN entities e ON e.id = rr.entity_id
                          LEFT JOIN entities c ON c.id = e.canonical_id
                         WHERE rr.report_id = r.id), '[]') AS values,
              COALESCE((SELECT json_agg(DISTINCT c.id)
                          FROM report_mentions m
                          JOIN entities e ON e.id = m.entity_id
                          JOIN entities c ON c.id = e.canonical_id
                         WHERE m.report_id = r.id AND c.deleted_at IS NULL), '[]') AS mentions
         FROM reports r WHERE r.event_id = $1
        ORDER BY r.report_date, r.created_at, r.id`,
      [eventId],
    );
    return rows.map((row) => ({
      ...row,
      values: row.values.map(([roleId, entityId, entityName, entityDeleted, date, amount, unit, text]) => ({
        role_id: roleId,
        entity_id: entityId,
        entity_name: entityName,
        entity_deleted: entityDeleted,
        date_value: date,
        amount_value: amount,
        amount_unit: unit,
        text_value: text,
      })),
    }));
  },

  /** The event's summary and its entity index rows, in one statement. */
  async writeSummary(
    db: Queryable,
    eventId: string,
    summary: {
      first: Date;
      last: Date;
      sourceSeqs: number[];
      happenedAt: string | null;
      happenedOn: string | null;
      sentence: string | null;
      involved: string[];
      participants: Set<string>;
      at: Date;
    },
  ) {
    // The entity rows are kept, changed, added and removed in place: disjoint rows, so the
    // sub-statements of one statement never touch the same one.
    await db.query(
      `WITH summary AS (
         UPDATE events SET first_report_date = $2, last_report_date = $3, happened_at = $4, happened_on = $5::date, sentence = $6,
                involved_entity_ids = $7::uuid[], updated_at = $8, source_seqs = $9::bigint[] WHERE id = $1
       ), gone AS (
         DELETE FROM event_entities WHERE event_id = $1 AND entity_id <> ALL($7::uuid[])
       )
       INSERT INTO event_entities (event_id, entity_id, participant, first_report_date)
       SELECT $1, id, id = ANY($10::uuid[]), $2 FROM unnest($7::uuid[]) AS t(id)
       ON CONFLICT (event_id, entity_id) DO UPDATE SET participant = EXCLUDED.participant, first_report_date = EXCLUDED.first_report_date
        WHERE (event_entities.participant, event_entities.first_report_date) IS DISTINCT FROM (EXCLUDED.participant, EXCLUDED.first_report_date)`,
      [
        eventId,
        summary.first,
        summary.last,
        summary.happenedAt,
        summary.happenedOn,
        summary.sentence,
        summary.involved,
        summary.at,
        summary.sourceSeqs,
        [...summary.participants],
      ],
    );
  },

  async mergeEvent(db: Queryable, from: string, into: string, at: Date) {
    await db.query('UPDATE reports SET event_id = $2 WHERE event_id = $1', [from, into]);
    // Two statements, each on an index: the merged event, then events merged into it earlier.
    await db.query('UPDATE events SET merged_into_event_id = $2, updated_at = $3 WHERE id = $1', [from, into, at]);
    await db.query('UPDATE events SET merged_into_event_id = $2, updated_at = $3 WHERE merged_into_event_id = $1', [from, into, at]);
    await db.query('DELETE FROM event_entities WHERE event_id = $1', [from]);
    await clearEventIndex(db, [from]);
  },

  async deleteEvent(db: Queryable, id: string, at: Date) {
    await db.query('UPDATE events SET deleted_at = $2, updated_at = $2 WHERE id = $1', [id, at]);
    await db.query('DELETE FROM event_entities WHERE event_id = $1', [id]);
    await clearEventIndex(db, [id]);
  },
};
