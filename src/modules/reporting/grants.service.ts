// Reporting grants (v1 document, Reporting grant; operations.md, reporting grants): the
// operator creates and revokes them; an account with entity reporting lists its own and files
// reports under them. Staleness is computed from the event type as it is now.
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import { accountsStore } from '../accounts/accounts.store.js';
import { referenceStore } from '../corpus/reference.store.js';
import type { CreateGrantBody, ReportingGrant } from './reporting.schemas.js';
import { grantsStore as store, type GrantRow, type PinRow } from './grants.store.js';

export interface GrantsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
}

/** A grant as a filing sees it: its pins with their allowed entities as live survivors (id → name). */
export interface UsableGrant {
  row: GrantRow;
  stale: boolean;
  pins: { roleId: string; allowed: Map<string, string> }[];
}

const invalid = fieldProblem;
const notFound = (id: string) => new ProblemError('not-found', `No reporting grant with id ${id}.`);
export const grantNotUsable = () =>
  new ProblemError('not-entitled', 'This grant cannot be used: it does not exist, is not yours, was revoked, has expired, or is for another event type.', {
    code: 'GRANT_NOT_USABLE',
  });

/** A pinned role removed from the type, or no longer taking entities, makes the grant stale. */
const pinIsStale = (pin: PinRow) => pin.role_code_name === null || pin.expected_type !== 'NAMED_ENTITY';

function statusOf(row: GrantRow, now: Date): 'ACTIVE' | 'EXPIRED' | 'REVOKED' {
  if (row.revoked_at !== null) return 'REVOKED';
  return row.expires_at.getTime() <= now.getTime() ? 'EXPIRED' : 'ACTIVE';
}

async function grantViews(db: Queryable, rows: readonly GrantRow[], now: Date): Promise<(ReportingGrant & { _row: GrantRow })[]> {
  const pins =
    rows.length === 0
      ? []
      : await store.pinsOf(
          db,
          rows.map((r) => r.id),
        );
  const entities = new Map((await store.allowedEntities(db, [...new Set(pins.flatMap((p) => p.allowed_entity_ids))])).map((e) => [e.id, e]));
  return rows.map((row) => {
    const own = pins.filter((p) => p.grant_id === row.id);
    return {
      _row: row,
      id: row.id,
      object: 'reporting_grant' as const,
      label: row.label,
      status: statusOf(row, now),
      is_stale: own.some(pinIsStale),
      expires_at: row.expires_at.toISOString(),
      event_type_id: row.event_type_id,
      pins: own.map((pin) => {
        // Allowed entities as they are now: survivors of merges, once each; deleted ones gone.
        const seen = new Set<string>();
        const allowed = pin.allowed_entity_ids.flatMap((id) => {
          const entity = entities.get(id);
          if (!entity?.canonical_id || seen.has(entity.canonical_id)) return [];
          seen.add(entity.canonical_id);
          return [{ object: 'entity' as const, id: entity.canonical_id, name: entity.name!, type: entity.type }];
        });
        return { role_definition_id: pin.role_id, role: pin.role_code_name, allowed_entities: allowed };
      }),
    };
  });
}

function opsView(view: ReportingGrant & { _row: GrantRow }) {
  const { _row: row, ...grant } = view;
  return { ...grant, account_id: row.account_id, revoked_at: row.revoked_at?.toISOString() ?? null, created_at: row.created_at.toISOString() };
}

function publicView(view: ReportingGrant & { _row: GrantRow }): ReportingGrant {
  const { _row: _, ...grant } = view;
  return grant;
}

