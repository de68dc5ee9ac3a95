// SQL for filed reports. Returns plain rows.
import { queryOne, type Queryable } from '../../platform/db/database.js';

/** A stored role entry: as sent (NAMED_ENTITY ones with the recorded name) plus its role id. */
export interface StoredRole {
  role: string;
  role_id: string;
  entity_id?: string;
  name?: string;
  date?: string;
  amount?: { value: number; unit: string };
  text?: string;
}

export interface ReportRow {
  id: string;
  account_id: string;
  event_type_id: string;
  happened_at: Date;
  roles: StoredRole[];
  description: string | null;
  grant_id: string | null;
  published_as: { name: string; kind: 'INDIVIDUAL' | 'ORGANIZATION' } | null;
  /** The event as it is now: the survivor of the one the report joined. */
  incident_id: string | null;
  incident_report_id: string | null;
  created_at: Date;
}

const VIEW_COLUMNS = `sr.id, sr.account_id, sr.event_type_id, sr.happened_at, sr.roles, sr.description, sr.grant_id, sr.published_as,
  COALESCE(e.merged_into_event_id, sr.incident_id) AS incident_id, sr.incident_report_id, sr.created_at`;
const FROM = 'structured_reports sr LEFT JOIN events e ON e.id = sr.incident_id';

export const reportsStore = {
  /** Inserts the report unless one with its id exists; answers whether it did. */
  async insert(tx: Queryable, row: Omit<ReportRow, 'incident_id' | 'incident_report_id'> & { api_key_id: string }): Promise<boolean> {
    const inserted = await tx.query(
      `INSERT INTO structured_reports (id, account_id, api_key_id, event_type_id, happened_at, roles, description, grant_id, published_as, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        row.id,
        row.account_id,
        row.api_key_id,
        row.event_type_id,
        row.happened_at,
        JSON.stringify(row.roles),
        row.description,
        row.grant_id,
        row.published_as === null ? null : JSON.stringify(row.published_as),
        row.created_at,
      ],
    );
    return inserted.length > 0;
  },

  get(db: Queryable, id: string) {
    return queryOne<ReportRow>(db, `SELECT ${VIEW_COLUMNS} FROM ${FROM} WHERE sr.id = $1`, [id]);
  },

  /** A report not yet processed, locked for processing; undefined once processed. */
  lockUnprocessed(tx: Queryable, id: string) {
    return queryOne<ReportRow>(tx, `SELECT ${VIEW_COLUMNS} FROM ${FROM} WHERE sr.id = $1 AND sr.incident_report_id IS NULL FOR UPDATE OF sr`, [id]);
  },

  setProcessed(tx: Queryable, id: string, incidentId: string, incidentReportId: string) {
    return tx.query('UPDATE structured_reports SET incident_id = $2, incident_report_id = $3 WHERE id = $1', [id, incidentId, incidentReportId]);
  },

  /** The account's reports newest first, after the report `afterId` (`limit` rows). */
  page(db: Queryable, accountId: string, limit: number, afterId: string | null) {
    return db.query<ReportRow>(
      `SELECT ${VIEW_COLUMNS} FROM ${FROM}
        WHERE sr.account_id = $1 AND ($3::uuid IS NULL OR sr.seq < (SELECT seq FROM structured_reports WHERE id = $3 AND account_id = $1))
        ORDER BY sr.seq DESC LIMIT $2`,
      [accountId, limit, afterId],
    );
  },

  /** Whether the account filed this report (a paging anchor must be one of its own). */
  async isOwn(db: Queryable, accountId: string, id: string): Promise<boolean> {
    return (await db.query('SELECT 1 FROM structured_reports WHERE id = $1 AND account_id = $2', [id, accountId])).length > 0;
  },
};
