// A deterministic demo corpus: outlets, entities with realistic names (countries from
// world-countries, companies, people and cities from a seeded faker), the demo event types,
// and a year of events with several reports each from several outlets, some merged. The
// same seed and size give the same corpus (ids aside, which follow the clock).
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { en, Faker } from '@faker-js/faker';
import currencyCodes from 'currency-codes';
import worldCountries, { type Countries } from 'world-countries';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import { bulkInsertEvents, type BulkEvent, type BulkReport, type BulkRoleValue } from '../corpus/bulk-load.js';
import type { EventsService } from '../corpus/events.service.js';
import type { ReferenceService } from '../corpus/reference.service.js';
import { referenceStore, type RoleRow } from '../corpus/reference.store.js';
import { DEMO_EVENT_TYPES, type DemoRole } from './demo-event-types.js';

export interface DemoDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  reference: ReferenceService;
  events: EventsService;
}

export interface DemoOptions {
  events: number;
  seed?: number;
  batchSize?: number;
  /** Share of events merged into another event of their type. */
  mergeShare?: number;
  progress?: (done: number, total: number) => void;
  /** Checked between batches: once aborted, the batches written so far stay and the rest are not made. */
  signal?: AbortSignal;
}

export interface DemoSummary {
  events: number;
  reports: number;
  merges: number;
  seconds: number;
}

const DAY_MS = 86_400_000;
// The package's types declare an ES default export; at run time Node's default import of its
// CommonJS entry is the array itself.
const COUNTRIES = worldCountries as unknown as Countries;
const OUTLET_KINDS = ['Herald', 'Times', 'Post', 'Ledger', 'Courier', 'Gazette', 'Tribune', 'Observer', 'Chronicle', 'Wire'];
// Codes every validator in the service accepts: ISO 4217, the kinds news reports quote.
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CNY', 'INR', 'BRL', 'CAD', 'AUD'].filter((code) => currencyCodes.code(code));

