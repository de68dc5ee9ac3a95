// Corpus reference data: outlets, entities (merges resolve to survivors, chains included;
// deletion), entity lists, and event types with their roles and sentence template.
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs.js';
import { REFRESH_EVENTS_JOB } from './event-changes.js';
import { eventsStore } from './events.store.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import type {
  CreateEventTypeBody,
  Entity,
  EventType,
  OpsEventType,
  RoleDefinition,
  RoleInput,
  RoleValueType,
  UpdateEventTypeBody,
} from './reference.schemas.js';
import { referenceStore as store, type EntityRow, type EventTypeRow, type RoleRow } from './reference.store.js';
import { templateRoles } from './sentence.js';
import { listPage } from '../../platform/list-page.js';

export interface CorpusDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  jobs: JobQueue;
}

const invalid = fieldProblem;
const notFound = (what: string, id: string) => new ProblemError('not-found', `No ${what} with id ${id}.`);

const entityView = (row: { id: string; name: string; type: string | null }): Entity => ({ object: 'entity', id: row.id, name: row.name, type: row.type });
const roleView = (row: RoleRow): RoleDefinition => ({
  id: row.id,
  code_name: row.code_name,
  name: row.name,
  expected_type: row.expected_type as RoleValueType | null,
});

function eventTypeView(row: EventTypeRow, roles: RoleRow[]): OpsEventType {
  return {
    object: 'event_type',
    id: row.id,
    code_name: row.code_name,
    name: row.name,
    description: row.description,
    roles: roles.map(roleView),
    sentence_template: row.sentence_template,
    accepting_reports: row.accepting_reports,
  };
}

/** Checks a role list and a template together: unique code names, braces naming roles. */
function checkRolesAndTemplate(roles: readonly { code_name: string }[], template: string, rolesPointer: string): void {
  const seen = new Set<string>();
  roles.forEach((role, i) => {
    if (seen.has(role.code_name)) throw invalid(`${rolesPointer}/${i}/code_name`, `repeats the role "${role.code_name}"`);
    seen.add(role.code_name);
  });
  const named = templateRoles(template);
  if (named === null) throw invalid('/sentence_template', 'has unbalanced braces');
  for (const name of named) if (!seen.has(name)) throw invalid('/sentence_template', `names "{${name}}", which is not a role of this event type`);
}

