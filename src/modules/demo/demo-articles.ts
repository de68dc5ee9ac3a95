// The news about the demo world: ground-truth events over the past year, each reported by a
// few outlets over the following hours to days, as the articles a crawler would hand to
// ingest, in the order they were published. Articles differ as articles do: the first one
// carries every role, later ones leave some out, some give no date of the event or no
// publish time, figures are rounded differently, and some name an entity by its duplicate
// record. Some events of one type share a participant within days (an acquirer buying two
// companies in a week, an investor leading two rounds). Nothing here touches the database.
//
// Each article carries a text (article-texts.ts): a story written apart, or an outlet's copy of
// a wire story that several outlets carry.
//
// Only events whose articles are not all out yet are held in memory (a few days of news), so
// a corpus of any size streams in batches. Which true event an article reports, and which story
// it tells, is in its url (TRUE_EVENT_OF_URL and TRUE_STORY_OF_URL read them back), so
// clustering and copy detection are measured from the database.
import type { IngestArticleBody } from '../corpus/events.schemas.js';
import type { RoleEntry } from '../corpus/role-values.js';
import type { DemoRole } from './demo-event-types.js';
import type { DemoWorld, EntityPoolData, WorldType } from './demo-world.js';
import { ArticleTexts, type TextEvent } from './article-texts.js';
import { cumulativeShares, SeededRandom } from './seeded-random.js';
import { DAY_MS } from '../../platform/clock.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

// Codes every validator in the service accepts: ISO 4217, the kinds news reports quote.
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CNY', 'INR', 'BRL', 'CAD', 'AUD'];
/** Articles per event: most stories are covered by two or three outlets, a few by many. */
const ARTICLE_COUNTS = [1, 2, 3, 4, 5, 6, 8];
const ARTICLE_COUNT_SHARES = cumulativeShares([3, 4, 4, 2, 1, 1, 0.5]);
/** Share of events (of types with several entity roles) that share a participant with a recent one. */
const SIBLING_SHARE = 0.05;
const SIBLING_WINDOW_MS = 3 * DAY_MS;
/** Share of entity mentions that name a duplicate record, where the entity has one. */
const ALIAS_SHARE = 0.3;
/** Popularity: an entity at rank x of n is drawn with density ∝ x^(-1/2) (n·u²). */
const SKEW = 2;

/**
 * The true event of an article, from its url (".../s{story}/{event}-{k}", made in `article`
 * below): SQL over a text column.
 */
export const TRUE_EVENT_OF_URL = (column: string) => `substring(${column} from '/([0-9a-z]+)-[0-9]+$')`;
/**
 * The true story of an article ("s{story}/{event}"): the articles that are one story with edits
 * (a wire story's copies) share it; each story written apart has its own. SQL over a text column.
 */
export const TRUE_STORY_OF_URL = (column: string) => `substring(${column} from '/(s[0-9]+/[0-9a-z]+)-[0-9]+$')`;

type RoleTruth = { entity: number } | { amount: number; unit: string } | { text: string } | { date: string };

/** A ground-truth event, with what its texts are written from (TextEvent: type, role texts, seed, plan). */
interface TrueEvent extends TextEvent {
  key: string;
  type: WorldType;
  day: string;
  values: RoleTruth[];
  outlets: number[];
  /** Publish times of its articles, ascending. */
  times: number[];
  emitted: number;
}

interface Pending {
  at: number;
  seq: number;
  event: TrueEvent;
  k: number;
}

/** A min-heap of pending articles by publish time, then by order of making. */
class PublishQueue {
  private items: Pending[] = [];
  get size() {
    return this.items.length;
  }
  peek(): Pending | undefined {
    return this.items[0];
  }
  private before(a: Pending, b: Pending) {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
  push(item: Pending): void {
    const items = this.items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): Pending | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && this.before(items[left]!, items[least]!)) least = left;
        if (right < items.length && this.before(items[right]!, items[least]!)) least = right;
        if (least === i) break;
        [items[i], items[least]] = [items[least]!, items[i]!];
        i = least;
      }
    }
    return top;
  }
}

export interface ArticleBatch {
  articles: IngestArticleBody[];
  /** Events whose articles are all in this batch or an earlier one. */
  eventsDone: number;
  /** With `truth`: what each article is, in the order of `articles` (tests). */
  truths?: ArticleTruth[];
}

