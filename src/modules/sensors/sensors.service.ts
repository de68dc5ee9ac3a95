// Sensors: saved filters whose matching events are pushed to webhooks (decisions.md,
// "Sensors"). Every write happens in one transaction with the checks that read for it, an
// existing sensor's row locked; a change of filter or state moves the "sensors" filter version
// so every process's matching index picks it up.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { lastUtcDays, perDay } from '../../platform/day-series.js';
import type { CommitAnswer } from '../../platform/idempotency-claims.js';
import type { IdGenerator } from '../../platform/ids.js';
import { listPage } from '../../platform/list-page.js';
import { ProblemError, type FieldError } from '../../platform/problems.js';
import { referenceStore } from '../corpus/reference.store.js';
import { entityListReferences, entityListsInaccessible, unusableEntityLists } from '../filters/entity-list-access.js';
import { bumpFilterVersion } from '../corpus/filter-versions.store.js';
import { normalizeFilter } from '../filters/filter.js';
import type { CreateSensorBody, PatchSensorBody, Sensor, SensorDelivery, SensorFilter } from './sensors.schemas.js';
import { sensorsStore as store, type DeliveryRow, type SensorRow, type StoredAction } from './sensors.store.js';
import { nonPublicLiteralHost } from '../webhooks/address-policy.js';
import { deliveryBody, type DeliveryOutbox, type DeliveryType } from '../webhooks/outbox.js';
import type { SensorSecrets } from './sensor-secrets.js';
import { latestMatchingEvent } from './sensor-test-event.js';

/** After a rotation the previous secret keeps signing this long. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface SensorsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  /** The webhooks module's outbox, which alone writes deliveries. */
  outbox: DeliveryOutbox;
  /** EVMON_WEBHOOK_ALLOW_PRIVATE: webhook URLs may name non-public IP addresses. */
  allowPrivateWebhooks: boolean;
  /** Seals signing secrets for storing: the table never holds one in clear. */
  secrets: Pick<SensorSecrets, 'seal'>;
}

