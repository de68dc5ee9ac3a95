// Accounts, plans, credits and API keys: the rules. Used by the operator API, the CLI and the
// authentication layer alike; never imports the web framework.
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import { ProblemError } from '../../platform/problems.js';
import type { IdGenerator } from '../../platform/ids.js';
import { generateRawKey } from './api-key-format.js';
import type { KeyAuthenticator } from './key-authenticator.js';
import { operatorKind, accountsStore as store, type AccountRow, type ApiKeyRow, type LedgerObserver, type PlanRow, type PlanValues } from './accounts.store.js';
import type { Scope } from '../../platform/scopes.js';
import type { Account, ApiKey, CreateAccountBody, Plan, UpdateAccountBody } from './accounts.schemas.js';

export const MAX_ACTIVE_KEYS = 10;

export interface AccountsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  /** The authenticator's cache: what changes a key's principal evicts it, at once in this process. */
  keyCache: Pick<KeyAuthenticator, 'evict' | 'evictAccount' | 'evictAll'>;
  /** Hears of every grant and debit once committed (the metrics). */
  onLedger: LedgerObserver;
}

export function accountView(row: AccountRow): Account {
  return {
    object: 'account',
    id: row.id,
    display_name: row.display_name,
    kind: row.kind,
    plan: row.plan,
    credit_balance: row.credit_balance,
    entitlements: {
      structured_reporting: row.structured_reporting,
      entity_reporting: row.entity_reporting,
      beats: row.beats,
    },
    created_at: row.created_at.toISOString(),
  };
}

export function apiKeyView(row: ApiKeyRow, rawKey?: string): ApiKey {
  return {
    object: 'api_key',
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    scopes: row.scopes,
    prefix: row.prefix,
    ...(rawKey === undefined ? {} : { key: rawKey }),
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

export function planView(row: PlanRow): Plan {
  return { object: 'plan', ...row };
}

const notFound = (what: string, id: string) => new ProblemError('not-found', `No ${what} with id ${id}.`);

export function accountsService({ db, clock, newId, keyCache, onLedger }: AccountsDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  async function requirePlan(tx: Parameters<Parameters<Database['transaction']>[0]>[0], name: string) {
    const plan = await store.getPlan(tx, name);
    if (!plan) {
      throw new ProblemError('validation-failed', `No plan named "${name}".`, {
        errors: [{ pointer: '/plan', detail: `no plan named "${name}"` }],
      });
    }
    return plan;
  }

  return {
    async createAccount(input: CreateAccountBody): Promise<Account> {
      return db.transaction(async (tx) => {
        await requirePlan(tx, input.plan ?? 'standard');
        const now = clock.now();
        let row = await store.insertAccount(tx, {
          id: newId(),
          display_name: input.display_name ?? null,
          kind: input.kind ?? 'INDIVIDUAL',
          plan: input.plan ?? 'standard',
          structured_reporting: input.entitlements?.structured_reporting ?? false,
          entity_reporting: input.entitlements?.entity_reporting ?? false,
          beats: input.entitlements?.beats ?? false,
          created_at: now,
        });
        if (input.credit_balance) {
          row = await store.appendLedger(
            tx,
            row.id,
            [{ amount: input.credit_balance, reason: 'initial balance', kind: operatorKind(input.credit_balance) }],
            now,
            onLedger,
          );
        }
        return accountView(row);
      });
    },

    async getAccount(id: string): Promise<Account> {
      const row = await store.getAccount(reads, id);
      if (!row) throw notFound('account', id);
      return accountView(row);
    },

    async updateAccount(id: string, input: UpdateAccountBody): Promise<Account> {
      const account = await db.transaction(async (tx) => {
        const current = await store.getAccount(tx, id, true);
        if (!current) throw notFound('account', id);
        if (input.plan !== undefined) await requirePlan(tx, input.plan);
        const row = await store.updateAccount(tx, id, {
          display_name: input.display_name,
          kind: input.kind,
          plan: input.plan,
          structured_reporting: input.entitlements?.structured_reporting,
          entity_reporting: input.entitlements?.entity_reporting,
          beats: input.entitlements?.beats,
          updated_at: clock.now(),
        });
        return accountView(row!);
      });
      keyCache.evictAccount(id); // a plan change resizes the account's budgets at once
      return account;
    },

    /** Grants (positive) or debits (negative) credits; a debit never takes the balance below zero. */
    async adjustCredits(id: string, amount: number, reason: string): Promise<Account> {
      return db.transaction(async (tx) => {
        const current = await store.getAccount(tx, id, true);
        if (!current) throw notFound('account', id);
        if (current.credit_balance + amount < 0) {
          throw new ProblemError(
            'insufficient-credits',
            `A debit of ${-amount} would take the balance of ${current.credit_balance} below zero. Nothing was changed.`,
          );
        }
        return accountView(await store.appendLedger(tx, id, [{ amount, reason, kind: operatorKind(amount) }], clock.now(), onLedger));
      });
    },

    async ledgerSum(id: string): Promise<number> {
      return (await store.ledgerSum(reads, id))?.total ?? 0;
    },

    async createApiKey(accountId: string, input: { name: string; scopes: Scope[] }): Promise<ApiKey> {
      return db.transaction(async (tx) => {
        // The account row lock serializes key creation, so two concurrent creates cannot both
        // pass the count check and make an 11th key.
        const account = await store.getAccount(tx, accountId, true);
        if (!account) throw notFound('account', accountId);
        const scopes = new Set<Scope>(input.scopes);
        if (scopes.has('REPORTS_WRITE')) {
          if (!account.structured_reporting && !account.entity_reporting) {
            throw new ProblemError('validation-failed', 'REPORTS_WRITE needs an account with a reporting entitlement.', {
              errors: [{ pointer: '/scopes', detail: 'REPORTS_WRITE needs a reporting entitlement on the account' }],
            });
          }
          scopes.add('REPORTS_READ');
        }
        const active = (await store.countActiveKeys(tx, accountId))?.n ?? 0;
        if (active >= MAX_ACTIVE_KEYS) {
          throw new ProblemError('quota-exceeded', `An account holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`);
        }
        const key = generateRawKey();
        const row = await store.insertApiKey(tx, {
          id: newId(),
          account_id: accountId,
          name: input.name,
          scopes: [...scopes].sort(),
          prefix: key.prefix,
          key_hash: key.hash,
          created_at: clock.now(),
        });
        return apiKeyView(row, key.raw);
      });
    },

    /** Revokes a key (a second revoke changes nothing), of one account when `accountId` is given: the console's own. */
    async revokeApiKey(id: string, accountId: string | null = null): Promise<ApiKey> {
      const row = await store.revokeApiKey(db, id, clock.now(), accountId);
      if (!row) throw notFound('API key', id);
      const { key_hash: keyHash, ...key } = row;
      keyCache.evict(Buffer.from(keyHash)); // honoured at once in this process (PGlite returns bytea as Uint8Array)
      return apiKeyView(key);
    },

    async listApiKeys(accountId: string): Promise<ApiKey[]> {
      await this.getAccount(accountId);
      return (await store.listApiKeys(reads, accountId)).map((row) => apiKeyView(row));
    },

    async listPlans(): Promise<Plan[]> {
      return (await store.listPlans(reads)).map(planView);
    },

    async putPlan(name: string, values: PlanValues): Promise<Plan> {
      const plan = planView(await store.upsertPlan(db, name, values, clock.now()));
      keyCache.evictAll(); // budgets follow the plan at once
      return plan;
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