/** What an article is, beyond what its url says (for tests). */
export interface ArticleTruth {
  /** The story, as TRUE_STORY_OF_URL reads it ("s1/3f"). */
  story: string;
  /** One of the outlets carrying a wire story (the first of them included). */
  wire: boolean;
  /** A republication of a story another outlet carried before. */
  copy: boolean;
  /** The story as its writer wrote it (the agency, for a wire story), paragraphs joined by blank lines, before any outlet's edits or house style. */
  storyText: string;
  /** A wire story's: the edits this outlet made. */
  edits?: string[];
}

const dayNames = new Map<number, { name: string; path: string; stamp: string }>();
/** "YYYY-MM-DD", "YYYY/MM/DD" and "YYYY-MM-DDT" of a UTC day number (days since 1970), formatted once per day. */
function dayOf(day: number): { name: string; path: string; stamp: string } {
  let names = dayNames.get(day);
  if (names === undefined) {
    const name = new Date(day * DAY_MS).toISOString().slice(0, 10);
    names = { name, path: name.replace(/-/g, '/'), stamp: `${name}T` };
    dayNames.set(day, names);
  }
  return names;
}

const two = (n: number) => String(n).padStart(2, '0');
const MINUTES_OF_DAY = Array.from({ length: 24 * 60 }, (_, m) => `${two(Math.floor(m / 60))}:${two(m % 60)}:`);
const SECONDS = Array.from({ length: 60 }, (_, s) => `${two(s)}Z`);
/**
 * An instant as a timestamp to the second ("2026-02-16T04:41:36Z"), joined from formatted
 * pieces: tens of millions of them cost little, and hold little while a batch waits.
 */
function timestamp(instant: number): string {
  const day = Math.floor(instant / DAY_MS);
  const second = Math.floor((instant - day * DAY_MS) / 1000);
  return dayOf(day).stamp + MINUTES_OF_DAY[Math.floor(second / 60)]! + SECONDS[second % 60]!;
}

/** A figure as a headline writes it: "2.4 billion USD", "7.1", "350 km". */
function figure(value: number, unit: string): string {
  const text = value >= 1e9 ? `${(value / 1e9).toFixed(1)} billion` : value >= 1e6 ? `${(value / 1e6).toFixed(1)} million` : String(value);
  return unit ? `${text} ${unit}` : text;
}

/** The demo loads the events of these last days first (DemoPart `recent`): a new server's first minutes search them. */
export const RECENT_DAYS = 30;

/**
 * Which events' articles a pass emits: all, those of the last RECENT_DAYS days (by when the
 * event happened, so an event's articles stay together), or the rest. Every pass draws the
 * whole year, so the parts together are exactly the corpus of one pass over all.
 */
export type DemoPart = 'all' | 'recent' | 'older';

