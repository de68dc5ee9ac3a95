// Random articles for ingest tests, from a seeded generator: a small pool of entities so that
// reports often share a participant, dates spread over weeks so that the clustering window
// both joins and splits them, and the awkward cases (missing roles, unreadable happened_at,
// late publish times, the same report date twice, an article sent again, lines the service
// refuses). An article is drawn once and rendered for any number of copies of one corpus,
// each with an event type and url prefix of its own (ingest-equivalence.test.ts).

/** The roles of the type the articles are for: two entity roles, so that clustering precision matters. */
export const ARTICLE_ROLES = { buyer: 'NAMED_ENTITY', seller: 'NAMED_ENTITY', closing: 'DATE', price: 'CURRENCY', note: 'NONE' } as const;
export const ARTICLE_TEMPLATE = '{buyer} agreed to buy {seller} for {price}';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface ArticleWorld {
  outlets: readonly string[];
  /** Entity ids by the role they are mostly drawn for (mentions too); merged and deleted ones stay in. */
  pools: Record<'buyer' | 'seller' | 'mentioned', string[]>;
}

export interface Article {
  outletId: string;
  publishedAt?: string | null;
  receivedAt: string;
  happenedAt?: string | null;
  roles: Record<string, unknown>[];
  mentions?: string[];
  /** An event of this copy (`same`) or of the other (`other`) by key, or an id that names none. */
  incident?: { copy: 'same' | 'other'; key: string } | { unknown: string };
  headline?: string;
  /** Its text: a story of its own, a copy of an earlier one (case, spaces and punctuation changed), or a brief. */
  text?: string;
  /** The url without the copy's prefix; none: always a new article. */
  path?: string;
  /** A field no article has (the schema refuses it). */
  colour?: string;
}

export type ArticleLine = { raw: string } | { article: Article };

/** What a copy of the corpus puts in a line: its event type, its url prefix, its event for a key. */
export interface ArticleCopy {
  typeId: string;
  urlPrefix: string;
  /** Appended to every word of a text: no text of one copy is a copy of the other's. */
  wordSuffix: string;
  eventId(key: string): string | undefined;
}

const NO_EVENT = '00000000-0000-4000-8000-000000000000';

export function renderLine(line: ArticleLine, copy: ArticleCopy, other: ArticleCopy): string {
  if ('raw' in line) return line.raw;
  const { article: a } = line;
  let incident: string | undefined;
  if (a.incident && 'unknown' in a.incident) incident = a.incident.unknown;
  else if (a.incident) incident = (a.incident.copy === 'same' ? copy : other).eventId(a.incident.key) ?? NO_EVENT;
  return JSON.stringify({
    outlet_id: a.outletId,
    event_type_id: copy.typeId,
    ...(a.publishedAt !== undefined ? { published_at: a.publishedAt } : {}),
    received_at: a.receivedAt,
    ...(a.happenedAt !== undefined ? { happened_at: a.happenedAt } : {}),
    roles: a.roles,
    ...(a.mentions ? { mentioned_entity_ids: a.mentions } : {}),
    ...(incident ? { incident_id: incident } : {}),
    ...(a.headline ? { headline: a.headline } : {}),
    ...(a.text !== undefined ? { text: a.text.replace(/\p{L}+/gu, (word) => `${word}${copy.wordSuffix}`) } : {}),
    ...(a.path ? { url: `${copy.urlPrefix}${a.path}` } : {}),
    ...(a.colour ? { colour: a.colour } : {}),
  });
}

/**
 * Draws article lines: fresh articles whose receive times lie within `days` from `start`,
 * and now and then one sent before (in an earlier batch or earlier in the same one), a line
 * that is not JSON, or one the service refuses.
 */
