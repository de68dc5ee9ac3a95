// SQL for reports: a report's row, with its role values and mentions in arrays on it (migration
// 033), each value's role by its number (migration 039), as written (one report within a
// statement that also writes its event, events.store.ts; or many at once, by COPY, for a bulk
// ingest), and an event's reports read back with their values. Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import type { CopyValue } from '../../platform/db/copy-text.js';
import { entitiesByKey } from './reference.store.js';

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
  event_id: string;
  report_date: Date;
  happened_at: string | null;
  received_seq: number;
  /** Its copy group (null: its own), as independent sources count it. */
  copy_group: number | null;
  /** The outlet, or the filing account of a structured report. */
  source_id: string;
  values: ReportValueRow[];
  mentions: string[];
}

/** One role value of a report, as stored. */
export interface ReportValue {
  roleId: string;
  /** The role's number (event_type_roles.number), which the report's row keeps. */
  roleNumber: number;
  entityId: string | null;
  date: string | null;
  amount: { value: number; unit: string } | null;
  text: string | null;
}

/**
 * A report's role values as rows, in their order (`position`, from 1), from the arrays of the
 * report row `r` names, each role read from its number: `FROM reports r CROSS JOIN LATERAL
 * ${reportRolesOf('r')}` gives rows `rr` with report_roles' old columns, and the role's
 * code name (role_code_name).
 */
export const reportRolesOf = (r: string) =>
  `(SELECT role.id AS role_id, role.code_name AS role_code_name, x.entity_id, x.date_value, x.amount_value, x.amount_unit, x.text_value, x.position
      FROM unnest(${r}.role_numbers, ${r}.role_entity_ids, ${r}.role_dates, ${r}.role_amounts, ${r}.role_units, ${r}.role_texts)
           WITH ORDINALITY AS x(role_number, entity_id, date_value, amount_value, amount_unit, text_value, position)
      JOIN event_type_roles role ON role.number = x.role_number) AS rr`;

/**
 * The role values (those holding one) of the reports `where` selects over `r`, as
 * event_role_values has them: rows (event_id, role_id, source_kind, entity_id: the live
 * survivor or null, date_value, amount_value, amount_unit: folded). Without the view's look-up
 * of each report's event: the reports of events not live are in it (the caller selects or
 * drops them), and each entity is resolved once for all the values naming it, looked up by its
 * key (entitiesByKey), its survivor too.
 *
 * Both steps are materialized, so the planner joins two results it cannot look into: it hashes
 * them. With `live` inlined, it ran the entity look-ups first (it guesses 10 entities for any
 * array) and scanned every value again for each entity found: 4 s for 1,000 events of a demo
 * load (7,906 values naming 1,890 entities), the statement the database spent half its time on
 * during a load (bench/RESULTS.md, "A compact corpus, eighth step").
 */
export const roleValuesWhere = (where: string) =>
  `WITH v AS MATERIALIZED (
     SELECT r.event_id, role.id AS role_id, r.source_kind, rr.entity_id, rr.date_value, rr.amount_value, rr.amount_unit
       FROM reports r
      CROSS JOIN LATERAL unnest(r.role_numbers, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units)
            AS rr(role_number, entity_id, date_value, amount_value, amount_unit)
       JOIN event_type_roles role ON role.number = rr.role_number
      WHERE (${where}) AND (rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL)
   ), live AS MATERIALIZED (
     SELECT e.id, c.id AS live_id
       FROM ${entitiesByKey('ARRAY(SELECT entity_id FROM v WHERE entity_id IS NOT NULL)')}
      CROSS JOIN LATERAL (SELECT c.id FROM entities c WHERE c.id = e.canonical_id AND c.deleted_at IS NULL OFFSET 0) AS c
   )
   SELECT v.event_id, v.role_id, v.source_kind, live.live_id AS entity_id, v.date_value, v.amount_value,
          translate(COALESCE(v.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
     FROM v LEFT JOIN live ON live.id = v.entity_id`;

/** The array columns of a report's values, in the order valueColumns gives them. */
const VALUE_COLUMNS = ['role_numbers', 'role_entity_ids', 'role_dates', 'role_amounts', 'role_units', 'role_texts', 'mention_ids'] as const;

/**
 * A report's role values and mentions as its array columns hold them (VALUE_COLUMNS): each
 * array null when all it would hold is null (no roles, no dates…), the mentions once each.
 */
function valueColumns(values: readonly ReportValue[], mentions: readonly string[]): ((string | number | null)[] | null)[] {
  const column = (value: (v: ReportValue) => string | number | null) => {
    const list = values.map(value);
    return list.some((element) => element !== null) ? list : null;
  };
  return [
    column((v) => v.roleNumber),
    column((v) => v.entityId),
    column((v) => v.date),
    column((v) => v.amount?.value ?? null),
    column((v) => v.amount?.unit ?? null),
    column((v) => v.text),
    mentions.length > 0 ? [...new Set(mentions)] : null,
  ];
}

/**
 * A report's row as written (received_seq drawn by the database, unless a bulk ingest drew it:
 * NewReportRow). `source_kind` and `report_date` are not stored: the table computes them from
 * the row (migration 042).
 */
export interface ReportRow {
  id: string;
  event_id: string;
  source_kind: 'ARTICLE' | 'STRUCTURED';
  outlet_id: string | null;
  account_id: string | null;
  grant_id: string | null;
  /** Not stored: the event's (migration 044). */
  event_type_id: string;
  published_at: Date | null;
  received_at: Date;
  report_date: Date;
  happened_at: string | null;
  headline: string | null;
  url: string | null;
  /** The text's fingerprint, in hex, or null. */
  fingerprint: string | null;
  /** The copy group: its first report's receive sequence value, or null: a group of its own. */
  copy_group: number | null;
}