/** The articles about `events` true events in the past year before world.now, in batches of `batchSize`, in publish order. */
export function* demoArticleBatches(
  world: DemoWorld,
  options: { events: number; seed: number; batchSize: number; truth?: boolean; part?: DemoPart },
): Generator<ArticleBatch> {
  const { events, batchSize } = options;
  const part = options.part ?? 'all';
  const texts = new ArticleTexts(world, options.seed);
  const r = new SeededRandom(options.seed);
  const { now, outlets, pools } = world;
  const latest = now - MINUTE_MS; // nothing is published or received after now
  const start = now - 365 * DAY_MS;
  const span = 365 * DAY_MS - 2 * HOUR_MS;
  const recentFrom = now - RECENT_DAYS * DAY_MS;
  const inPart = (event: TrueEvent) => part === 'all' || event.at >= recentFrom === (part === 'recent');

  const draw = (p: EntityPoolData) => (p.skewed ? Math.floor(p.ids.length * r.next() ** SKEW) : r.int(p.ids.length));
  const idOf = (p: EntityPoolData, index: number) => {
    const slot = p.aliasSlot[index]!;
    return slot >= 0 && r.chance(ALIAS_SHARE) ? p.aliasIds[slot]! : p.ids[index]!;
  };

  // What every report of an event agrees on, per role: the entity, one figure in one unit,
  // one text, the day.
  const truthOf = (role: DemoRole, day: string): RoleTruth => {
    if (role.range) {
      const [min, max] = role.range;
      const amount = max <= 100 ? Math.round(r.between(min, max) * 10) / 10 : Math.floor(r.between(min, max + 1));
      return { amount, unit: role.expected_type === 'CURRENCY' ? r.pick(CURRENCIES) : (role.unit ?? '') };
    }
    if (role.expected_type === 'DATE') return { date: day };
    return { text: r.pick(role.texts ?? ['unknown']) };
  };
  // Outlets quote a figure exactly or within 2 % of it, the way they round and update a number.
  const quoted = (role: DemoRole, amount: number): number => {
    if (r.chance(0.6)) return amount;
    const [min, max] = role.range!;
    const drifted = Math.min(max, Math.max(min, amount * r.between(0.98, 1.02)));
    return max <= 100 ? Math.round(drifted * 10) / 10 : Math.round(drifted);
  };

  // The last few events of each type: where a sibling event finds the participant it shares.
  const recent = world.types.map((): TrueEvent[] => []);
  // A role's value as the texts write it: an entity's name, a figure, a text, a day.
  const valueText = (role: DemoRole, value: RoleTruth) =>
    'entity' in value
      ? pools[role.pool!].named(value.entity).name
      : 'amount' in value
        ? figure(value.amount, value.unit)
        : 'text' in value
          ? value.text
          : value.date;

  function trueEvent(n: number, at: number): TrueEvent {
    const typeIndex = r.weighted(world.typeShares);
    const type = world.types[typeIndex]!;
    const roles = type.spec.roles;
    const day = dayOf(Math.floor(at / DAY_MS)).name;
    const values: RoleTruth[] = roles.map((role) => (role.pool ? { entity: -1 } : truthOf(role, day)));
    const sibling = type.named.length > 1 && r.chance(SIBLING_SHARE) ? recent[typeIndex]!.filter((e) => at - e.at <= SIBLING_WINDOW_MS) : [];
    const kept = sibling.length > 0 ? type.named[r.int(type.named.length)]! : -1;
    const of = sibling.length > 0 ? r.pick(sibling) : null;
    for (const j of type.named) {
      const p = pools[roles[j]!.pool!];
      if (of && j === kept) {
        values[j] = { entity: (of.values[j] as { entity: number }).entity };
        continue;
      }
      // Another entity than the event's other roles (and than the sibling's in this role).
      let index = draw(p);
      for (let tries = 0; tries < 8; tries++) {
        const clash = type.named.some((i) => i !== j && roles[i]!.pool === roles[j]!.pool && (values[i] as { entity: number }).entity === index);
        if (!clash && (!of || (of.values[j] as { entity: number }).entity !== index)) break;
        index = draw(p);
      }
      values[j] = { entity: index };
    }
    const roleTexts = roles.map((role, j) => valueText(role, values[j]!));

    const count = ARTICLE_COUNTS[r.weighted(ARTICLE_COUNT_SHARES)]!;
    const order: number[] = [];
    const times: number[] = [];
    for (let k = 0; k < count; k++) {
      // A distinct outlet each.
      let o = r.int(outlets.length);
      while (order.includes(o)) o = r.int(outlets.length);
      order.push(o);
      // The first article minutes to hours after the event, the others over hours to days;
      // a recent event's follow-ups spread over the time there has been since. Kept in order.
      const delay = k === 0 ? r.logBetween(2 * MINUTE_MS, 3 * HOUR_MS) : r.logBetween(10 * MINUTE_MS, 4 * DAY_MS);
      const time = Math.round(at + delay <= latest ? at + delay : at + (latest - at) * r.next());
      let i = times.length;
      times.push(time);
      for (; i > 0 && times[i - 1]! > time; i--) times[i] = times[i - 1]!;
      times[i] = time;
    }
    // The texts draw from the event's own generators, not `r`: the articles' other fields are
    // what they were before articles had texts.
    const textSeed = ArticleTexts.eventSeed(options.seed, n);
    const plan = ArticleTexts.plan(textSeed, count);
    const event: TrueEvent = { key: n.toString(36), type, typeIndex, at, day, values, roleTexts, textSeed, plan, outlets: order, times, emitted: 0 };
    const ring = recent[typeIndex]!;
    ring.push(event);
    if (ring.length > 8) ring.shift();
    return event;
  }

  const STYLES = ['', 'BREAKING: ', 'Update: ', 'Report: '];
  /** The event's k-th article; null when it is not in this pass's part, after the same draws from `r` (the texts draw from their own). */
  function article(event: TrueEvent, k: number): { body: IngestArticleBody; truth?: ArticleTruth } | null {
    const included = inPart(event);
    const { type, values } = event;
    const roles: RoleEntry[] = [];
    const specs = type.spec.roles;
    for (let j = 0; j < specs.length; j++) {
      const role = specs[j]!;
      const value = values[j]!;
      // The first article carries every role; later ones always the main actor, usually the
      // other entities, and about half of the rest.
      if (k > 0 && j !== type.named[0] && !r.chance(role.pool ? 0.9 : 0.5)) continue;
      if ('entity' in value) roles.push({ role: role.code_name, entity_id: idOf(pools[role.pool!], value.entity) });
      else if ('amount' in value) roles.push({ role: role.code_name, amount: { value: quoted(role, value.amount), unit: value.unit } });
      else if ('text' in value) roles.push({ role: role.code_name, text: value.text });
      else roles.push({ role: role.code_name, date: value.date });
    }
    const at = event.times[k]!;
    const outletIndex = event.outlets[k]!;
    const outlet = outlets[outletIndex]!;
    const published = timestamp(at);
    const written = included ? texts.article(event, k, outletIndex) : { story: 0, headline: '', text: '', copy: false };
    const story = `s${written.story}/${event.key}`;
    const body: IngestArticleBody = {
      outlet_id: outlet.id,
      event_type_id: type.id,
      published_at: k > 0 && r.chance(0.05) ? null : published,
      received_at: timestamp(Math.min(latest, at + r.between(MINUTE_MS, 30 * MINUTE_MS))),
      roles,
      headline: `${STYLES[outletIndex % STYLES.length]}${written.headline}`,
      url: `https://${outlet.domain}/${dayOf(Math.floor(at / DAY_MS)).path}/${type.section}/${story}-${k}`,
      text: written.text,
    };
    // When it happened, as the outlet says it: mostly the day (now and then the local day
    // before or after), sometimes the time, sometimes not at all.
    const u = r.next();
    if (u < 0.77) body.happened_at = event.day;
    else if (u < 0.8) body.happened_at = dayOf(Math.floor(event.at / DAY_MS) + (r.chance(0.5) ? 1 : -1)).name;
    else if (u < 0.85) body.happened_at = timestamp(Math.floor(event.at / MINUTE_MS) * MINUTE_MS);
    if (r.chance(0.5)) {
      const mentioned = [idOf(pools.ORGANIZATION, draw(pools.ORGANIZATION))];
      if (r.chance(0.5)) mentioned.push(idOf(pools.PERSON, draw(pools.PERSON)));
      body.mentioned_entity_ids = mentioned;
    }
    if (!included) return null;
    if (!options.truth) return { body };
    const storyText = texts.story(event, written.story).paragraphs.join('\n\n');
    const truth: ArticleTruth = { story, wire: written.story === event.plan.wire, copy: written.copy, storyText };
    if (written.edits) truth.edits = written.edits;
    return { body, truth };
  }

  const queue = new PublishQueue();
  let seq = 0;
  let eventsDone = 0;
  let batch: IngestArticleBody[] = [];
  let truths: ArticleTruth[] = [];
  // Emits, in publish order, every article published up to `until`.
  function* publishUntil(until: number): Generator<ArticleBatch> {
    for (let next = queue.peek(); next && next.at <= until; next = queue.peek()) {
      queue.pop();
      const made = article(next.event, next.k);
      if (made) {
        batch.push(made.body);
        if (made.truth) truths.push(made.truth);
      }
      if (++next.event.emitted === next.event.times.length) {
        if (made) eventsDone++;
        next.event.wireStory = undefined; // its last carrier is out (the event may stay a while among the recent ones)
      }
      if (batch.length >= batchSize) {
        yield options.truth ? { articles: batch, eventsDone, truths } : { articles: batch, eventsDone };
        batch = [];
        truths = [];
      }
    }
  }

  for (let n = 0; n < events; n++) {
    // Event times spread evenly over the year, in order: an article published before this
    // event can no longer be preceded by one not made yet.
    const at = Math.round(start + ((n + r.next()) / events) * span);
    const event = trueEvent(n, at);
    event.times.forEach((time, k) => {
      queue.push({ at: time, seq: seq++, event, k });
    });
    yield* publishUntil(at);
  }
  yield* publishUntil(Infinity);
  if (batch.length > 0) yield options.truth ? { articles: batch, eventsDone, truths } : { articles: batch, eventsDone };
}
