// The demo corpus's event types: twelve kinds of news that between them use every role value
// type but CATEGORICAL (which reports cannot carry).
import type { CreateEventTypeBody } from '../corpus/reference.schemas.js';

export type EntityPool = 'COUNTRY' | 'ORGANIZATION' | 'PERSON' | 'CITY';

/** A role of a demo type, with how the generator fills it. */
export type DemoRole = CreateEventTypeBody['roles'][number] & {
  pool?: EntityPool; // NAMED_ENTITY roles: where the entity comes from
  unit?: string; // amount roles: the unit label (CURRENCY draws an ISO 4217 code)
  range?: [number, number]; // amount roles: value range
  texts?: string[]; // text roles: choices
};

export interface DemoEventType extends Omit<CreateEventTypeBody, 'roles'> {
  roles: DemoRole[];
  /**
   * How common the type is in the news: its weight among the types, and for kinds of event
   * the world has only so many of, at most how many one entity of the first role sees in a
   * year (a country has a few earthquakes a year however large the corpus).
   */
  frequency: { weight: number; perEntityYear?: number };
}

const entity = (code_name: string, name: string, pool: EntityPool): DemoRole => ({ code_name, name, expected_type: 'NAMED_ENTITY', pool });
const amount = (code_name: string, name: string, expected_type: DemoRole['expected_type'], unit: string, range: [number, number]): DemoRole => ({
  code_name,
  name,
  expected_type,
  unit,
  range,
});
const text = (code_name: string, name: string, expected_type: DemoRole['expected_type'], texts: string[]): DemoRole => ({
  code_name,
  name,
  expected_type,
  texts,
});
const date = (code_name: string, name: string): DemoRole => ({ code_name, name, expected_type: 'DATE' });

export const DEMO_EVENT_TYPES: DemoEventType[] = [
  {
    code_name: 'acquisition',
    name: 'Acquisition',
    description: 'One organization agrees to buy another.',
    roles: [
      entity('acquirer', 'Acquirer', 'ORGANIZATION'),
      entity('target', 'Target', 'ORGANIZATION'),
      amount('price', 'Price', 'CURRENCY', '', [1e6, 5e10]),
      date('announced_on', 'Announced on'),
    ],
    sentence_template: '{acquirer} agreed to acquire {target} for {price}',
    frequency: { weight: 14 },
  },
  {
    code_name: 'earthquake',
    name: 'Earthquake',
    description: 'An earthquake strikes a country.',
    roles: [
      entity('location', 'Location', 'COUNTRY'),
      amount('magnitude', 'Magnitude', 'NUMBER', '', [3, 9.5]),
      amount('depth', 'Depth', 'DISTANCE', 'km', [1, 300]),
    ],
    sentence_template: 'A magnitude {magnitude} earthquake struck {location}',
    frequency: { weight: 4, perEntityYear: 4 },
  },
  {
    code_name: 'heatwave',
    name: 'Heatwave',
    description: 'A region records extreme temperatures.',
    roles: [
      entity('region', 'Region', 'COUNTRY'),
      amount('peak_temperature', 'Peak temperature', 'TEMPERATURE', '°C', [35, 52]),
      text('duration', 'Duration', 'DURATION', ['3 days', '5 days', '1 week', '10 days', 'P2W']),
    ],
    sentence_template: '{region} recorded {peak_temperature} during a heatwave of {duration}',
    frequency: { weight: 3, perEntityYear: 2 },
  },
  {
    code_name: 'cargo_seizure',
    name: 'Cargo seizure',
    description: 'Authorities seize a shipment.',
    roles: [
      entity('authority', 'Authority', 'ORGANIZATION'),
      entity('origin', 'Origin', 'COUNTRY'),
      amount('cargo_weight', 'Cargo weight', 'WEIGHT', 't', [1, 5000]),
    ],
    sentence_template: '{authority} seized {cargo_weight} of cargo shipped from {origin}',
    frequency: { weight: 8 },
  },
  {
    code_name: 'wildfire',
    name: 'Wildfire',
    description: 'A wildfire burns land.',
    roles: [entity('location', 'Location', 'CITY'), amount('burned_area', 'Burned area', 'AREA', 'ha', [10, 200000])],
    sentence_template: 'A wildfire burned {burned_area} near {location}',
    frequency: { weight: 6, perEntityYear: 0.5 },
  },
  {
    code_name: 'oil_spill',
    name: 'Oil spill',
    description: 'A company spills oil.',
    roles: [
      entity('company', 'Company', 'ORGANIZATION'),
      entity('location', 'Location', 'COUNTRY'),
      amount('volume', 'Volume', 'VOLUME', 'barrels', [100, 500000]),
    ],
    sentence_template: '{company} spilled {volume} of oil off {location}',
    frequency: { weight: 3 },
  },
  {
    code_name: 'speed_record',
    name: 'Speed record',
    description: 'A person sets a speed record.',
    roles: [
      entity('person', 'Person', 'PERSON'),
      amount('speed', 'Speed', 'SPEED', 'km/h', [200, 1200]),
      text('vehicle', 'Vehicle', 'NONE', ['a rocket car', 'an electric motorcycle', 'a solar plane', 'a hydrofoil']),
    ],
    sentence_template: '{person} set a speed record of {speed} in {vehicle}',
    frequency: { weight: 2, perEntityYear: 0.02 },
  },
  {
    code_name: 'bridge_opening',
    name: 'Bridge opening',
    description: 'A city opens a bridge.',
    roles: [entity('city', 'City', 'CITY'), amount('length', 'Length', 'LENGTH', 'm', [100, 20000]), date('opened_on', 'Opened on')],
    sentence_template: '{city} opened a {length} bridge on {opened_on}',
    frequency: { weight: 3, perEntityYear: 0.1 },
  },
  {
    code_name: 'appointment',
    name: 'Appointment',
    description: 'An organization appoints a person.',
    roles: [
      entity('organization', 'Organization', 'ORGANIZATION'),
      entity('person', 'Person', 'PERSON'),
      text('position', 'Position', null, ['chief executive', 'chair', 'finance director', 'chief scientist']),
    ],
    sentence_template: '{organization} appointed {person} as {position}',
    frequency: { weight: 14 },
  },
  {
    code_name: 'funding_round',
    name: 'Funding round',
    description: 'A company raises money from investors.',
    roles: [
      entity('company', 'Company', 'ORGANIZATION'),
      entity('investor', 'Lead investor', 'ORGANIZATION'),
      amount('amount', 'Amount', 'CURRENCY', '', [1e5, 2e9]),
      amount('employees', 'Employees', 'NUMBER', '', [5, 5000]),
    ],
    sentence_template: '{company} raised {amount} in a round led by {investor}',
    frequency: { weight: 12 },
  },
  {
    code_name: 'strike',
    name: 'Strike',
    description: 'Workers strike at an employer.',
    roles: [
      entity('employer', 'Employer', 'ORGANIZATION'),
      entity('city', 'City', 'CITY'),
      text('duration', 'Duration', 'DURATION', ['24 hours', '2 days', '1 week', 'PT48H']),
    ],
    sentence_template: 'Workers at {employer} in {city} went on strike for {duration}',
    frequency: { weight: 8 },
  },
  {
    code_name: 'election_result',
    name: 'Election result',
    description: 'A candidate wins a national election.',
    roles: [entity('country', 'Country', 'COUNTRY'), entity('winner', 'Winner', 'PERSON'), amount('turnout', 'Turnout', 'NUMBER', '%', [35, 90])],
    sentence_template: '{winner} won the election in {country}',
    frequency: { weight: 2, perEntityYear: 0.5 },
  },
];