/** A new report row, its receive sequence number drawn already (nextReportSeqs). */
export type NewReportRow = ReportRow & { received_seq: number };

/** The columns of a bulk ingest's report rows, in the order they are copied. */
const REPORT_COLUMNS = [
  'id',
  'event_id',
  'outlet_id',
  'account_id',
  'grant_id',
  'published_at',
  'received_at',
  'happened_at',
  'headline',
  'url',
  'copy_group',
  'fingerprint',
  'received_seq',
] as const satisfies readonly (keyof NewReportRow)[];

/** A report as written: its row, its role values in their order, and the entities it mentions (as given). */
export interface NewReportRows {
  row: ReportRow;
  values: readonly ReportValue[];
  mentions: readonly string[];
}

/**
 * The sub-statement `report` (RETURNING its id and received_seq) that writes a report with its
 * values, its parameters $1 to $22 (reportParams); `from` says where the event id comes from
 * ("" for $2 as it is). The source kind ($3) and report date ($10) are the table's to compute
 * (migration 042); the statement names them for the other sub-statements that read them. The
 * event type ($7) is the event's (migration 044): the caller's statement reads it, to make the
 * event or to check the one joined.
 */
export const reportRows = (from: string) => `report AS (
         INSERT INTO reports (id, event_id, outlet_id, account_id, grant_id, published_at, received_at,
                              happened_at, headline, url, ${VALUE_COLUMNS.join(', ')}, copy_group, fingerprint)
         SELECT $1::uuid, ${from ? 'e.id' : '$2::uuid'}, $4::uuid, $5::uuid, $6::uuid, $8::timestamptz, $9::timestamptz,
                $11, $12, $13, $14::int[], $15::uuid[], $16::date[], $17::float8[], $18::text[], $19::text[], $20::uuid[],
                $22::bigint, decode($21::text, 'hex') ${from}
         RETURNING id, received_seq, $3::text AS source_kind, $10::timestamptz AS report_date
       )`;

export function reportParams({ row, values, mentions }: NewReportRows): unknown[] {
  return [
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
    ...valueColumns(values, mentions),
    row.fingerprint,
    row.copy_group,
  ];
}

export const reportsStore = {
  /**
   * An event's reports, oldest report date first, each with its role values (entities resolved
   * to their survivors, in role order) and its mentioned entities (live survivors, by id), in
   * one statement.
   */
  reportsWithValues(db: Queryable, eventId: string): Promise<EventReportRow[]> {
    return this.reportsWithValuesOf(db, [eventId]);
  },

  /** The same for several events at once, in one statement (each row names its event). */
  async reportsWithValuesOf(db: Queryable, eventIds: readonly string[]): Promise<EventReportRow[]> {
    const rows = await db.query<
      Omit<EventReportRow, 'values'> & {
        values: [string, string | null, string | null, boolean | null, string | null, number | null, string | null, string | null][];
      }
    >(
      `SELECT r.id, r.event_id, r.report_date, r.happened_at, r.received_seq, r.copy_group, COALESCE(r.outlet_id, r.account_id, r.id) AS source_id,
              COALESCE((SELECT json_agg(json_build_array(rr.role_id, c.id, c.name, c.deleted_at IS NOT NULL, to_char(rr.date_value, 'YYYY-MM-DD'),
                                                         rr.amount_value, rr.amount_unit, rr.text_value) ORDER BY rr.position)
                          FROM ${reportRolesOf('r')}
                          LEFT JOIN entities e ON e.id = rr.entity_id
                          LEFT JOIN entities c ON c.id = e.canonical_id), '[]') AS values,
              COALESCE((SELECT json_agg(DISTINCT c.id)
                          FROM unnest(r.mention_ids) AS m(entity_id)
                          JOIN entities e ON e.id = m.entity_id
                          JOIN entities c ON c.id = e.canonical_id
                         WHERE c.deleted_at IS NULL), '[]') AS mentions
         FROM reports r WHERE r.event_id = ANY($1::uuid[])
        ORDER BY r.report_date, r.id`,
      [eventIds],
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

  /** Many new reports with their values in one statement, their receive sequence numbers drawn already (nextReportSeqs). */
  insertReports(db: Queryable, reports: readonly (NewReportRows & { row: NewReportRow })[]) {
    return db.copyRows(
      'reports',
      [...REPORT_COLUMNS, ...VALUE_COLUMNS],
      reports.map(({ row, values, mentions }): CopyValue[] => [
        // COPY's text format reads bytea as \x and hex.
        ...REPORT_COLUMNS.map((column) => (column === 'fingerprint' && row.fingerprint !== null ? `\\x${row.fingerprint}` : row[column])),
        ...valueColumns(values, mentions),
      ]),
    );
  },

  /** `count` receive sequence numbers for new reports, ascending (in one row: thousands of rows cost more to send and read). */
  async nextReportSeqs(db: Queryable, count: number): Promise<number[]> {
    if (count === 0) return [];
    // The sequence looked up once, not once per number (a tenth of the time for 5,000).
    const [row] = await db.query<{ seqs: (string | number)[] }>(
      `WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence('reports', 'received_seq')::regclass AS seq)
       SELECT array_agg(nextval(s.seq)) AS seqs FROM s, generate_series(1, $1::int)`,
      [count],
    );
    return row!.seqs.map(Number).sort((a, b) => a - b);
  },
};
