// The console in a real browser: headless Chromium (Debian's /usr/bin/chromium) driven by
// playwright-core. Without Chromium the file is skipped with a line saying so, unless
// EVMON_REQUIRE_BROWSER=1 (set by CI), where a missing browser fails the run.
// Screenshots of every page go to test/output/screenshots/.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_PASSWORD, consoleAccount } from '../helpers/console.js';
import { unique, type TestCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { ROOT, type TestServer } from '../helpers/server.js';
import { startDeliveryServer, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const CHROMIUM = process.env.EVMON_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.EVMON_REQUIRE_BROWSER === '1';
const SHOTS = path.join(ROOT, 'test', 'output', 'screenshots');
const NOW = '2026-11-20T12:00:00.000Z';

const available = fs.existsSync(CHROMIUM);
if (!available && REQUIRED) throw new Error(`EVMON_REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: install Debian's chromium package.`);
if (!available) process.stdout.write(`# browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's chromium package to run them)\n`);

/** Chromium trusts the server's own self-signed certificate, and no other, by its key. */
function spkiHash(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

describe('console in a browser', { skip: !available && 'no Chromium' }, () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let receiver: WebhookReceiver;
  let closeServer: () => Promise<void>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let owner: Awaited<ReturnType<typeof consoleAccount>>;

  const shot = async (name: string, target: Page = page) => {
    await target.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  // One key for the API calls of the later tests (the limit test leaves room for exactly one).
  let workerKey: Promise<string> | null = null;
  const worker = () =>
    (workerKey ??= server.ops.createKey(owner.account.id, ['EVENTS_READ', 'SENSORS_READ', 'SENSORS_WRITE', 'BEATS_READ', 'BEATS_WRITE'], 'worker'));
  const rowOf = (name: string) => page.locator('[data-testid="api-key-row"]', { hasText: name });

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ server, corpus, receiver, close: closeServer } = await startDeliveryServer(NOW));
    base = server.http.baseUrl;
    owner = await consoleAccount(server.ops, { credit_balance: 100, entitlements: { structured_reporting: true, beats: true } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--ignore-certificate-errors-spki-list=${spkiHash(server.ca)}`,
      ],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept()); // revoke and redeliver ask first
  });
  after(async () => {
    await browser?.close();
    await closeServer?.();
  });

  it('when the owner signs in, then the API keys page; the sign-in page works with the keyboard', async () => {
    await page.goto(`${base}/`);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await page.keyboard.press('Tab'); // the skip link comes first
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(CONSOLE_PASSWORD);
    await shot('01-sign-in');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/console/settings/api-keys`);
    assert.equal(await page.locator('h1').textContent(), 'API keys');
    await shot('02-api-keys-empty');
  });

  it('when a key is made with two scopes, then it is shown once with a copy button, works on the API, and once revoked answers 401', async () => {
    await page.fill('input[name="name"]', 'newsroom alerts');
    await page.check('input[name="scopes"][value="EVENTS_READ"]');
    await page.check('input[name="scopes"][value="SENSORS_READ"]');
    await page.click('button:has-text("Create key")');
    const raw = (await page.locator('[data-testid="new-api-key"]').textContent())!.trim();
    assert.match(raw, /^evk_/);
    assert.ok(await page.locator('button[data-copy-from="new-api-key"]').isVisible(), 'the copy button shows with scripts on');
    await shot('03-api-key-created');

    const me = await server.http.get('/v1/account', bearer(raw));
    assert.equal(me.status, 200);
    assert.equal(me.json.id, owner.account.id);

    await page.goto(`${base}/console/settings/api-keys`);
    assert.equal(await page.locator('[data-testid="new-api-key"]').count(), 0, 'shown once');
    assert.ok(!(await page.content()).includes(raw));
    const row = rowOf('newsroom alerts');
    assert.match((await row.textContent())!, /EVENTS_READ, SENSORS_READ/);

    await row.locator('[data-testid="revoke"]').click();
    await page.waitForURL(/notice=revoked/);
    assert.equal(await rowOf('newsroom alerts').count(), 0);
    assert.equal((await server.http.get('/v1/account', bearer(raw))).status, 401);
    await shot('04-api-key-revoked');
  });

  it('when REPORTS_WRITE is ticked, then REPORTS_READ is ticked too; without a reporting entitlement it cannot be ticked', async () => {
    await page.goto(`${base}/console/settings/api-keys`);
    const read = page.locator('input[name="scopes"][value="REPORTS_READ"]');
    const write = page.locator('input[name="scopes"][value="REPORTS_WRITE"]');
    assert.equal(await read.isChecked(), false);
    await write.check();
    assert.equal(await read.isChecked(), true);
    await page.locator('input[name="scopes"][value="BEATS_WRITE"]').check();
    assert.equal(await page.locator('input[name="scopes"][value="BEATS_READ"]').isChecked(), true, 'BEATS_WRITE suggests BEATS_READ');
    await shot('05-scope-ticks');

    const plain = await consoleAccount(server.ops);
    const other = await browser.newContext({ viewport: { width: 390, height: 844 } }); // a phone
    const phone = await other.newPage();
    await phone.goto(`${base}/console/sign-in`);
    await phone.fill('input[name="email"]', plain.email);
    await phone.fill('input[name="password"]', CONSOLE_PASSWORD);
    await phone.click('button:has-text("Sign in")');
    await phone.waitForURL(`${base}/console/settings/api-keys`);
    assert.equal(await phone.locator('input[name="scopes"][value="REPORTS_WRITE"]').isDisabled(), true);
    await shot('06-api-keys-phone-no-reporting', phone);
    await other.close();
  });

  it('when the account holds 10 keys, then the create form gives way to the limit', async () => {
    // The first with a long name without spaces, which must wrap on a phone.
    const name = (i: number) => (i === 1 ? 'ingest-worker-for-the-harbour-desk-without-spaces' : `service ${i}`);
    for (let i = 1; i <= 10; i++) await server.ops.createKey(owner.account.id, ['EVENTS_READ'], name(i));
    await page.goto(`${base}/console/settings/api-keys`);
    assert.equal(await page.locator('[data-testid="api-key-row"]').count(), 10);
    assert.ok(await page.locator('[data-testid="key-limit-reached"]').isVisible());
    assert.equal(await page.locator('input[name="name"]').count(), 0);
    await shot('07-api-keys-limit');
    await rowOf('service 10').locator('[data-testid="revoke"]').click();
    await page.waitForURL(/notice=revoked/);
    assert.equal(await page.locator('input[name="name"]').count(), 1, 'room for one more');
  });

  it('when a search is charged, then the credits page shows the new balance and the charge', async () => {
    const key = await worker();
    const search = await server.http.request('POST', '/v1/events/search', {
      headers: { ...bearer(key), 'idempotency-key': unique() },
      body: { lookback_days: 30 },
    });
    assert.equal(search.status, 200, search.text);
    const account = (await server.http.get('/v1/account', bearer(key))).json;
    assert.ok(account.credit_balance < 100);
    await page.goto(`${base}/console/credits`);
    assert.equal((await page.locator('[data-testid="credit-balance"]').textContent())!.trim(), String(account.credit_balance));
    assert.match((await page.locator('[data-testid="ledger-row"]').first().textContent())!, /Search/);
    await shot('08-credits');
  });

  it('when a delivery is redelivered from the sensors page, then the receiver gets it again with the same webhook-id', async () => {
    const key = await worker();
    const hook = `/console-${unique()}`;
    const entity = await corpus.entity();
    const type = await corpus.eventType();
    const sensor = await server.http.post(
      '/v1/sensors',
      { name: 'Port strikes', filter: { involved_entity_ids: [entity] }, actions: [{ type: 'webhook', url: receiver.url(hook) }] },
      { ...bearer(key), 'idempotency-key': unique() },
    );
    assert.equal(sensor.status, 201, sensor.text);
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    await server.ops.post('/drain');
    assert.equal(receiver.received.filter((r) => r.path === hook).length, 1);

    await page.goto(`${base}/console/sensors`);
    await shot('09-sensors');
    await page.click('a:has-text("Port strikes")');
    // What the sensor watches, in words: its entity by name, not an id.
    const entityName = (await server.runtime.db.query<{ name: string }>('SELECT name FROM entities WHERE id = $1', [entity]))[0]!.name;
    const watches = (await page.locator('[data-testid="sensor-filter"]').textContent())!;
    assert.match(watches, new RegExp(`Event typeany.*Mentioned${entityName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.doesNotMatch(watches, /[0-9a-f]{8}-[0-9a-f]{4}-/);
    const delivery = page.locator('[data-testid="delivery-row"]').first();
    assert.match((await delivery.textContent())!, /Succeeded/);
    await delivery.locator('[data-testid="redeliver"]').click();
    await page.waitForURL(/notice=redelivered/);
    await server.ops.post('/drain');
    const [first, second] = receiver.received.filter((r) => r.path === hook);
    assert.ok(second, 'delivered again');
    assert.equal(second.headers['webhook-id'], first!.headers['webhook-id']);
    await page.reload();
    await shot('10-sensor-redelivered');

    // Updates turned on here: a second outlet's report brings event.updated, listed with what changed.
    assert.match((await page.locator('[data-testid="updates-state"]').textContent())!, /Updates are off/);
    await page.click('[data-testid="toggle-updates"]');
    await page.waitForURL(/notice=updates-on/);
    assert.match((await page.locator('[data-testid="updates-state"]').textContent())!, /Updates are delivered/);
    await corpus.article({ outlet_id: await corpus.outlet(), event_type_id: type.id, roles: [{ role: 'party', entity_id: entity }] });
    await server.ops.post('/drain');
    assert.equal(receiver.received.filter((r) => r.path === hook).length, 3);
    await page.reload();
    const update = page.locator('[data-testid="delivery-row"]').first();
    assert.match((await update.textContent())!, /event\.updated/);
    assert.match((await update.locator('[data-testid="changed-fields"]').textContent())!, /Changed: .*reports.*outlets.*independent sources/);
    await shot('10b-sensor-updates');
  });

  it('when the beats page is read, then each beat with its status, cap and spend', async () => {
    const key = await worker();
    const beat = await server.http.post(
      '/v1/beats',
      { name: 'Dock strikes', clauses: [{ involved_entity_ids: [await corpus.entity()] }] },
      { ...bearer(key), 'idempotency-key': unique() },
    );
    assert.equal(beat.status, 201, beat.text);
    await page.goto(`${base}/console/beats`);
    assert.match((await page.locator('[data-testid="beat-row"]').first().textContent())!, /Dock strikes/);
    await shot('11-beats');
    await page.click('a:has-text("Dock strikes")');
    assert.match((await page.locator('h1').textContent())!, /Dock strikes/);
    await shot('12-beat');
  });

  /**
   * The page at `path` on a phone (390 px) and on a laptop (1280 px), a screenshot of each;
   * answers how wide the document is on the phone (wider than the screen scrolls sideways).
   */
  async function phoneWidth(name: string, path: string, target: Page = page): Promise<number> {
    await target.setViewportSize({ width: 390, height: 844 });
    await target.goto(`${base}${path}`);
    const width = await target.evaluate(() => document.documentElement.scrollWidth);
    await shot(`${name}-390`, target);
    await target.setViewportSize({ width: 1280, height: 900 });
    await shot(`${name}-1280`, target);
    return width;
  }

  it('when every page is read on a phone (390 px), then none is wider than the screen, and the pictures are there', async () => {
    const key = await worker();
    // An operator's reason without spaces, which must wrap on a phone.
    await server.ops.post(`/accounts/${owner.account.id}/credits`, { amount: 5, reason: `goodwill-credit-after-the-outage-ticket-${'x'.repeat(40)}` });
    // A beat with more entries than one page, on events whose date is known only to the day.
    const type = await corpus.eventType();
    const beat = await server.http.post(
      '/v1/beats',
      { name: 'Harbour closures', clauses: [{ event_type_id: type.id }] },
      { ...bearer(key), 'idempotency-key': unique() },
    );
    assert.equal(beat.status, 201, beat.text);
    const outlet = await corpus.outlet();
    for (let i = 0; i < 22; i++) {
      await corpus.article({
        outlet_id: outlet,
        event_type_id: type.id,
        happened_at: '2026-11-18',
        roles: [{ role: 'party', entity_id: await corpus.entity() }],
      });
    }
    await server.ops.post('/drain');
    const sensor = await page.goto(`${base}/console/sensors`).then(() => page.locator('a', { hasText: 'Port strikes' }).getAttribute('href'));

    const signedOut = await browser.newContext();
    const widths: Record<string, number> = {
      'sign-in': await phoneWidth('20-sign-in', '/console/sign-in', await signedOut.newPage()),
      'API keys': await phoneWidth('21-api-keys', '/console/settings/api-keys'),
      credits: await phoneWidth('22-credits', '/console/credits'),
      sensors: await phoneWidth('23-sensors', '/console/sensors'),
      sensor: await phoneWidth('24-sensor', sensor!),
      beats: await phoneWidth('25-beats', '/console/beats'),
      beat: await phoneWidth('26-beat', `/console/beats/${beat.json.id}`),
    };
    await signedOut.close();
    const tooWide = Object.entries(widths).filter(([, width]) => width > 390);
    assert.deepEqual(tooWide, [], `pages wider than a 390 px screen: ${JSON.stringify(widths)}`);

    for (const [path, label] of [
      ['/console/credits', 'credits spent per day'],
      [sensor!, 'deliveries per day'],
      [`/console/beats/${beat.json.id}`, 'entries recorded per day'],
    ] as const) {
      await page.goto(`${base}${path}`);
      const picture = page.locator('svg[role="img"]');
      assert.equal(await picture.count(), 1, `one picture on ${path}`);
      assert.match((await picture.getAttribute('aria-label'))!, new RegExp(label, 'i'));
      assert.ok(await picture.isVisible());
      // At 1280 px the picture fills its card (less the card's padding), not two thirds of it.
      const [svg, card] = await Promise.all([picture.boundingBox(), page.locator('section.card', { has: picture }).boundingBox()]);
      assert.ok(svg!.width > card!.width - 48, `${path}: the picture ${svg!.width} px wide in a card of ${card!.width}`);
    }
    // On a phone, no date is broken at its hyphens: every date and time is one line.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/console/credits', `/console/beats/${beat.json.id}`, sensor!, '/console/settings/api-keys']) {
      await page.goto(`${base}${path}`);
      const broken = await page
        .locator('.nowrap')
        .evaluateAll((spans) => spans.filter((span) => span.getClientRects().length > 1).map((span) => span.textContent));
      assert.deepEqual(broken, [], `${path}: dates broken over lines`);
      assert.ok((await page.locator('.nowrap').count()) > 0, `${path} shows dates`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when /docs is opened in a browser, then Redoc renders the reference from the OpenAPI document, with no request outside and no blocked resource', async () => {
    const reference = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const tab = await reference.newPage();
      const outside: string[] = [];
      const refused: string[] = [];
      tab.on('request', (request) => {
        if (!request.url().startsWith(base) && !request.url().startsWith('blob:') && !request.url().startsWith('data:')) outside.push(request.url());
      });
      tab.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      await tab.goto(`${base}/docs`);
      assert.equal(await tab.title(), 'Event Monitoring API reference');
      // Rendered: the API's title and an operation of the document, found by its summary.
      await tab
        .getByRole('heading', { name: /Event Monitoring API/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await tab.locator('h2', { hasText: 'Search events (billed per execution)' }).waitFor({ timeout: 30_000 });
      await tab.screenshot({ path: path.join(SHOTS, '30-docs.png') }); // the first screen: the whole reference is very long
      assert.deepEqual(outside, []);
      assert.deepEqual(refused, []);
    } finally {
      await reference.close();
    }
  });

  it('when the owner signs out, then the console asks to sign in again', async () => {
    await page.click('[data-testid="sign-out"]');
    await page.waitForURL(`${base}/console/sign-in`);
    await page.goto(`${base}/console/credits`);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await shot('13-signed-out');
  });
});
