// SQL for reporting grants. Returns plain rows.
import { queryOne, type Queryable } from '../../platform/db/database.js';

export interface GrantRow {
  id: string;
  account_id: string;
  label: string;
  event_type_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A pin with its role as the event type has it now (code_name null once removed). */
export interface PinRow {
  grant_id: string;
  position: number;
  role_id: string;
  role_code_name: string | null;
  expected_type: string | null;
  allowed_entity_ids: string[];
}

/** An allowed entity as given, with its live survivor (null when deleted). */
export interface AllowedEntityRow {
  id: string;
  canonical_id: string | null;
  name: string | null;
  type: string | null;
}

const GRANT_COLUMNS = 'id, account_id, label, event_type_id, expires_at, revoked_at, created_at';

export const grantsStore = {
  async insert(tx: Queryable, grant: GrantRow, pins: readonly { roleId: string; entityIds: string[] }[]): Promise<void> {
    await tx.query(`INSERT INTO reporting_grants (${GRANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      grant.id,
      grant.account_id,
      grant.label,
      grant.event_type_id,
      grant.expires_at,
      grant.revoked_at,
      grant.created_at,
    ]);
    if (pins.length === 0) return;
    await tx.query(
      `INSERT INTO reporting_grant_pins (grant_id, position, role_id, allowed_entity_ids)
       SELECT $1, n, role_id, string_to_array(ids, ',')::uuid[] FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS t(role_id, ids, n)`,
      [grant.id, pins.map((p) => p.roleId), pins.map((p) => p.entityIds.join(','))],
    );
    await tx.query('INSERT INTO reporting_grant_entities (grant_id, entity_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING', [
      grant.id,
      [...new Set(pins.flatMap((p) => p.entityIds))],
    ]);
  },

  /** `lock`: FOR UPDATE (revocation) or FOR SHARE (a filing: revocation waits for it). */
  get(db: Queryable, id: string, lock: 'update' | 'share' | null = null) {
    const locking = lock === null ? '' : ` FOR ${lock.toUpperCase()}`;
    return queryOne<GrantRow>(db, `SELECT ${GRANT_COLUMNS} FROM reporting_grants WHERE id = $1${locking}`, [id]);
  },

  /** An account's grants, newest first. */
  ofAccount(db: Queryable, accountId: string) {
    return db.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM reporting_grants WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [accountId]);
  },

  revoke(db: Queryable, id: string, at: Date) {
    return db.query('UPDATE reporting_grants SET revoked_at = $2 WHERE id = $1', [id, at]);
  },

  pinsOf(db: Queryable, grantIds: readonly string[]) {
    return db.query<PinRow>(
      `SELECT p.grant_id, p.position, p.role_id, CASE WHEN r.removed_at IS NULL THEN r.code_name END AS role_code_name,
              r.expected_type, p.allowed_entity_ids::text[] AS allowed_entity_ids
         FROM reporting_grant_pins p JOIN event_type_roles r ON r.id = p.role_id
        WHERE p.grant_id = ANY($1::uuid[])
        ORDER BY p.grant_id, p.position`,
      [grantIds],
    );
  },

  allowedEntities(db: Queryable, ids: readonly string[]) {
    return db.query<AllowedEntityRow>(
      `SELECT e.id, CASE WHEN c.deleted_at IS NULL THEN c.id END AS canonical_id,
              CASE WHEN c.deleted_at IS NULL THEN c.name END AS name, CASE WHEN c.deleted_at IS NULL THEN c.type END AS type
         FROM entities e JOIN entities c ON c.id = e.canonical_id
        WHERE e.id = ANY($1::uuid[])`,
      [ids],
    );
  },
};
