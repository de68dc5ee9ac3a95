// Console pages that read activity, over HTTPS: the ledger grouped per day and beat and paged
// over its lines, a beat's clauses in words and its entries paged, dates as dates, and the
// counts per day behind each picture (credits, beat entries, delivery outcomes), on the test
// clock. On a server that may deliver to a local receiver, as a sensor's page needs deliveries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccount, consoleClient, type ConsoleClient } from '../helpers/console.js';
import { unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startDeliveryServer, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const DAY_1 = '2026-11-18T10:00:00.000Z';
const DAY_2 = '2026-11-19T09:00:00.000Z';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** The text of some HTML: tags dropped, entities of the console's escaping read, spaces folded. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
/** The content of each list item or table row with this test hook (items of one list, one after another). */
const parts = (html: string, testid: string) =>
  html
    .split(`data-testid="${testid}"`)
    .slice(1)
    .map((part) =>
      part
        .slice(part.indexOf('>') + 1)
        .split(/<\/tbody>|<\/ol>/)[0]!
        .replace(/<(li|tr)[^>]*$/, ''),
    );
/** "When | What | Amount" of each ledger line. */
const ledgerLines = (html: string) =>
  parts(html, 'ledger-row').map((row) =>
    [...row.matchAll(/<div class="value">(.*?)<\/div><\/td>/g)]
      .slice(0, 3)
      .map((cell) => text(cell[1]!))
      .join(' | '),
  );
/** Each ledger line's amount and balance after, as numbers. */
const ledgerFigures = (html: string) =>
  parts(html, 'ledger-row').map(
    (row) => [...row.matchAll(/<div class="value">(.*?)<\/div><\/td>/g)].slice(2, 4).map((cell) => Number(text(cell[1]!))) as [number, number],
  );
/** Day → the numbers of that day in a picture's table for screen readers. */
function chartNumbers(html: string): Map<string, number[]> {
  const table = /data-testid="chart-data">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  return new Map(
    [...table.matchAll(/<tr data-day="([\d-]+)">(.*?)<\/tr>/g)].map(([, day, row]) => [day!, [...row!.matchAll(/<td>(\d+)<\/td>/g)].map((m) => Number(m[1]))]),
  );
}
const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

describe('console pages of activity', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;
  let outlet: string;

  before(async () => {
    ({ server, corpus, receiver, close } = await startDeliveryServer(DAY_1));
    outlet = await corpus.outlet();
  });
  after(() => close());

  const setClock = (now: string) => server.ops.post('/clock', { now });
  const drain = () => server.ops.post('/drain');
  const articles = async (typeId: string, count: number, extra: Record<string, unknown> = {}) => {
    for (let i = 0; i < count; i++) {
      await corpus.article({ outlet_id: outlet, event_type_id: typeId, roles: [{ role: 'party', entity_id: await corpus.entity() }], ...extra });
    }
    await drain();
  };

  /** An account with a key and a console user; `signIn` signs in at the clock's now (sessions end after 12 idle hours). */
  async function owner(scopes: string[]) {
    const { account, email } = await consoleAccount(server.ops, { credit_balance: 1000, entitlements: { beats: true } });
    const key = await server.ops.createKey(account.id, scopes);
    return {
      accountId: account.id as string,
      key,
      async signIn(): Promise<ConsoleClient> {
        const browser = consoleClient(server.http);
        assert.equal((await browser.signIn(email)).status, 303);
        return browser;
      },
    };
  }
  async function createBeat(key: string, name: string, clauses: Record<string, unknown>[]) {
    const created = await server.http.post('/v1/beats', { name, clauses }, { ...bearer(key), 'idempotency-key': unique() });
    assert.equal(created.status, 201, created.text);
    return created.json as { id: string };
  }

  it('when a beat records entries on two days around other charges, then one ledger line per day and beat with its count and total, paged over lines without repeats or gaps', async () => {
    await setClock(DAY_1);
    const { accountId, key, signIn } = await owner(['BEATS_READ', 'BEATS_WRITE', 'EVENTS_READ']);
    const [harbourType, dockType] = [await corpus.eventType(), await corpus.eventType()];
    const harbour = await createBeat(key, 'Harbour closures', [{ event_type_id: harbourType.id }]);
    const docks = await createBeat(key, 'Dock strikes', [{ event_type_id: dockType.id }]);
    await drain();
    await articles(harbourType.id, 12);
    await setClock(DAY_2);
    await articles(harbourType.id, 3);
    // Operator grants between two runs of the same beat's entries on the same day: row by row,
    // that day's entries would fall on two pages.
    for (let i = 1; i <= 26; i++) await server.ops.post(`/accounts/${accountId}/credits`, { amount: 1, reason: `grant ${i}` });
    await articles(harbourType.id, 4);
    await articles(dockType.id, 2);
    const search = await server.http.request('POST', '/v1/events/search', {
      headers: { ...bearer(key), 'idempotency-key': unique() },
      body: { lookback_days: 7 },
    });
    assert.equal(search.status, 200, search.text);

    // The lines expected, from the API's ledger (one row per transaction, unchanged).
    const rows: any[] = [];
    for (let after = ''; ; ) {
      const page = await server.http.get(`/v1/account/credit-transactions?limit=100${after}`, bearer(key));
      assert.equal(page.status, 200, page.text);
      rows.push(...page.json.data);
      if (!page.json.has_more) break;
      after = `&starting_after=${page.json.next_cursor}`;
    }
    const names: Record<string, string> = { [harbour.id]: 'Harbour closures', [docks.id]: 'Dock strikes' };
    // A beat's entries of one day with no other row between them are one line.
    const groups: { newest: any; count: number; total: number }[] = [];
    for (const row of rows) {
      const last = groups.at(-1)?.newest;
      const sameRun =
        row.kind === 'BEAT_ENTRY' &&
        last?.kind === 'BEAT_ENTRY' &&
        last.beat_id === row.beat_id &&
        last.created_at.slice(0, 10) === row.created_at.slice(0, 10);
      if (!sameRun) groups.push({ newest: row, count: 0, total: 0 });
      groups.at(-1)!.count++;
      groups.at(-1)!.total += row.amount;
    }
    const expected = groups.map(({ newest, count, total }) => {
      const amount = total > 0 ? `+${total}` : String(total);
      if (newest.kind === 'BEAT_ENTRY') {
        const day = count > 1 ? `${newest.created_at.slice(0, 10)} (UTC day)` : when(newest.created_at);
        return `${day} | ${count} beat ${count === 1 ? 'entry' : 'entries'} for ${names[newest.beat_id]} | ${amount}`;
      }
      const what = newest.kind === 'SEARCH' ? 'Search' : `Grant: ${newest.reason}`;
      return `${when(newest.created_at)} | ${what} | ${amount}`;
    });
    // The grants split day 2's seven entries in two lines, so each line's balance follows from the one below.
    assert.ok(expected.includes('2026-11-19 (UTC day) | 4 beat entries for Harbour closures | -4'), expected.join('\n'));
    assert.ok(expected.includes('2026-11-19 (UTC day) | 3 beat entries for Harbour closures | -3'), expected.join('\n'));
    assert.ok(expected.includes('2026-11-18 (UTC day) | 12 beat entries for Harbour closures | -12'));
    const split = rows.flatMap((row, i) => (row.beat_id === harbour.id && row.created_at.startsWith('2026-11-19') ? [i] : []));
    assert.ok(split[0]! < 25 && split[split.length - 1]! >= 25, 'row by row, the day-2 entries of one beat straddle a 25-row page');

    const browser = await signIn();
    const shown: string[] = [];
    const figures: [number, number][] = [];
    let path: string | undefined = '/console/credits';
    for (let pages = 0; path && pages < 5; pages++) {
      const page = await browser.get(path);
      assert.equal(page.status, 200);
      shown.push(...ledgerLines(page.text));
      figures.push(...ledgerFigures(page.text));
      if (pages === 0) {
        assert.equal(parts(page.text, 'ledger-row').length, 25, 'a page of 25 lines');
        assert.match(page.text, new RegExp(`<a href="/console/beats/${harbour.id}">Harbour closures</a>`));
        assert.match(page.text, new RegExp(`<a href="/console/beats/${docks.id}">Dock strikes</a>`));
        assert.doesNotMatch(text(page.text.split('data-testid="ledger-row"').slice(1).join('')), UUID, 'no bare ids in the ledger');
      }
      path = /href="(\/console\/credits\?starting_after=[^"]+)">Older/.exec(page.text)?.[1];
    }
    assert.deepEqual(shown, expected, 'every line once, in order, across pages');
    // Read from the bottom up, each line's balance is the one below it plus its amount.
    for (let i = 0; i + 1 < figures.length; i++) {
      const [[amount, balance], [, below]] = [figures[i]!, figures[i + 1]!];
      assert.equal(balance, below + amount, `line ${i + 1}: ${JSON.stringify(figures.slice(i, i + 2))}`);
    }
    assert.equal(figures.at(-1)![1], 1000, 'the oldest line is the initial grant');

    // The picture: credits spent per day, the clock's today last.
    const credits = await browser.get('/console/credits');
    const perDay = chartNumbers(credits.text);
    assert.equal(perDay.size, 30);
    assert.equal([...perDay.keys()].at(-1), '2026-11-19');
    assert.deepEqual(perDay.get('2026-11-18'), [12]);
    assert.deepEqual(perDay.get('2026-11-19'), [3 + 4 + 2 + 1]);
    assert.equal(
      [...perDay.values()].flat().reduce((a, b) => a + b),
      22,
      'nothing on other days',
    );
    assert.match(credits.text, /aria-label="Credits spent per day, 2026-10-21 to 2026-11-19 \(UTC\): 22 credits in all; most on 2026-11-18 \(12\)."/);
  });

  it('when a beat page is read, then its clauses in words with names for every id', async () => {
    await setClock(DAY_1);
    const { accountId, key, signIn } = await owner(['BEATS_READ', 'BEATS_WRITE']);
    const type = await corpus.eventType({ party: 'NAMED_ENTITY', price: 'CURRENCY', closing: 'DATE' });
    const portName = `Port of Rotterdam ${unique()}`;
    const port = await corpus.entity(portName);
    const carrier = await corpus.entity(`Maersk ${unique()}`);
    const list = (await corpus.ops('POST', '/entity-lists', { name: `Carriers ${unique()}`, owner_account_id: accountId, entity_ids: [carrier] })).json;
    const wire = (await corpus.ops('POST', '/outlets', { name: `Harbour Wire ${unique()}` })).json;
    const beat = await createBeat(key, 'Port watch', [
      {
        event_type_id: type.id,
        involved_entity_ids: [port],
        scope: 'PARTICIPANT',
        required_source_news_outlet_ids: [wire.id],
        min_reports: 2,
        role_filters: [
          { kind: 'amount_gte', role_code_name: 'price', min_value: 100, unit: 'USD' },
          { kind: 'date_before', role_code_name: 'closing', before_iso: '2026-12-01T00:00:00Z' },
          { kind: 'entity_in', role_code_name: 'party', entity_list_ids: [list.id] },
        ],
      },
      { involved_entity_list_ids: [list.id], report_source_kind: 'ARTICLES_ONLY' },
    ]);
    const page = await (await signIn()).get(`/console/beats/${beat.id}`);
    assert.equal(page.status, 200);
    const [first, second] = parts(page.text, 'beat-clause').map(text);
    assert.equal(
      first,
      `Event typeTest typeTaking part${portName}Role “Price”at least 100 USDRole “Closing”before 2026-12-01T00:00:00ZRole “Party”one of the members of ${list.name}Reported by${wire.name}At least2 outlets reporting`,
    );
    assert.equal(second, `Event typeanyMentionedthe members of the list ${list.name}Countingnews articles only`);
    assert.doesNotMatch(`${first}${second}`, UUID, 'names, not ids');
  });

  it('when a beat has more entries than a page, then newer and older pages show each entry once, dates known only to the day as dates, and entries per day', async () => {
    await setClock(DAY_1);
    const { key, signIn } = await owner(['BEATS_READ', 'BEATS_WRITE']);
    const type = await corpus.eventType();
    const beat = await createBeat(key, 'Closures', [{ event_type_id: type.id }]);
    await drain();
    await articles(type.id, 5, { happened_at: '2026-11-17' });
    await setClock(DAY_2);
    await articles(type.id, 29, { happened_at: '2026-11-18' });
    await articles(type.id, 1, { happened_at: '2026-11-19T08:30:00Z' });
    const browser = await signIn();

    const newest = await browser.get(`/console/beats/${beat.id}`);
    assert.equal(newest.status, 200);
    const sentences = (html: string) => parts(html, 'beat-entry-row').map((row) => text(/data-label="Event"><div class="value">(.*?)<\/div>/.exec(row)![1]!));
    const link = (html: string, testid: string) =>
      new RegExp(`href="([^"]+)" rel="(?:prev|next)" data-testid="${testid}"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
    assert.equal(sentences(newest.text).length, 20);
    assert.equal(link(newest.text, 'entries-newer'), undefined, 'nothing newer than the newest');
    assert.match(newest.text, /35 entries recorded in the past 90 days/);
    const older = await browser.get(link(newest.text, 'entries-older')!);
    assert.equal(older.status, 200);
    assert.equal(sentences(older.text).length, 15);
    assert.equal(link(older.text, 'entries-older'), undefined, 'nothing older than the oldest');
    const all = [...sentences(newest.text), ...sentences(older.text)];
    assert.equal(new Set(all).size, 35, 'each entry once');
    const back = await browser.get(link(older.text, 'entries-newer')!);
    assert.deepEqual(sentences(back.text), sentences(newest.text), 'the newer page is the page before');

    // The cell's words, whatever marks them up (a date and a time are each kept on one line).
    const occurred = [newest, older].flatMap((page) =>
      [...page.text.matchAll(/data-testid="entry-occurred">(.*?)<\/div>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '')),
    );
    assert.deepEqual([...new Set(occurred)].sort(), ['2026-11-17', '2026-11-18', '2026-11-19 08:30:00 UTC'], 'dates as dates; a time where there is one');
    assert.doesNotMatch(newest.text + older.text, /00:00:00 UTC/);

    const perDay = chartNumbers(newest.text);
    assert.equal([...perDay.keys()].at(-1), '2026-11-19');
    assert.deepEqual(perDay.get('2026-11-18'), [5]);
    assert.deepEqual(perDay.get('2026-11-19'), [30]);
    assert.equal(
      [...perDay.values()].flat().reduce((a, b) => a + b),
      35,
    );

    for (const position of ['abc', '99999999999999999-1', '-999999999999999-1']) {
      assert.equal((await browser.get(`/console/beats/${beat.id}?older=${position}`)).status, 400, position);
    }
  });

  it('when deliveries succeed and fail on different days, then the sensor page counts each outcome on the day it was made', async () => {
    await setClock(DAY_1);
    const { key, signIn } = await owner(['SENSORS_READ', 'SENSORS_WRITE']);
    const type = await corpus.eventType();
    const hook = `/activity-${unique()}`;
    const sensor = await server.http.post(
      '/v1/sensors',
      { name: 'Closures', filter: { event_type_id: type.id }, actions: [{ type: 'webhook', url: receiver.url(hook) }] },
      { ...bearer(key), 'idempotency-key': unique() },
    );
    assert.equal(sensor.status, 201, sensor.text);
    const previous = receiver.reply;
    let status = 200;
    receiver.reply = (request) => (request.path === hook ? { status } : previous(request));
    try {
      await articles(type.id, 2); // day 1: two succeed
      status = 500;
      await articles(type.id, 1); // day 1: one fails, and is tried again until it is FAILED
      for (let attempt = 2; attempt <= 8; attempt++) {
        await server.ops.post('/clock', { advance_seconds: 13 * 3600 });
        await drain();
      }
      status = 200;
      await articles(type.id, 1); // today: one succeeds
    } finally {
      receiver.reply = previous;
    }
    const deliveries = (await server.http.get(`/v1/sensors/${sensor.json.id}/deliveries`, bearer(key))).json.data;
    assert.deepEqual(deliveries.map((d: any) => d.status).sort(), ['FAILED', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);

    const page = await (await signIn()).get(`/console/sensors/${sensor.json.id}`);
    assert.equal(page.status, 200);
    const badges = [...page.text.matchAll(/class="badge[^"]*">([^<]+)</g)].map((m) => m[1]).sort();
    assert.deepEqual(badges, ['Enabled', 'Failed', 'Succeeded', 'Succeeded', 'Succeeded'], 'status words in one style');
    const perDay = chartNumbers(page.text);
    assert.equal([...perDay.keys()].at(-1), '2026-11-22', 'the clock moved 91 hours from day 1');
    assert.deepEqual(perDay.get('2026-11-18'), [2, 1], 'succeeded, failed');
    assert.deepEqual(perDay.get('2026-11-22'), [1, 0]);
    assert.equal(
      [...perDay.values()].flat().reduce((a, b) => a + b),
      4,
      'nothing on other days',
    );
    assert.match(
      page.text,
      /aria-label="Deliveries per day, by outcome, 2026-10-24 to 2026-11-22 \(UTC\): 3 succeeded, 1 failed in all; most on 2026-11-18 \(3\)."/,
    );
  });
});
