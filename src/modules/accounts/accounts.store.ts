// SQL for accounts, plans, credits and API keys. Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { SqlParams } from '../../platform/db/sql-params.js';

export interface AccountRow {
  id: string;
  display_name: string | null;
  kind: 'INDIVIDUAL' | 'ORGANIZATION';
  plan: string;
  credit_balance: number;
  structured_reporting: boolean;
  entity_reporting: boolean;
  beats: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string;
  scopes: string[];
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export const PLAN_FIELDS = [
  'beats_max',
  'clauses_max',
  'default_spend_cap_credits',
  'retention_days',
  'backfill_days',
  'search_credit_cost',
  'beat_entry_credit_cost',
  'rest_requests_per_minute',
  'mcp_requests_per_minute',
  'search_execution_retention_seconds',
  'search_max_results',
] as const;

export type PlanField = (typeof PLAN_FIELDS)[number];

/** Lowest accepted value of each plan field (the table's CHECK constraints say the same). */
export const PLAN_FIELD_MINIMUM: Record<PlanField, number> = {
  beats_max: 0,
  clauses_max: 0,
  default_spend_cap_credits: 0,
  retention_days: 1,
  backfill_days: 0,
  search_credit_cost: 0,
  beat_entry_credit_cost: 0,
  rest_requests_per_minute: 1,
  mcp_requests_per_minute: 1,
  search_execution_retention_seconds: 1,
  search_max_results: 1,
};
export type PlanValues = Record<PlanField, number>;
export interface PlanRow extends PlanValues {
  name: string;
}

/** What authentication needs about a key, in one indexed look-up. */
export interface KeyPrincipalRow {
  key_id: string;
  account_id: string;
  scopes: string[];
  revoked_at: Date | null;
  last_used_at: Date | null;
  rest_requests_per_minute: number;
  mcp_requests_per_minute: number;
}

/** What a ledger row is (decisions.md, "Account self-service"). */
export type LedgerKind = 'SEARCH' | 'BEAT_ENTRY' | 'GRANT' | 'ADJUSTMENT';
/** One ledger row: a grant or adjustment (signed), or a charge (negative). */
export interface LedgerRow {
  amount: number;
  reason: string;
  kind: LedgerKind;
  executionId?: string;
  beatId?: string;
}

/** An operator's change of a balance: a grant when it adds, an adjustment when it takes. */
export const operatorKind = (amount: number): LedgerKind => (amount > 0 ? 'GRANT' : 'ADJUSTMENT');

/** Told of ledger rows once they have committed (the metrics' credit counters). */
export type LedgerObserver = (rows: readonly LedgerRow[]) => void;

const ACCOUNT_COLUMNS = 'id, display_name, kind, plan, credit_balance, structured_reporting, entity_reporting, beats, created_at, updated_at';
const KEY_COLUMNS = 'id, account_id, name, scopes, prefix, created_at, revoked_at, last_used_at';

export const accountsStore = {
  insertAccount(db: Queryable, row: Omit<AccountRow, 'credit_balance' | 'updated_at'>) {
    return queryOne<AccountRow>(
      db,
      `INSERT INTO accounts (id, display_name, kind, plan, structured_reporting, entity_reporting, beats, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${ACCOUNT_COLUMNS}`,
      [row.id, row.display_name, row.kind, row.plan, row.structured_reporting, row.entity_reporting, row.beats, row.created_at],
    ) as Promise<AccountRow>;
  },

  getAccount(db: Queryable, id: string, forUpdate = false) {
    return queryOne<AccountRow>(db, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  },

  /** The account and its plan's values, in one statement (no lock). */
  async getAccountWithPlan(db: Queryable, id: string): Promise<{ account: AccountRow; plan: PlanRow } | undefined> {
    const columns = ACCOUNT_COLUMNS.split(', ');
    const row = await queryOne<Record<string, unknown>>(
      db,
      `SELECT ${columns.map((column) => `a.${column}`).join(', ')}, ${PLAN_FIELDS.map((field) => `p.${field}`).join(', ')}
         FROM accounts a JOIN plans p ON p.name = a.plan WHERE a.id = $1`,
      [id],
    );
    if (!row) return undefined;
    const pick = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, row[name]]));
    return { account: pick(columns) as unknown as AccountRow, plan: { name: row.plan, ...pick(PLAN_FIELDS) } as PlanRow };
  },

  updateAccount(db: Queryable, id: string, fields: Partial<Omit<AccountRow, 'id' | 'created_at' | 'credit_balance'>>) {
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    const sets = entries.map(([column], i) => `${column} = $${i + 2}`);
    return queryOne<AccountRow>(db, `UPDATE accounts SET ${sets.join(', ')} WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`, [
      id,
      ...entries.map(([, value]) => value),
    ]);
  },

  /**
   * Appends ledger rows and moves the balance by their sum, in one statement; each row's
   * `balance_after` is the balance once it and those before it are applied (the only place
   * that arithmetic is written). The caller holds the account row lock. `observe` hears of the
   * rows once the caller's transaction commits, never if it rolls back.
   */
  async appendLedger(db: Queryable, accountId: string, rows: readonly LedgerRow[], at: Date, observe: LedgerObserver): Promise<AccountRow> {
    const total = rows.reduce((sum, row) => sum + row.amount, 0);
    const [account] = await db.query<AccountRow>(
      `WITH moved AS (UPDATE accounts SET credit_balance = credit_balance + $2 WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}),
            r AS (SELECT amount, reason, kind, execution_id, beat_id, n, sum(amount) OVER (ORDER BY n) AS running
                    FROM unnest($3::bigint[], $4::text[], $5::text[], $6::uuid[], $7::uuid[])
                         WITH ORDINALITY AS t(amount, reason, kind, execution_id, beat_id, n)),
            written AS (INSERT INTO credit_ledger (account_id, amount, balance_after, reason, created_at, kind, execution_id, beat_id)
                        SELECT $1, r.amount, moved.credit_balance - $2 + r.running, r.reason, $8, r.kind, r.execution_id, r.beat_id
                          FROM r, moved ORDER BY r.n)
       SELECT * FROM moved`,
      [
        accountId,
        total,
        rows.map((row) => row.amount),
        rows.map((row) => row.reason),
        rows.map((row) => row.kind),
        rows.map((row) => row.executionId ?? null),
        rows.map((row) => row.beatId ?? null),
        at,
      ],
    );
    if (!account) throw new Error(`account ${accountId} does not exist`);
    if (db.afterCommit) db.afterCommit(() => observe(rows));
    else observe(rows); // one statement outside a transaction: committed already
    return account;
  },

  /**
   * Spends `row`'s credits (a negative amount, or zero) in one statement that commits by
   * itself, its own transaction: the UPDATE locks the account row and moves the balance only
   * when it covers them; the ledger row (none for zero) and `alongside` are written only then.
   * `alongside` is the caller's data-modifying statement, written into the same parameters,
   * selecting FROM `spent` so that it writes only when the credits were spent. Answers whether
   * they were; `observe` hears of the row once committed.
   */
  async spendInOneStatement(
    db: Queryable,
    accountId: string,
    row: LedgerRow,
    at: Date,
    observe: LedgerObserver,
    alongside: (params: SqlParams) => string,
  ): Promise<boolean> {
    const params = new SqlParams([accountId, row.amount, row.reason, at, row.kind, row.executionId ?? null, row.beatId ?? null]);
    const spent = await db.query(
      `WITH spent AS (UPDATE accounts SET credit_balance = credit_balance + $2::bigint WHERE id = $1 AND credit_balance + $2::bigint >= 0 RETURNING credit_balance),
            ledger AS (INSERT INTO credit_ledger (account_id, amount, balance_after, reason, created_at, kind, execution_id, beat_id)
                       SELECT $1, $2::bigint, spent.credit_balance, $3, $4, $5, $6::uuid, $7::uuid FROM spent WHERE $2::bigint <> 0),
            alongside AS (${alongside(params)})
       SELECT 1 FROM spent`,
      params.values,
      { commits: true },
    );
    if (spent.length === 0) return false;
    if (row.amount !== 0) observe([row]);
    return true;
  },

  ledgerSum(db: Queryable, accountId: string) {
    return queryOne<{ total: number }>(db, 'SELECT COALESCE(SUM(amount), 0)::bigint AS total FROM credit_ledger WHERE account_id = $1', [accountId]);
  },

  getPlan(db: Queryable, name: string) {
    return queryOne<PlanRow>(db, `SELECT name, ${PLAN_FIELDS.join(', ')} FROM plans WHERE name = $1`, [name]);
  },

  listPlans(db: Queryable) {
    return db.query<PlanRow>(`SELECT name, ${PLAN_FIELDS.join(', ')} FROM plans ORDER BY name`);
  },

  upsertPlan(db: Queryable, name: string, values: PlanValues, at: Date) {
    const columns = PLAN_FIELDS.join(', ');
    const placeholders = PLAN_FIELDS.map((_, i) => `$${i + 2}`).join(', ');
    const updates = PLAN_FIELDS.map((field) => `${field} = EXCLUDED.${field}`).join(', ');
    const at$ = PLAN_FIELDS.length + 2;
    return queryOne<PlanRow>(
      db,
      `INSERT INTO plans (name, ${columns}, created_at, updated_at) VALUES ($1, ${placeholders}, $${at$}, $${at$})
       ON CONFLICT (name) DO UPDATE SET ${updates}, updated_at = EXCLUDED.updated_at
       RETURNING name, ${columns}`,
      [name, ...PLAN_FIELDS.map((field) => values[field]), at],
    ) as Promise<PlanRow>;
  },

  countActiveKeys(db: Queryable, accountId: string) {
    return queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [accountId]);
  },

  insertApiKey(db: Queryable, row: Omit<ApiKeyRow, 'revoked_at' | 'last_used_at'> & { key_hash: Buffer }) {
    return queryOne<ApiKeyRow>(
      db,
      `INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
      [row.id, row.account_id, row.name, row.scopes, row.prefix, row.key_hash, row.created_at],
    ) as Promise<ApiKeyRow>;
  },

  /** Revokes a key, of one account when `accountId` is given (a key of another reads as none). */
  revokeApiKey(db: Queryable, id: string, at: Date, accountId: string | null = null) {
    return queryOne<ApiKeyRow & { key_hash: Buffer }>(
      db,
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 AND ($3::uuid IS NULL OR account_id = $3) RETURNING ${KEY_COLUMNS}, key_hash`,
      [id, at, accountId],
    );
  },

  /** Never moves backwards, whichever process writes last. */
  stampLastUsed(db: Queryable, id: string, at: Date) {
    return db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [id, at]);
  },

  listApiKeys(db: Queryable, accountId: string) {
    return db.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
  },

  findPrincipalByHash(db: Queryable, hash: Buffer) {
    return queryOne<KeyPrincipalRow>(
      db,
      `SELECT k.id AS key_id, k.account_id, k.scopes, k.revoked_at, k.last_used_at, p.rest_requests_per_minute, p.mcp_requests_per_minute
         FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN plans p ON p.name = a.plan
        WHERE k.key_hash = $1`,
      [hash],
    );
  },
};