export async function generateDemoCorpus(deps: DemoDeps, options: DemoOptions): Promise<DemoSummary> {
  const started = performance.now();
  const { db, clock, newId } = deps;
  const faker = new Faker({ locale: [en] });
  faker.seed(options.seed ?? 20261122);
  const now = clock.now();
  const pick = <T>(items: readonly T[]): T => items[faker.number.int({ min: 0, max: items.length - 1 })]!;

  // Outlets and entities.
  const outlets = Array.from({ length: 40 }, () => {
    const city = faker.location.city();
    const name = `${city} ${pick(OUTLET_KINDS)}`;
    return { id: newId(), name, domain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example` };
  });
  const scale = Math.min(50_000, Math.max(500, Math.ceil(options.events / 10)));
  const pools: Record<NonNullable<DemoRole['pool']>, { id: string; name: string }[]> = {
    COUNTRY: COUNTRIES.map((c) => ({ id: newId(), name: c.name.common })),
    ORGANIZATION: Array.from({ length: scale }, () => ({ id: newId(), name: faker.company.name() })),
    PERSON: Array.from({ length: scale }, () => ({ id: newId(), name: faker.person.fullName() })),
    CITY: Array.from({ length: Math.min(5_000, scale) }, () => ({ id: newId(), name: faker.location.city() })),
  };
  await db.transaction(async (tx) => {
    await referenceStore.bulkInsertOutlets(tx, outlets, now);
    for (const [type, entities] of Object.entries(pools)) {
      for (let i = 0; i < entities.length; i += 5_000) {
        await referenceStore.bulkInsertEntities(
          tx,
          entities.slice(i, i + 5_000).map((e) => ({ ...e, type })),
          now,
        );
      }
    }
  });
  const entityNames = new Map(Object.values(pools).flatMap((pool) => pool.map((e) => [e.id, e.name] as const)));

  // Event types: created once, reused by later runs on the same database.
  const types: { id: string; spec: (typeof DEMO_EVENT_TYPES)[number]; roles: RoleRow[]; template: string }[] = [];
  for (const spec of DEMO_EVENT_TYPES) {
    const existing = await referenceStore.eventTypeByCode(db, spec.code_name);
    const id =
      existing?.id ??
      (await deps.reference.createEventType({ ...spec, roles: spec.roles.map(({ code_name, name, expected_type }) => ({ code_name, name, expected_type })) }))
        .id;
    const roles = await referenceStore.rolesOf(db, [id]);
    types.push({ id, spec, roles, template: existing?.sentence_template ?? spec.sentence_template });
  }
  const context = { types: new Map(types.map((t) => [t.id, { template: t.template, roles: t.roles }])), entityNames, now };

  // What an event's reports agree on: the entity of each pooled role (chosen with the event),
  // and per other role one figure, one currency, one text. Reports quote the figure exactly or
  // within 2 % of it, the way outlets round and update a number.
  type Truth = { amount: number; unit: string } | { text: string };
  const truthFor = (spec: DemoRole): Truth | null => {
    if (spec.range) {
      const [min, max] = spec.range;
      const amount = max <= 100 ? faker.number.float({ min, max, fractionDigits: 1 }) : faker.number.int({ min, max });
      return { amount, unit: spec.expected_type === 'CURRENCY' ? pick(CURRENCIES) : (spec.unit ?? '') };
    }
    return spec.pool || spec.expected_type === 'DATE' ? null : { text: pick(spec.texts ?? ['unknown']) };
  };
  const quoted = (spec: DemoRole, amount: number): number => {
    if (faker.number.int({ min: 0, max: 99 }) < 60) return amount;
    const [min, max] = spec.range!;
    const drifted = Math.min(max, Math.max(min, amount * faker.number.float({ min: 0.98, max: 1.02 })));
    return max <= 100 ? Math.round(drifted * 10) / 10 : Math.round(drifted);
  };
  const valueFor = (spec: DemoRole, role: RoleRow, day: Date, chosen: Map<string, string>, truth: Truth | null): BulkRoleValue => {
    if (spec.pool) return { roleId: role.id, entityId: chosen.get(role.id)! };
    if (spec.expected_type === 'DATE') return { roleId: role.id, date: day.toISOString().slice(0, 10) };
    if (truth && 'amount' in truth) return { roleId: role.id, amount: { value: quoted(spec, truth.amount), unit: truth.unit } };
    return { roleId: role.id, text: truth && 'text' in truth ? truth.text : 'unknown' };
  };

  const batchSize = options.batchSize ?? 1_000;
  let reportCount = 0;
  // Pairs of events of one type that turn out to be one story, merged at the end.
  const mergeShare = options.mergeShare ?? 0.005;
  const lastOfType = new Map<string, string>();
  const mergePairs: [string, string][] = [];
  for (let done = 0; done < options.events; done += batchSize) {
    options.signal?.throwIfAborted();
    const batch: BulkEvent[] = [];
    for (let i = done; i < Math.min(options.events, done + batchSize); i++) {
      const type = pick(types);
      const first = new Date(now.getTime() - faker.number.int({ min: 2 * 60_000, max: 365 * DAY_MS }));
      const happened =
        faker.number.int({ min: 0, max: 99 }) < 85
          ? new Date(first.getTime() - faker.number.int({ min: 0, max: 2 }) * DAY_MS).toISOString().slice(0, 10)
          : null;
      const chosen = new Map(
        type.roles.flatMap((role) => {
          const spec = type.spec.roles.find((r) => r.code_name === role.code_name);
          return spec?.pool ? [[role.id, pick(pools[spec.pool]).id] as const] : [];
        }),
      );
      const truths = new Map(type.roles.map((role) => [role.id, truthFor(type.spec.roles.find((r) => r.code_name === role.code_name)!)]));
      const reportTotal = faker.helpers.weightedArrayElement([
        { value: 1, weight: 3 },
        { value: 2, weight: 4 },
        { value: 3, weight: 4 },
        { value: 4, weight: 2 },
        { value: 6, weight: 1 },
      ]);
      const outletOrder = faker.helpers.shuffle(outlets).slice(0, reportTotal);
      const reports: BulkReport[] = outletOrder.map((outlet, index) => {
        // Nothing is published or received after now: follow-ups of recent events stop there.
        const latest = now.getTime() - 60_000;
        // Follow-ups come 10 minutes to 3 days after the first report, and for a recent event
        // spread over the time there has been since (rather than all stopping at now).
        const window = Math.max(0, latest - first.getTime());
        const published =
          index === 0 ? first : new Date(first.getTime() + faker.number.int({ min: Math.min(10 * 60_000, window), max: Math.min(3 * DAY_MS, window) }));
        const received = new Date(Math.min(now.getTime(), published.getTime() + faker.number.int({ min: 60_000, max: 30 * 60_000 })));
        const roleSpecs = type.roles.map((role) => ({ role, spec: type.spec.roles.find((r) => r.code_name === role.code_name)! }));
        // The first report carries every role; later ones a part, always with an entity.
        const carried = index === 0 ? roleSpecs : roleSpecs.filter(({ spec }, n) => n === 0 || spec.pool !== undefined || faker.datatype.boolean());
        const missingPublish = index > 0 && faker.number.int({ min: 0, max: 99 }) < 5;
        return {
          id: newId(),
          outletId: outlet.id,
          publishedAt: missingPublish ? null : published,
          receivedAt: received,
          happenedAt: happened,
          headline: faker.lorem.sentence({ min: 5, max: 10 }),
          url: `https://${outlet.domain}/${published.toISOString().slice(0, 10).replace(/-/g, '/')}/${faker.string.alphanumeric(10).toLowerCase()}`,
          values: carried.map(({ role, spec }) => valueFor(spec, role, first, chosen, truths.get(role.id) ?? null)),
          mentions:
            faker.number.int({ min: 0, max: 2 }) === 0
              ? []
              : [pick(pools.ORGANIZATION).id, pick(pools.PERSON).id].slice(0, faker.number.int({ min: 1, max: 2 })),
        };
      });
      reportCount += reports.length;
      const event: BulkEvent = { id: newId(), eventTypeId: type.id, reports };
      batch.push(event);
      const previous = lastOfType.get(type.id);
      if (previous && faker.number.float({ min: 0, max: 1 }) < mergeShare) {
        mergePairs.push([previous, event.id]);
        lastOfType.delete(type.id); // each event takes part in one merge at most
      } else lastOfType.set(type.id, event.id);
    }
    await db.transaction((tx) => bulkInsertEvents(tx, batch, context));
    // The embedded database answers in microtasks, so without this a corpus seeded while the
    // server listens would hold the event loop until the last batch: requests wait at most one.
    await setImmediate();
    options.progress?.(Math.min(options.events, done + batchSize), options.events);
  }

  // Fresh statistics after the bulk load: the embedded database has no autovacuum daemon, and
  // without them the planner scans whole tables for the per-event queries below.
  await db.exec('VACUUM ANALYZE');

  // A few events turn out to be one story: merge them the way the operator would.
  for (const [from, into] of mergePairs) {
    options.signal?.throwIfAborted();
    await deps.events.mergeEvent(from, into);
    await setImmediate();
  }
  const merges = mergePairs.length;

  return { events: options.events, reports: reportCount, merges, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