export function referenceService({ db, clock, newId, jobs }: CorpusDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  /**
   * The events naming an entity get their state recomputed in the background; the search
   * index reads them again at once (their entities read through survivors, event-entities.ts).
   */
  async function refreshEventsOf(tx: Queryable, entityId: string): Promise<void> {
    const eventIds = await eventsStore.eventsNaming(tx, entityId);
    // Locked before their participant rows are rewritten (eventsStore.lockEvents). No event gains a
    // row for this entity meanwhile: ingest share-locks the entity, which the caller holds.
    await eventsStore.lockEvents(tx, eventIds);
    await eventsStore.logChanged(tx, eventIds);
    if (eventIds.length > 0) await jobs.enqueue(tx, REFRESH_EVENTS_JOB, { event_ids: eventIds });
  }

  async function loadEventType(tx: Queryable, id: string, forUpdate = false): Promise<OpsEventType> {
    const row = await store.getEventType(tx, id, forUpdate);
    if (!row) throw notFound('event type', id);
    return eventTypeView(row, await store.rolesOf(tx, [id]));
  }

  return {
    async createOutlet(input: { name: string; domain?: string | null }) {
      const row = await store.insertOutlet(db, { id: newId(), name: input.name, domain: input.domain ?? null, created_at: clock.now() });
      return { object: 'news_outlet' as const, ...row! };
    },

    async listOutlets({ query, limit, starting_after }: { query?: string; limit: number; starting_after?: string }) {
      const rows = await store.outlets(reads, query ?? null, limit + 1, starting_after ?? null);
      return listPage(
        rows.map((row) => ({ object: 'news_outlet' as const, ...row })),
        limit,
      );
    },

    async createEntity(input: { name: string; type?: string | null }): Promise<Entity> {
      return entityView((await store.insertEntity(db, { id: newId(), name: input.name, type: input.type ?? null, created_at: clock.now() }))!);
    },

    /** Merges `id` into `intoId` (or into its survivor); answers the survivor. */
    async mergeEntity(id: string, intoId: string): Promise<Entity> {
      return db.transaction(async (tx) => {
        const [first, second] = [id, intoId].sort(); // lock in one order: no deadlock between opposite merges
        await store.getEntity(tx, first!, true);
        await store.getEntity(tx, second!, true);
        const merged = await store.getEntity(tx, id);
        if (!merged) throw notFound('entity', id);
        const target = await store.getEntity(tx, intoId);
        if (!target) throw invalid('/into_entity_id', 'names no entity');
        if (merged.merged_into) throw new ProblemError('state-conflict', `Entity ${id} is already merged into ${merged.canonical_id}.`);
        if (merged.deleted_at) throw notFound('entity', id);
        const survivor = (await store.getEntity(tx, target.canonical_id, true)) as EntityRow;
        if (survivor.id === id) throw invalid('/into_entity_id', 'resolves to the entity itself');
        if (survivor.deleted_at) throw invalid('/into_entity_id', 'names a deleted entity');
        await refreshEventsOf(tx, id);
        await store.mergeEntity(tx, id, survivor.id);
        return entityView(survivor);
      });
    },

    async deleteEntity(id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const row = await store.getEntity(tx, id, true);
        if (!row || row.deleted_at) throw notFound('entity', id);
        if (row.merged_into) throw new ProblemError('state-conflict', `Entity ${id} was merged into ${row.canonical_id}; delete the survivor instead.`);
        await refreshEventsOf(tx, id);
        await store.deleteEntity(tx, id, clock.now());
      });
    },

    async searchEntities(query: string, limit: number, startingAfter?: string) {
      if (startingAfter && !(await store.getEntity(reads, startingAfter))) {
        throw new ProblemError('validation-failed', 'starting_after names no entity.');
      }
      const rows = await store.searchEntities(reads, query, limit + 1, startingAfter ?? null);
      return listPage(rows.map(entityView), limit);
    },

    async createEntityList(input: { name: string; owner_account_id?: string | null; entity_ids: string[] }) {
      return db.transaction(async (tx) => {
        const owner = input.owner_account_id ?? null;
        if (owner !== null && !(await store.accountExists(tx, owner))) throw invalid('/owner_account_id', 'names no account');
        const ids = [...new Set(input.entity_ids)];
        const found = new Map((await store.resolveEntities(tx, ids)).map((r) => [r.id, r]));
        input.entity_ids.forEach((entityId, i) => {
          const entity = found.get(entityId);
          if (!entity) throw invalid(`/entity_ids/${i}`, 'names no entity');
          if (entity.deleted) throw invalid(`/entity_ids/${i}`, 'names a deleted entity');
        });
        const id = newId();
        await store.insertEntityList(tx, { id, name: input.name, owner_account_id: owner, created_at: clock.now() }, ids);
        return { object: 'entity_list' as const, id, name: input.name, owner_account_id: owner, entity_ids: ids };
      });
    },

    async createEventType(input: CreateEventTypeBody): Promise<OpsEventType> {
      input.roles.forEach((role, i) => {
        if (role.id !== undefined) throw invalid(`/roles/${i}/id`, 'is assigned by the server; omit it on create');
      });
      checkRolesAndTemplate(input.roles, input.sentence_template, '/roles');
      return db.transaction(async (tx) => {
        if (await store.eventTypeByCode(tx, input.code_name)) throw invalid('/code_name', 'is already used by another event type');
        const id = newId();
        await store.insertEventType(tx, {
          id,
          code_name: input.code_name,
          name: input.name,
          description: input.description,
          sentence_template: input.sentence_template,
          accepting_reports: input.accepting_reports ?? true,
          at: clock.now(),
        });
        await store.replaceRoles(
          tx,
          id,
          input.roles.map((role, position) => ({ ...role, id: newId(), event_type_id: id, position, expected_type: role.expected_type ?? null })),
          clock.now(),
        );
        return loadEventType(tx, id);
      });
    },

    async updateEventType(id: string, input: UpdateEventTypeBody): Promise<OpsEventType> {
      return db.transaction(async (tx) => {
        const current = await loadEventType(tx, id, true);
        const currentIds = new Set(current.roles.map((r) => r.id));
        const roles: RoleInput[] = input.roles ?? current.roles;
        roles.forEach((role, i) => {
          if (role.id !== undefined && !currentIds.has(role.id)) throw invalid(`/roles/${i}/id`, 'is not a current role of this event type');
        });
        const template = input.sentence_template ?? current.sentence_template;
        checkRolesAndTemplate(roles, template, '/roles');
        const at = clock.now();
        await store.updateEventType(tx, {
          id,
          code_name: current.code_name,
          name: input.name ?? current.name,
          description: input.description ?? current.description,
          sentence_template: template,
          accepting_reports: input.accepting_reports ?? current.accepting_reports,
          at,
        });
        if (input.roles) {
          const seen = new Set<string>();
          const rows = input.roles.map((role, position) => {
            const roleId = role.id ?? newId();
            if (seen.has(roleId)) throw invalid(`/roles/${position}/id`, 'repeats a role id');
            seen.add(roleId);
            return { id: roleId, event_type_id: id, code_name: role.code_name, name: role.name, expected_type: role.expected_type ?? null, position };
          });
          await store.replaceRoles(tx, id, rows, at);
        }
        return loadEventType(tx, id);
      });
    },

    getEventType: (id: string) => loadEventType(reads, id),

    /** Names by id, for showing an account's saved filters (beat clauses) in words; ids not found (or lists it cannot use) are left out. */
    async names(accountId: string, ids: Parameters<typeof store.namesOf>[2]): Promise<ReferenceNames> {
      const names: ReferenceNames = { eventTypes: new Map(), roles: new Map(), entities: new Map(), entityLists: new Map(), outlets: new Map() };
      const into = { event_type: names.eventTypes, role: names.roles, entity: names.entities, entity_list: names.entityLists, outlet: names.outlets };
      for (const row of await store.namesOf(reads, accountId, ids)) into[row.kind].set(row.key, row.name);
      return names;
    },

    /** Event types accepting reports, public view, in the list envelope (not paged: one page, `has_more` false). */
    async listEventTypes() {
      const types = await store.acceptingEventTypes(reads);
      const roles = await store.rolesOf(
        reads,
        types.map((t) => t.id),
      );
      const data = types.map((type): EventType => {
        const {
          sentence_template: _t,
          accepting_reports: _a,
          ...view
        } = eventTypeView(
          type,
          roles.filter((r) => r.event_type_id === type.id),
        );
        return view;
      });
      return { object: 'list' as const, data, has_more: false, next_cursor: null };
    },
  };
}

/** Names by id; a role's key is "event type id:role code name". */
export interface ReferenceNames {
  eventTypes: Map<string, string>;
  roles: Map<string, string>;
  entities: Map<string, string>;
  entityLists: Map<string, string>;
  outlets: Map<string, string>;
}

export type ReferenceService = ReturnType<typeof referenceService>;
