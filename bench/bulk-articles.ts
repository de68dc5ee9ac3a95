// Articles as a crawler of many outlets would send them, made cheaply from ground-truth events:
// each event is reported by 2 to 5 different outlets, its reports published over up to 12
// hours after it broke, the events spread evenly over `days` days; every report names both
// parties and most the price, about half say when it happened, each has a url of its own.
// Answers the NDJSON lines in publishing order, and how many events they come from. Also the
// event types they report (bulkEventTypes).

import type { Runtime } from '../src/runtime.js';

export interface BulkArticleType {
  id: string;
  /** The code names of its two NAMED_ENTITY roles and of its CURRENCY role. */
  parties: [string, string];
  amount: string;
  /** A headline from the two parties' names. */
  headline: (first: string, second: string) => string;
}

export interface BulkArticleOptions {
  articles: number;
  outlets: readonly string[];
  types: readonly BulkArticleType[];
  /** Entities the articles name, with their names. */
  entities: readonly { id: string; name: string }[];
  start: Date;
  days: number;
  seed: number;
}

const HOUR = 3_600_000;

export function bulkArticles({ articles, outlets, types, entities, start, days, seed }: BulkArticleOptions): { lines: string[]; events: number } {
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32: the same corpus for the same seed, and no cost worth measuring.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pick = (n: number) => Math.floor(random() * n);
  const eventCount = Math.ceil(articles / 3.5); // 2 to 5 reports: 3.5 on average
  const spanMs = days * 24 * HOUR;
  const made: { at: number; line: string }[] = [];
  let events = 0;
  for (let e = 0; made.length < articles; e++) {
    // eventCount spreads them over the days; an unlucky draw of fewer reports adds an event or two.
    events++;
    const type = types[pick(types.length)]!;
    const first = entities[pick(entities.length)]!;
    let second = entities[pick(entities.length)]!;
    while (second.id === first.id) second = entities[pick(entities.length)]!;
    const broke = start.getTime() + Math.floor((e / eventCount) * spanMs) + pick(HOUR);
    const happenedOn = new Date(broke).toISOString().slice(0, 10);
    const price = { value: (1 + pick(999)) * 1_000_000, unit: 'USD' };
    const reporters = 2 + pick(4);
    const outletOffset = pick(outlets.length);
    for (let r = 0; r < reporters && made.length < articles; r++) {
      const outlet = (outletOffset + r * 7) % outlets.length; // 5 distinct outlets of 20
      const published = broke + (r === 0 ? 0 : pick(12 * HOUR));
      const roles: object[] = [
        { role: type.parties[0], entity_id: first.id },
        { role: type.parties[1], entity_id: second.id },
      ];
      if (random() < 0.8) roles.push({ role: type.amount, amount: price });
      const article = {
        outlet_id: outlets[outlet]!,
        event_type_id: type.id,
        published_at: new Date(published).toISOString(),
        received_at: new Date(published + pick(10 * 60_000)).toISOString(),
        ...(random() < 0.5 ? { happened_at: happenedOn } : {}),
        roles,
        headline: type.headline(first.name, second.name),
        url: `https://outlet-${outlet}.example/news/${e}-${r}`,
      };
      made.push({ at: published, line: JSON.stringify(article) });
    }
  }
  made.sort((a, b) => a.at - b.at);
  return { lines: made.map((m) => m.line), events };
}

/** The three event types the bulk benchmarks' articles report: two parties and a price each. */
const TYPE_SHAPES = [
  {
    code: 'acquisition',
    parties: ['buyer', 'target'],
    template: '{buyer} acquires {target} for {price}',
    headline: (a: string, b: string) => `${a} to buy ${b}`,
  },
  {
    code: 'investment',
    parties: ['investor', 'company'],
    template: '{investor} invests {price} in {company}',
    headline: (a: string, b: string) => `${a} backs ${b}`,
  },
  {
    code: 'contract',
    parties: ['client', 'vendor'],
    template: '{client} awards {vendor} a contract worth {price}',
    headline: (a: string, b: string) => `${b} wins ${a} deal`,
  },
] as const;

/** Makes the bulk benchmarks' event types, their code names `${prefix}_<shape>_${run}`. */
export async function bulkEventTypes(runtime: Runtime, prefix: string, run: number): Promise<BulkArticleType[]> {
  const types: BulkArticleType[] = [];
  for (const shape of TYPE_SHAPES) {
    const type = await runtime.reference.createEventType({
      code_name: `${prefix}_${shape.code}_${run}`,
      name: shape.code,
      description: '',
      roles: [
        { code_name: shape.parties[0], name: shape.parties[0], expected_type: 'NAMED_ENTITY' },
        { code_name: shape.parties[1], name: shape.parties[1], expected_type: 'NAMED_ENTITY' },
        { code_name: 'price', name: 'Price', expected_type: 'CURRENCY' },
      ],
      sentence_template: shape.template,
    });
    types.push({ id: type.id, parties: [shape.parties[0], shape.parties[1]], amount: 'price', headline: shape.headline });
  }
  return types;
}