export function grantsService({ db, clock, newId }: GrantsDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  async function opsGrant(q: Queryable, id: string) {
    const row = await store.get(q, id);
    if (!row) throw notFound(id);
    const [view] = await grantViews(q, [row], clock.now());
    return opsView(view!);
  }

  return {
    async create(sent: CreateGrantBody) {
      // Ids compare as the database writes them: lowercase.
      const input = {
        ...sent,
        label: sent.label.trim(),
        account_id: sent.account_id.toLowerCase(),
        event_type_id: sent.event_type_id.toLowerCase(),
        pins: sent.pins.map((pin) => ({ ...pin, allowed_entity_ids: pin.allowed_entity_ids.map((id) => id.toLowerCase()) })),
      };
      if (input.label === '') throw invalid('/label', 'is blank');
      const expiresAt = new Date(input.expires_at);
      if (Number.isNaN(expiresAt.getTime())) throw invalid('/expires_at', 'is not a readable timestamp');
      if (expiresAt.getTime() <= clock.nowMs()) throw invalid('/expires_at', 'is not in the future');
      return db.transaction(async (tx) => {
        if (!(await referenceStore.accountExists(tx, input.account_id))) throw invalid('/account_id', 'names no account');
        const type = await referenceStore.getEventType(tx, input.event_type_id);
        if (!type) throw invalid('/event_type_id', 'names no event type');
        const roles = new Map((await referenceStore.rolesOf(tx, [type.id])).map((role) => [role.code_name, role]));
        // Every pinned entity in one look-up.
        const found = new Map(
          (await referenceStore.resolveEntities(tx, [...new Set(input.pins.flatMap((pin) => pin.allowed_entity_ids))])).map((e) => [e.id, e]),
        );
        const pinned = new Set<string>();
        const pins = [];
        for (const [i, pin] of input.pins.entries()) {
          const role = roles.get(pin.role);
          if (!role) throw invalid(`/pins/${i}/role`, `"${pin.role}" is not a role of this event type`);
          if (role.expected_type !== 'NAMED_ENTITY') throw invalid(`/pins/${i}/role`, `"${pin.role}" is not a NAMED_ENTITY role`);
          if (pinned.has(role.id)) throw invalid(`/pins/${i}/role`, `pins "${pin.role}" a second time`);
          pinned.add(role.id);
          pin.allowed_entity_ids.forEach((id, j) => {
            if (!found.get(id) || found.get(id)!.deleted) throw invalid(`/pins/${i}/allowed_entity_ids/${j}`, 'names no entity');
          });
          pins.push({ roleId: role.id, entityIds: [...new Set(pin.allowed_entity_ids)] });
        }
        const id = newId();
        const at = clock.now();
        await store.insert(
          tx,
          { id, account_id: input.account_id, label: input.label, event_type_id: type.id, expires_at: expiresAt, revoked_at: null, created_at: at },
          pins,
        );
        return opsGrant(tx, id);
      });
    },

    async revoke(id: string) {
      return db.transaction(async (tx) => {
        const row = await store.get(tx, id, 'update');
        if (!row) throw notFound(id);
        // As with API keys, revoking a revoked grant changes nothing and answers it.
        if (row.revoked_at === null) await store.revoke(tx, id, clock.now());
        return opsGrant(tx, id);
      });
    },

    /** The account's grants, newest first; none without the entity reporting entitlement. */
    async list(accountId: string) {
      const account = await accountsStore.getAccount(reads, accountId);
      const rows = account?.entity_reporting ? await store.ofAccount(reads, accountId) : [];
      const data = (await grantViews(reads, rows, clock.now())).map(publicView);
      return { object: 'list' as const, data, has_more: false, next_cursor: null };
    },

    /**
     * The grant a report is filed under, if this account may use it now for this event type;
     * else 403 GRANT_NOT_USABLE (the answer never says which rule failed). Staleness is left to
     * the content checks (GRANT_STALE). Called in the filing's transaction: the grant row is
     * share-locked until it ends, so a revocation waits for the filing or comes before it.
     */
    async usable(q: Queryable, accountId: string, grantId: string, eventTypeId: string, now: Date): Promise<UsableGrant> {
      const row = await store.get(q, grantId, 'share');
      if (!row || row.account_id !== accountId || statusOf(row, now) !== 'ACTIVE' || row.event_type_id !== eventTypeId) throw grantNotUsable();
      const pins = await store.pinsOf(q, [row.id]);
      const entities = await store.allowedEntities(q, [...new Set(pins.flatMap((p) => p.allowed_entity_ids))]);
      const byId = new Map(entities.map((e) => [e.id, e]));
      const allowed = (ids: string[]) =>
        new Map(
          ids.flatMap((id) => {
            const e = byId.get(id);
            return e?.canonical_id ? [[e.canonical_id, e.name!] as const] : [];
          }),
        );
      return { row, stale: pins.some(pinIsStale), pins: pins.map((pin) => ({ roleId: pin.role_id, allowed: allowed(pin.allowed_entity_ids) })) };
    },
  };
}

export type GrantsService = ReturnType<typeof grantsService>;