export function articleGenerator(random: () => number, world: ArticleWorld, start: number, days: number) {
  const int = (n: number) => Math.floor(random() * n);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => int(16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
  };
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const sent: Article[] = [];
  /** Each fresh article's report date and entity roles, for others to tell the same story. */
  const stories: { reportDate: number; roles: Record<string, unknown>[] }[] = [];
  /** The texts written so far, for copies. */
  const texts: string[] = [];
  let drawn = 0;

  const entity = (pool: keyof ArticleWorld['pools']) => {
    const pools = world.pools;
    return pick(chance(0.9) ? pools[pool] : [...pools.buyer, ...pools.seller, ...pools.mentioned]);
  };

  function times(): Pick<Article, 'publishedAt' | 'receivedAt'> & { reportDate: number } {
    const received = start + int(days * DAY);
    const roll = random();
    if (roll < 0.1) return { receivedAt: new Date(received).toISOString(), reportDate: received };
    if (roll < 0.15) return { publishedAt: null, receivedAt: new Date(received).toISOString(), reportDate: received };
    if (roll < 0.27) {
      // Published more than a day after it was received: the receive time is the report date.
      return { publishedAt: new Date(received + DAY + 1 + int(2 * DAY)).toISOString(), receivedAt: new Date(received).toISOString(), reportDate: received };
    }
    const published = received - int(12 * HOUR);
    return { publishedAt: new Date(published).toISOString(), receivedAt: new Date(received).toISOString(), reportDate: published };
  }

  function happenedAt(reportDate: number): string | null | undefined {
    const roll = random();
    const when = reportDate - int(5 * DAY) + int(DAY);
    if (roll < 0.25) return undefined;
    if (roll < 0.32) return null;
    if (roll < 0.72) return day(when);
    if (roll < 0.8) return new Date(when).toISOString();
    if (roll < 0.85) return `${day(when)}T21:30:00-05:00`; // the next day in UTC
    return pick(['last week', 'early November', '2026-02-30', '2026-11-31T10:00:00Z', 'Tuesday']);
  }

  function roles(): Record<string, unknown>[] {
    const entries: Record<string, unknown>[] = [];
    if (chance(0.85)) entries.push({ role: 'buyer', entity_id: entity('buyer') });
    if (chance(0.5)) entries.push({ role: 'seller', entity_id: entity('seller') });
    if (chance(0.3)) entries.push({ role: 'closing', date: day(start + int(days * DAY)) });
    if (chance(0.4)) entries.push({ role: 'price', amount: { value: (1 + int(40)) * 12.5, unit: pick(['USD', 'EUR']) } });
    if (chance(0.3)) entries.push({ role: 'note', text: pick(['friendly', 'hostile', ' subject to approval ']) });
    if (chance(0.3)) entries.reverse();
    return entries;
  }

  const WORDS =
    'the of and to in said for on that with was as by at from its were has have after who over about more than when year company deal court police minister talks market shares government city report people week strike rain border vote plan bank rate price river bridge school hospital council union agency officials residents'.split(
      ' ',
    );
  /** A text of its own: words drawn at random, so no two share a run of five. */
  const story = (words: number) =>
    Array.from({ length: words }, (_, i) => `${pick(WORDS)}${int(1000)}${i % 12 === 11 ? '.' : ''}`)
      .join(' ')
      .replace(/(^|\. )([a-z])/g, (_, stop, c: string) => `${stop}${c.toUpperCase()}`);
  /** A copy of an earlier text: the same words, their case, spacing and punctuation changed (a copy whichever arrives first). */
  const copyOf = (text: string) => {
    const roll = random();
    if (roll < 0.33) return text.toUpperCase();
    if (roll < 0.66) return text.replaceAll(' ', '  \n');
    return text.replaceAll('.', ' --').replaceAll(' ', ', ');
  };
  function textFor(): string | undefined {
    const roll = random();
    if (roll < 0.3) return undefined;
    if (roll < 0.4) return story(10 + int(35)); // a brief: never a copy
    if (roll < 0.65 && texts.length > 0) return copyOf(pick(chance(0.7) ? texts.slice(-30) : texts));
    const text = story(55 + int(60));
    texts.push(text);
    return text;
  }

  /** One change the service refuses, with the problem the single call answers for it. */
  function spoil(article: Article): void {
    switch (int(8)) {
      case 0:
        article.roles.push({ role: 'nobody', text: 'x' });
        break;
      case 1:
        article.roles.push({ role: article.roles.some((r) => r.role === 'buyer') ? 'seller' : 'buyer', entity_id: uuid() });
        break;
      case 2:
        article.outletId = uuid();
        break;
      case 3:
        article.mentions = [...(article.mentions ?? []), uuid()];
        break;
      case 4:
        article.colour = 'red';
        break;
      case 5:
        article.roles = [{ role: 'price', amount: { value: 1, unit: 'XXZ' } }];
        break;
      case 6:
        article.roles = [...article.roles.filter((r) => r.role !== 'closing'), { role: 'closing', date: '2026-02-30' }];
        break;
      default:
        article.roles = [];
    }
  }

  /**
   * The same story as an earlier article, from another outlet at the same instant (a wire
   * story): a tie in every "earliest report" rule (which report's values an event shows,
   * which of two events opened at one instant a report joins). Its parties are the story's,
   * now and then with another seller (the precision rule then opens a second event at the
   * same instant) or without one; its other values its own.
   */
  function sameStory(): { when: Pick<Article, 'publishedAt' | 'receivedAt'>; reportDate: number; roles: Record<string, unknown>[] } {
    const story = pick(chance(0.7) ? stories.slice(-30) : stories);
    const parties = story.roles.flatMap((entry) => {
      if (entry.role !== 'seller') return [entry];
      const roll = random();
      return roll < 0.6 ? [entry] : roll < 0.85 ? [{ role: 'seller', entity_id: entity('seller') }] : [];
    });
    const others = roles().filter((entry) => entry.role !== 'buyer' && entry.role !== 'seller');
    const when = { publishedAt: new Date(story.reportDate).toISOString(), receivedAt: new Date(story.reportDate + int(6 * HOUR)).toISOString() };
    return { when, reportDate: story.reportDate, roles: chance(0.5) ? [...parties, ...others] : [...others, ...parties] };
  }

  function fresh(eventKeys: readonly string[]): Article {
    let told: ReturnType<typeof sameStory>;
    if (stories.length > 0 && chance(0.15)) told = sameStory();
    else {
      const { reportDate, ...when } = times();
      told = { when, reportDate, roles: roles() };
      stories.push({ reportDate, roles: told.roles.filter((entry) => entry.role === 'buyer' || entry.role === 'seller') });
    }
    const { when, reportDate } = told;
    const article: Article = { outletId: pick(world.outlets), ...when, happenedAt: happenedAt(reportDate), roles: told.roles };
    if (chance(0.25)) article.mentions = Array.from({ length: 1 + int(2) }, () => entity('mentioned'));
    const roll = random();
    if (roll < 0.08 && eventKeys.length > 0) article.incident = { copy: 'same', key: pick(eventKeys) };
    else if (roll < 0.09 && eventKeys.length > 0) article.incident = { copy: 'other', key: pick(eventKeys) };
    else if (roll < 0.1) article.incident = { unknown: uuid() };
    if (chance(0.5)) article.headline = `Deal news ${drawn}`;
    const text = textFor();
    if (text !== undefined) article.text = text;
    if (chance(0.85)) article.path = `/deals/${drawn}-${int(1e9)}`;
    if (chance(0.07)) spoil(article);
    return article;
  }

  return {
    /** The next line; `eventKeys` are the events an article may name by incident_id (known to every copy). */
    next(eventKeys: readonly string[]): ArticleLine {
      drawn++;
      if (chance(0.015)) return { raw: '{"outlet_id": ' };
      if (sent.length > 0 && chance(0.1)) {
        // An article sent before, mostly a recent one (often of the same batch): whole, or
        // only its url with other content (the stored report answers either way).
        const earlier = chance(0.6) ? pick(sent.slice(-20)) : pick(sent);
        return { article: chance(0.6) ? earlier : { ...fresh(eventKeys), path: earlier.path } };
      }
      const article = fresh(eventKeys);
      if (article.path) sent.push(article);
      return { article };
    },
  };
}
