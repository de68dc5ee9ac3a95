// The demo corpus's world before any news: outlets, entities (the most named ones also under
// a duplicate record, which entity resolution merges into them before the news is loaded),
// and the demo event types with the share of events each has in a corpus of this size.
// Nothing here touches the database: the same world can be generated without one (bench/).
import type { IdGenerator } from '../../platform/ids.js';
import { type DemoEventType, type DemoRole, DEMO_EVENT_TYPES, type EntityPool } from './demo-event-types.js';
import { cityName, countries, type Named, organizationName, outletName, personName } from './demo-names.js';
import { SeededRandom, cumulativeShares } from './seeded-random.js';

/**
 * The entities of one kind, by index. Names are made when asked for, from the seed and the
 * index: a ten-million-event corpus names millions of entities, and holding every name as well
 * as every id would double what the world holds for the few names a batch needs.
 */
export interface EntityPoolData {
  type: EntityPool;
  ids: string[];
  /** The names of entity `index`: its own and its duplicate record's. */
  named(index: number): Named;
  /** Index of an entity → slot of its duplicate record in `aliasIds`, or -1. */
  aliasSlot: Int32Array;
  aliasIds: string[];
  /** Popular entities are named far more often than the rest (organizations, people). */
  skewed: boolean;
}

export interface WorldType {
  id: string;
  spec: DemoEventType;
  /** The url path section of its articles ("cargo-seizure"). */
  section: string;
  /** Indexes of the NAMED_ENTITY roles in spec.roles, the main actor first. */
  named: number[];
}

export interface DemoWorld {
  now: number;
  outlets: { id: string; name: string; domain: string }[];
  pools: Record<EntityPool, EntityPoolData>;
  types: WorldType[];
  /** Cumulative share of events of each type, in `types` order. */
  typeShares: Float64Array;
}

/**
 * How many entities of each kind a corpus of `events` events names: a larger corpus is more
 * news about more companies, people and places, not the same ones over and over.
 */
export function poolSizes(events: number): Record<EntityPool, number> {
  const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.ceil(n)));
  return {
    COUNTRY: countries().length,
    ORGANIZATION: clamp(events / 8, 1_000, 1_250_000),
    PERSON: clamp(events / 8, 1_000, 1_250_000),
    CITY: clamp(events / 40, 500, 250_000),
  };
}

/**
 * Events per type: by weight, except that a type the world has only so many of (at most
 * `perEntityYear` per entity of its first role) takes no more than that, and the others share
 * what it leaves.
 */
export function typeCounts(types: readonly DemoEventType[], sizes: Record<EntityPool, number>, events: number): number[] {
  const counts = types.map(() => 0);
  const open = new Set(types.keys());
  let remaining = events;
  for (let changed = true; changed; ) {
    changed = false;
    const weight = [...open].reduce((sum, i) => sum + types[i]!.frequency.weight, 0);
    for (const i of open) {
      const { frequency, roles } = types[i]!;
      if (frequency.perEntityYear === undefined) continue;
      const cap = frequency.perEntityYear * sizes[roles.find((r) => r.pool)!.pool!];
      if (cap < (remaining * frequency.weight) / weight) {
        counts[i] = cap;
        remaining -= cap;
        open.delete(i);
        changed = true;
      }
    }
  }
  const weight = [...open].reduce((sum, i) => sum + types[i]!.frequency.weight, 0);
  for (const i of open) counts[i] = (remaining * types[i]!.frequency.weight) / weight;
  return counts;
}

function pool(
  type: EntityPool,
  size: number,
  named: (index: number) => Named,
  aliased: readonly number[],
  skewed: boolean,
  newId: IdGenerator,
): EntityPoolData {
  const aliasSlot = new Int32Array(size).fill(-1);
  aliased.forEach((index, slot) => {
    aliasSlot[index] = slot;
  });
  return { type, ids: Array.from({ length: size }, () => newId()), named, aliasSlot, aliasIds: aliased.map(() => newId()), skewed };
}

/** Names of a kind from their own generator per index, so a name depends on the seed and index alone. */
const namedBy = (seed: number, kind: number, make: (r: SeededRandom) => Named) => (index: number) =>
  make(new SeededRandom((seed ^ Math.imul(kind, 0x27d4eb2d) ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0));

/** The world of a corpus of `events` events: the same seed and size give the same names and shares (the ids follow the clock). */
export function buildWorld(options: {
  events: number;
  seed: number;
  now: Date;
  newId: IdGenerator;
  /** Event type id by code name, for every demo type. */
  typeIds: ReadonlyMap<string, string>;
}): DemoWorld {
  const { events, newId } = options;
  const r = new SeededRandom(options.seed ^ 0x5eed_0a11);
  const sizes = poolSizes(events);
  // The most named entities are the ones that end up with duplicate records: the skewed
  // pools name low indexes most, so those are the first ones; elsewhere a few at random.
  const head = (n: number) => Array.from({ length: Math.min(400, Math.max(5, Math.floor(n / 100))) }, (_, i) => i);
  const some = (n: number, count: number) => [...new Set(Array.from({ length: count }, () => r.int(n)))];
  const countryNames = countries();
  const pools: Record<EntityPool, EntityPoolData> = {
    COUNTRY: pool('COUNTRY', sizes.COUNTRY, (index) => countryNames[index]!, some(sizes.COUNTRY, 12), false, newId),
    ORGANIZATION: pool('ORGANIZATION', sizes.ORGANIZATION, namedBy(options.seed, 1, organizationName), head(sizes.ORGANIZATION), true, newId),
    PERSON: pool('PERSON', sizes.PERSON, namedBy(options.seed, 2, personName), head(sizes.PERSON), true, newId),
    CITY: pool(
      'CITY',
      sizes.CITY,
      namedBy(options.seed, 3, cityName),
      some(sizes.CITY, Math.min(100, Math.max(2, Math.floor(sizes.CITY / 200)))),
      false,
      newId,
    ),
  };

  const domains = new Set<string>();
  const outlets = Array.from({ length: Math.min(400, Math.max(40, Math.round(events / 25_000))) }, (_, i) => {
    const name = outletName(r);
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const domain = domains.has(`${slug}.example`) ? `${slug}-${i}.example` : `${slug}.example`;
    domains.add(domain);
    return { id: newId(), name, domain };
  });

  const types = DEMO_EVENT_TYPES.map((spec): WorldType => {
    const id = options.typeIds.get(spec.code_name);
    if (!id) throw new Error(`no event type ${spec.code_name}`);
    const named = spec.roles.flatMap((role: DemoRole, i) => (role.pool ? [i] : []));
    return { id, spec, section: spec.code_name.replace(/_/g, '-'), named };
  });
  return { now: options.now.getTime(), outlets, pools, types, typeShares: cumulativeShares(typeCounts(DEMO_EVENT_TYPES, sizes, events)) };
}