export interface ListQuery {
  limit: number;
  starting_after?: string;
}

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The sensor filter with every field, defaults filled in (the filter module's defaults). */
export function completeFilter(input: { [K in keyof SensorFilter]?: SensorFilter[K] | null }): SensorFilter {
  const { scope: _scope, role_filters: _roleFilters, ...filter } = normalizeFilter(input);
  return filter;
}

const notFound = (id: string) => new ProblemError('not-found', `No sensor with id ${id}.`);

function view(row: SensorRow, signingSecret?: string): Sensor {
  return {
    id: row.id,
    object: 'sensor',
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    deliver_updates: row.deliver_updates,
    filter: row.filter,
    actions: row.actions.map(({ id, type, url }) => ({ id, type, url })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(signingSecret === undefined ? {} : { signing_secret: signingSecret }),
  };
}

function deliveryView(row: DeliveryRow): SensorDelivery {
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  return {
    id: row.id,
    object: 'sensor_delivery',
    type: row.type,
    event_id: row.event_id,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.status === 'SUCCEEDED' ? null : row.last_error,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.status === 'PENDING' ? iso(row.next_attempt_at) : null,
    created_at: row.created_at.toISOString(),
  };
}

type CheckedAction = Omit<StoredAction, 'id'>;

/**
 * Webhook actions as written: `https:` only, without credentials, each URL once, and no IP
 * address outside public space unless the rule is lifted (host names are checked when
 * delivering, at each connection). Throws 400 naming each bad URL.
 */
function checkActions(actions: CreateSensorBody['actions'], allowPrivate: boolean): CheckedAction[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const checked = actions.map((action, i) => {
    const pointer = `/actions/${i}/url`;
    let url: URL | null = null;
    try {
      url = new URL(action.url);
    } catch {
      errors.push({ pointer, detail: 'is not a URL' });
    }
    if (url && url.protocol !== 'https:') errors.push({ pointer, detail: 'must be an https: URL' });
    if (url && (url.username || url.password)) errors.push({ pointer, detail: 'must not carry credentials' });
    const literal = url && !allowPrivate ? nonPublicLiteralHost(url) : null;
    if (literal) errors.push({ pointer, detail: `names the address ${literal}, which is not a public address` });
    const href = url?.href ?? action.url;
    if (url && seen.has(href)) errors.push({ pointer, detail: 'repeats the URL of an earlier action' });
    seen.add(href);
    return { type: 'webhook' as const, url: href, host: url ? `${url.hostname}:${url.port || '443'}` : '' };
  });
  if (errors.length > 0) throw new ProblemError('validation-failed', "The sensor's actions are not valid.", { errors });
  return checked;
}

/** Ids for checked actions: an action that keeps its URL keeps its id. */
function withIds(actions: readonly CheckedAction[], previous: readonly StoredAction[], newId: IdGenerator): StoredAction[] {
  return actions.map((action) => ({ id: previous.find((p) => p.url === action.url)?.id ?? newId(), ...action }));
}

export function sensorsService({ db, clock, newId, outbox, allowPrivateWebhooks, secrets }: SensorsDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  /** The content rules a schema cannot state. */
  async function checkFilter(q: Queryable, accountId: string, filter: SensorFilter): Promise<void> {
    const names = filter.involved_entity_ids.length + filter.involved_entity_list_ids.length + filter.required_source_news_outlet_ids.length;
    if (filter.event_type_id === null && names === 0) {
      throw new ProblemError('validation-failed', 'A sensor filter names an event type, or at least one entity, entity list or outlet.', {
        errors: [{ pointer: '/filter', detail: 'names no event type, entity, entity list or outlet' }],
      });
    }
    if (filter.event_type_id !== null) {
      const found = await referenceStore.eventTypesWithRoles(q, [filter.event_type_id]);
      if (!found.has(filter.event_type_id)) {
        throw new ProblemError('validation-failed', 'The sensor filter is not valid.', {
          errors: [{ pointer: '/filter/event_type_id', detail: 'names no event type' }],
        });
      }
    }
    const refused = await unusableEntityLists(q, accountId, entityListReferences(filter, '/filter'));
    if (refused.length > 0) throw entityListsInaccessible(refused);
  }

  /**
   * Runs a change on the account's sensor, locked; 404 when it is not the account's.
   * `commitAnswer` stores the change's answer in its transaction.
   */
  async function change<T>(accountId: string, id: string, apply: (row: SensorRow, tx: Queryable) => Promise<T>, commitAnswer?: CommitAnswer<T>): Promise<T> {
    return db.transaction(async (tx) => {
      const row = await store.get(tx, accountId, id, { lock: true });
      if (!row) throw notFound(id);
      const answer = await apply(row, tx);
      await commitAnswer?.(tx, answer, clock.now());
      return answer;
    });
  }

  return {
    async create(accountId: string, body: CreateSensorBody, commitAnswer?: CommitAnswer<Sensor>): Promise<Sensor> {
      const filter = completeFilter(body.filter);
      const actions = withIds(checkActions(body.actions, allowPrivateWebhooks), [], newId);
      return db.transaction(async (tx) => {
        await checkFilter(tx, accountId, filter);
        const now = clock.now();
        const id = newId();
        const secret = newSigningSecret();
        const row: SensorRow = {
          id,
          account_id: accountId,
          name: body.name,
          description: body.description ?? null,
          enabled: body.enabled ?? true,
          deliver_updates: body.deliver_updates ?? false,
          filter,
          actions,
          signing_secret: secrets.seal(id, secret),
          previous_signing_secret: null,
          previous_secret_expires_at: null,
          created_at: now,
          updated_at: now,
        };
        await store.insert(tx, row);
        await bumpFilterVersion(tx, 'sensors');
        const answer = view(row, secret);
        await commitAnswer?.(tx, answer, now);
        return answer;
      });
    },

    async get(accountId: string, id: string): Promise<Sensor> {
      const row = await store.get(reads, accountId, id);
      if (!row) throw notFound(id);
      return view(row);
    },

    async list(accountId: string, query: ListQuery) {
      const rows = await store.list(reads, accountId, query.starting_after ?? null, query.limit + 1);
      return listPage(
        rows.map((row) => view(row)),
        query.limit,
      );
    },

    /** JSON Merge Patch over name, description, filter, actions and deliver_updates. */
    patch(accountId: string, id: string, body: PatchSensorBody): Promise<Sensor> {
      // The body is judged before the sensor is looked up (400 before 404).
      const checked = body.actions === undefined ? null : checkActions(body.actions, allowPrivateWebhooks);
      return change(accountId, id, async (row, tx) => {
        const filter = body.filter === undefined ? row.filter : completeFilter({ ...row.filter, ...body.filter });
        const actions = checked === null ? row.actions : withIds(checked, row.actions, newId);
        if (body.filter !== undefined) await checkFilter(tx, accountId, filter);
        const next: SensorRow = {
          ...row,
          name: body.name ?? row.name,
          description: body.description === undefined ? row.description : body.description,
          filter,
          actions,
          // null resets it to its default, as for filter fields.
          deliver_updates: body.deliver_updates === undefined ? row.deliver_updates : (body.deliver_updates ?? false),
          updated_at: clock.now(),
        };
        await store.update(tx, next);
        // The matching index holds the filters and whether any sensor delivers updates.
        if (body.filter !== undefined || next.deliver_updates !== row.deliver_updates) await bumpFilterVersion(tx, 'sensors');
        return view(next);
      });
    },

    setEnabled(accountId: string, id: string, enabled: boolean, commitAnswer?: CommitAnswer<Sensor>): Promise<Sensor> {
      return change(
        accountId,
        id,
        async (row, tx) => {
          if (row.enabled === enabled) throw new ProblemError('state-conflict', `The sensor is already ${enabled ? 'enabled' : 'disabled'}.`);
          const next = { ...row, enabled, updated_at: clock.now() };
          await store.update(tx, next);
          await bumpFilterVersion(tx, 'sensors');
          return view(next);
        },
        commitAnswer,
      );
    },

    remove(accountId: string, id: string): Promise<void> {
      return change(accountId, id, async (row, tx) => {
        await store.delete(tx, row.id);
        await bumpFilterVersion(tx, 'sensors');
      });
    },

    /** A new secret; the previous one keeps signing for 24 hours (moved as sealed: it is bound to the sensor, not the column). */
    rotateSecret(accountId: string, id: string, commitAnswer?: CommitAnswer<Sensor>): Promise<Sensor> {
      return change(
        accountId,
        id,
        async (row, tx) => {
          const now = clock.now();
          const secret = newSigningSecret();
          const next: SensorRow = {
            ...row,
            signing_secret: secrets.seal(row.id, secret),
            previous_signing_secret: row.signing_secret,
            previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
            updated_at: now,
          };
          await store.update(tx, next);
          return view(next, secret);
        },
        commitAnswer,
      );
    },

    /**
     * Attempts a finished delivery again at once: the same webhook-id and body, a fresh
     * timestamp and signature (made at each attempt), and a fresh retry schedule. A pending
     * one is 409; another account's sensor or delivery is 404.
     */
    redeliver(accountId: string, id: string, deliveryId: string, commitAnswer?: CommitAnswer<SensorDelivery>): Promise<SensorDelivery> {
      return db.transaction(async (tx) => {
        if (!(await store.get(tx, accountId, id))) throw notFound(id);
        const outcome = await outbox.redeliver(tx, id, deliveryId);
        if (outcome === 'not-found') throw new ProblemError('not-found', `No delivery with id ${deliveryId} for sensor ${id}.`);
        if (outcome === 'pending') throw new ProblemError('state-conflict', `Delivery ${deliveryId} is still pending; it is attempted on its own schedule.`);
        // Read under the same locks: a sensor deleted right after cannot take the answer away.
        const delivery = deliveryView((await store.deliveries(tx, id, { limit: 1, only: deliveryId }))[0]!);
        await commitAnswer?.(tx, delivery, clock.now());
        return delivery;
      });
    },

    /**
     * One `sensor.test` delivery now, to each of the sensor's webhooks, enabled or not: the
     * latest matching event of the past 30 days, or none. Answers it as the delivery log
     * shows it (PENDING); `commitAnswer` stores that answer in the same transaction.
     */
    sendTest(accountId: string, id: string, commitAnswer?: CommitAnswer<SensorDelivery>): Promise<SensorDelivery> {
      return change(
        accountId,
        id,
        async (row, tx) => {
          const now = clock.now();
          const event = await latestMatchingEvent(tx, row.filter, now);
          const deliveryId = newId();
          const body = deliveryBody('sensor.test', now, { sensor_id: row.id, event });
          await outbox.storeTest(tx, event?.id ?? null, { id: deliveryId, sensorId: row.id, body });
          return deliveryView((await store.deliveries(tx, row.id, { limit: 1, only: deliveryId }))[0]!);
        },
        commitAnswer,
      );
    },

    async deliveries(accountId: string, id: string, query: ListQuery & { type?: DeliveryType }) {
      const row = await store.get(reads, accountId, id);
      if (!row) throw notFound(id);
      const rows = await store.deliveries(reads, id, { startingAfter: query.starting_after, limit: query.limit + 1, type: query.type });
      // The fields an update changed ride along for the console; the REST answer's schema leaves them out.
      return listPage(
        rows.map((row) => ({ ...deliveryView(row), changed_fields: row.changed_fields })),
        query.limit,
      );
    },

    /** How the sensor's deliveries of each of the last `days` UTC days (today included) turned out; pending ones are not counted. */
    async deliveryOutcomes(accountId: string, id: string, days: number) {
      if (!(await store.get(reads, accountId, id))) throw notFound(id);
      const range = lastUtcDays(clock.now(), days);
      const rows = await store.outcomesByDay(reads, id, range.from, range.until);
      return { days: range.days, succeeded: perDay(range, rows, (row) => row.succeeded), failed: perDay(range, rows, (row) => row.failed) };
    },
  };
}

export type SensorsService = ReturnType<typeof sensorsService>;
