// Realistic names for the demo corpus, composed the way faker composes them (its English word
// lists and patterns) but drawn from the corpus's own seeded generator: millions of names cost
// seconds, and the same seed gives the same names. Each kind also has the other name one
// entity goes by ("Hayes Group" and "Hayes", "United States" and "United States of America"),
// for the duplicate records that entity resolution later merges.
import { en } from '@faker-js/faker';
import worldCountries, { type Countries } from 'world-countries';
import type { SeededRandom } from './seeded-random.js';

const words = (list: unknown, what: string): readonly string[] => {
  if (!Array.isArray(list) || list.length === 0 || !list.every((w) => typeof w === 'string')) throw new Error(`faker's English locale has no ${what}`);
  return list;
};

const LAST_NAMES = words(en.person?.last_name?.generic, 'last names');
const FIRST_NAMES = words([...(en.person?.first_name?.female ?? []), ...(en.person?.first_name?.male ?? [])], 'first names');
const NAME_PREFIXES = words(en.person?.prefix?.generic, 'name prefixes');
const NAME_SUFFIXES = words(en.person?.suffix, 'name suffixes');
const LEGAL_FORMS = words(en.company?.legal_entity_type, 'company legal forms');
const CITY_NAMES = words(en.location?.city_name, 'city names');
const CITY_PREFIXES = words(en.location?.city_prefix, 'city prefixes');
const CITY_SUFFIXES = words(en.location?.city_suffix, 'city suffixes');
const OUTLET_KINDS = ['Herald', 'Times', 'Post', 'Ledger', 'Courier', 'Gazette', 'Tribune', 'Observer', 'Chronicle', 'Wire'];

// The package's types declare an ES default export; at run time Node's default import of its
// CommonJS entry is the array itself.
const COUNTRIES = worldCountries as unknown as Countries;

export interface Named {
  name: string;
  /** Another name the same entity goes by. */
  alias: string;
}

const lastName = (r: SeededRandom) => (r.chance(0.05) ? `${r.pick(LAST_NAMES)}-${r.pick(LAST_NAMES)}` : r.pick(LAST_NAMES));

export function personName(r: SeededRandom): Named {
  const first = r.pick(FIRST_NAMES);
  const last = lastName(r);
  const u = r.next();
  const name = u < 0.11 ? `${r.pick(NAME_PREFIXES)} ${first} ${last}` : u < 0.22 ? `${first} ${last} ${r.pick(NAME_SUFFIXES)}` : `${first} ${last}`;
  return { name, alias: `${first[0]}. ${last}` };
}

export function organizationName(r: SeededRandom): Named {
  const first = r.pick(LAST_NAMES);
  const second = r.pick(LAST_NAMES);
  switch (r.int(3)) {
    case 0:
      return { name: `${first} - ${second}`, alias: `${first}-${second}` };
    case 1: {
      const form = r.pick(LEGAL_FORMS);
      return { name: `${first} ${form}`, alias: form === 'Group' ? `${first} Holdings` : first };
    }
    default: {
      const third = r.pick(LAST_NAMES);
      return { name: `${first}, ${second} and ${third}`, alias: `${first}, ${second} & ${third}` };
    }
  }
}

export function cityName(r: SeededRandom): Named {
  const name = (() => {
    switch (r.int(5)) {
      case 0:
        return `${r.pick(CITY_PREFIXES)} ${r.pick(FIRST_NAMES)}${r.pick(CITY_SUFFIXES)}`;
      case 1:
        return `${r.pick(CITY_PREFIXES)} ${r.pick(FIRST_NAMES)}`;
      case 2:
        return `${r.pick(FIRST_NAMES)}${r.pick(CITY_SUFFIXES)}`;
      case 3:
        return `${r.pick(LAST_NAMES)}${r.pick(CITY_SUFFIXES)}`;
      default:
        return r.pick(CITY_NAMES);
    }
  })();
  return { name, alias: `City of ${name}` };
}

/** Every country, by its common name; its official name is the other one. */
export function countries(): Named[] {
  return COUNTRIES.map((c) => ({ name: c.name.common, alias: c.name.official === c.name.common ? `Republic of ${c.name.common}` : c.name.official }));
}

/** A news outlet's name: a city's paper. */
export function outletName(r: SeededRandom): string {
  return `${cityName(r).name} ${r.pick(OUTLET_KINDS)}`;
}
