// Console pages over HTTPS: Settings → API keys with the operator API's rules, and credits,
// sensors and beats showing only the signed-in user's account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_PASSWORD, consoleAccount, consoleClient } from '../helpers/console.js';
import { testCorpus } from '../helpers/corpus.js';
import { bearer, startServer, type TestServer } from '../helpers/server.js';

const rows = (html: string, testid: string) => html.split(`data-testid="${testid}"`).length - 1;
const rawKeyIn = (html: string) => /data-testid="new-api-key">([^<]+)</.exec(html)?.[1] ?? null;

describe('console pages', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  async function signedIn(account: Record<string, unknown> = {}) {
    const created = await consoleAccount(server.ops, account);
    const browser = consoleClient(server.http);
    assert.equal((await browser.signIn(created.email)).status, 303);
    await browser.get('/console/settings/api-keys');
    return { ...created, browser };
  }

  it('when a key is created, then its raw key is shown once, it works on the API, REPORTS_WRITE brings REPORTS_READ; revoked, it answers 401', async () => {
    const { account, browser } = await signedIn({ entitlements: { structured_reporting: true } });
    const created = await browser.post('/console/settings/api-keys', { name: 'newsroom <alerts>', scopes: ['EVENTS_READ', 'REPORTS_WRITE'] });
    assert.equal(created.status, 201);
    const raw = rawKeyIn(created.text);
    assert.match(raw ?? '', /^evk_/);
    assert.match(created.text, /newsroom &lt;alerts>/, 'names are escaped');
    assert.doesNotMatch(created.text, /<alerts>/);

    const keys = await server.ops.get(`/accounts/${account.id}/api-keys`);
    assert.deepEqual(keys.data[0].scopes, ['EVENTS_READ', 'REPORTS_READ', 'REPORTS_WRITE']);
    const me = await server.http.get('/v1/account', bearer(raw!));
    assert.equal(me.status, 200);
    assert.equal(me.json.id, account.id);

    const list = await browser.get('/console/settings/api-keys');
    assert.equal(rawKeyIn(list.text), null, 'the raw key is shown only once');
    assert.ok(!list.text.includes(raw!));
    assert.equal(rows(list.text, 'api-key-row'), 1);
    assert.match(list.text, new RegExp(keys.data[0].prefix));
    assert.doesNotMatch(list.text, /data-label="Last used"><div class="value">never</, 'the key was used, so it has a last-used time');

    const revoked = await browser.post(`/console/settings/api-keys/${keys.data[0].id}/revoke`);
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.location, '/console/settings/api-keys?notice=revoked');
    assert.equal((await server.http.get('/v1/account', bearer(raw!))).status, 401);
    const after = await browser.get(revoked.headers.location!);
    assert.equal(rows(after.text, 'api-key-row'), 0);
    assert.match(after.text, /The key was revoked/);

    assert.ok(!server.logs.join('').includes(raw!), 'the raw key is never logged');
    assert.ok(!server.logs.join('').includes(CONSOLE_PASSWORD), 'the password is never logged');
  });

  it("when the account has no reporting entitlement, then REPORTS_WRITE is disabled and refused with the API's rule", async () => {
    const { account, browser } = await signedIn();
    const page = await browser.get('/console/settings/api-keys');
    assert.match(page.text, /<input id="scope-REPORTS_WRITE" type="checkbox" name="scopes" value="REPORTS_WRITE" disabled/);
    const refused = await browser.post('/console/settings/api-keys', { name: 'sneaky', scopes: ['REPORTS_WRITE'] });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /REPORTS_WRITE needs an account with a reporting entitlement/);
    assert.equal((await server.ops.get(`/accounts/${account.id}/api-keys`)).data.length, 0);
  });

  it('when the form is wrong, then a readable message and the form keeps what was typed', async () => {
    const { browser } = await signedIn();
    const noScopes = await browser.post('/console/settings/api-keys', { name: 'no scopes' });
    assert.equal(noScopes.status, 400);
    assert.match(noScopes.text, /Scopes: tick at least one scope/);
    assert.match(noScopes.text, /value="no scopes"/);
    const noName = await browser.post('/console/settings/api-keys', { name: '  ', scopes: 'EVENTS_READ' });
    assert.match(noName.text, /Name: enter a name for the key/);
    assert.match(noName.text, /value="EVENTS_READ" checked/);
    const unknown = await browser.post('/console/settings/api-keys', { name: 'x', scopes: 'EVERYTHING' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /Scopes: must be one of SENSORS_READ/);
    const long = await browser.post('/console/settings/api-keys', { name: 'x'.repeat(201), scopes: 'EVENTS_READ' });
    assert.equal(long.status, 400);
    assert.match(long.text, /Name: must be at most 200 characters long/);
    const huge = await browser.post('/console/settings/api-keys', { name: 'x'.repeat(70_000), scopes: 'EVENTS_READ' });
    assert.equal(huge.status, 413);
    assert.match(huge.text, /The form is larger than the 64 KiB the console accepts./, 'the limit is stated');
  });

  it('when the account holds 10 keys, then the form is replaced by the limit and an 11th is refused', async () => {
    const { account, browser } = await signedIn();
    for (let i = 0; i < 9; i++) await server.ops.createKey(account.id, ['EVENTS_READ'], `key ${i}`);
    const tenth = await browser.post('/console/settings/api-keys', { name: 'tenth', scopes: 'EVENTS_READ' });
    assert.equal(tenth.status, 201);
    assert.equal(rows(tenth.text, 'api-key-row'), 10);
    assert.match(tenth.text, /data-testid="key-limit-reached"/);
    assert.doesNotMatch(tenth.text, /name="scopes"/);
    const eleventh = await browser.post('/console/settings/api-keys', { name: 'eleventh', scopes: 'EVENTS_READ' });
    assert.equal(eleventh.status, 403); // quota-exceeded, as on the operator API
    assert.match(eleventh.text, /An account holds at most 10 active API keys; revoke one first./);
  });

  it("when another account's key, sensor, delivery or beat is named, then not found, and nothing of it changes", async () => {
    const other = await server.ops.createAccount({ entitlements: { beats: true } });
    const otherKey = await server.ops.createKey(other.id, ['EVENTS_READ', 'SENSORS_READ', 'SENSORS_WRITE', 'BEATS_WRITE']);
    const [otherKeyRow] = (await server.ops.get(`/accounts/${other.id}/api-keys`)).data;
    const sensor = await server.http.post(
      '/v1/sensors',
      { name: 'theirs', filter: { involved_entity_ids: [await testCorpus(server).entity()] }, actions: [{ type: 'webhook', url: 'https://example.com/hook' }] },
      { ...bearer(otherKey), 'idempotency-key': `k-${Date.now()}` },
    );
    assert.equal(sensor.status, 201, sensor.text);

    const { browser } = await signedIn({ entitlements: { beats: true } });
    const revoke = await browser.post(`/console/settings/api-keys/${otherKeyRow.id}/revoke`);
    assert.equal(revoke.status, 404);
    assert.equal((await server.http.get('/v1/account', bearer(otherKey))).status, 200, 'their key still works');
    assert.equal((await browser.get(`/console/sensors/${sensor.json.id}`)).status, 404);
    const redeliver = await browser.post(`/console/sensors/${sensor.json.id}/deliveries/${sensor.json.id}/redeliver`);
    assert.equal(redeliver.status, 404);
    assert.equal((await browser.post(`/console/sensors/${sensor.json.id}/updates/on`)).status, 404);
    assert.equal((await server.http.get(`/v1/sensors/${sensor.json.id}`, bearer(otherKey))).json.deliver_updates, false, 'their sensor unchanged');
    assert.equal((await browser.get(`/console/beats/${sensor.json.id}`)).status, 404);
    assert.equal((await browser.get('/console/sensors/not-a-uuid')).status, 404);
    const list = await browser.get('/console/sensors');
    assert.equal(rows(list.text, 'sensor-row'), 0);
  });

  it("when the credits page is read, then the balance, this month's usage and the ledger, paged", async () => {
    const { account, browser } = await signedIn();
    for (let i = 1; i <= 30; i++) await server.ops.post(`/accounts/${account.id}/credits`, { amount: i, reason: `grant ${i}` });
    const first = await browser.get('/console/credits');
    assert.equal(first.status, 200);
    const balance = 100 + (30 * 31) / 2;
    assert.match(first.text, new RegExp(`data-testid="credit-balance">${balance}<`));
    assert.equal(rows(first.text, 'ledger-row'), 25);
    assert.match(first.text, /grant 30/);
    const older = /href="(\/console\/credits\?starting_after=[^"]+)"/.exec(first.text)?.[1];
    assert.ok(older);
    const second = await browser.get(older!);
    assert.equal(rows(second.text, 'ledger-row'), 6); // grants 1 to 5 and the initial balance
    assert.match(second.text, /initial balance/);
    assert.equal((await browser.get('/console/credits?starting_after=nonsense')).status, 400);
  });

  it('when the create form is read, then each scope says what the v1 scope table allows: EVENTS_READ searches only, REPORTS_READ reads event types and entities', async () => {
    const { browser } = await signedIn();
    const page = await browser.get('/console/settings/api-keys');
    const hint = (scope: string) => new RegExp(`<small id="scope-${scope}-hint">([^<]+)</small>`).exec(page.text)?.[1];
    assert.equal(hint('EVENTS_READ'), 'search events (billed)');
    assert.equal(hint('REPORTS_READ'), 'event types, entity search, reporting grants, and reading your reports');
    assert.equal(hint('BEATS_WRITE'), 'create and change beats (BEATS_READ suggested)');
  });

  it('when sensors and beats are listed, then their statuses read in one style: words in sentence case', async () => {
    const { account, browser } = await signedIn({ entitlements: { beats: true } });
    const key = await server.ops.createKey(account.id, ['SENSORS_WRITE', 'BEATS_WRITE']);
    const entity = await testCorpus(server).entity();
    const created = await server.http.post(
      '/v1/sensors',
      { name: 'watch', filter: { involved_entity_ids: [entity] }, actions: [{ type: 'webhook', url: 'https://example.com/hook' }] },
      { ...bearer(key), 'idempotency-key': `k-${Date.now()}` },
    );
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.http.post(`/v1/sensors/${created.json.id}/disable`, {}, bearer(key))).status, 200);
    const beat = await server.http.post('/v1/beats', { name: 'watch', clauses: [{ involved_entity_ids: [entity] }] }, bearer(key));
    assert.equal(beat.status, 201, beat.text);
    const badges = (html: string) => [...html.matchAll(/class="badge[^"]*">([^<]+)</g)].map((m) => m[1]);
    assert.deepEqual(badges((await browser.get('/console/sensors')).text), ['Disabled']);
    assert.deepEqual(badges((await browser.get('/console/beats')).text), ['Active']);
    assert.deepEqual(badges((await browser.get(`/console/beats/${beat.json.id}`)).text), ['Active']);
  });

  it('when /favicon.ico is asked for, then an icon with its type; pages link an SVG icon too', async () => {
    const icon = await server.http.get('/favicon.ico');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers['content-type'], 'image/x-icon');
    assert.ok(icon.text.startsWith('\0\0\x01\0'), 'an ICO header');
    assert.ok(icon.text.includes('IHDR'), 'holding a PNG image');
    const page = await server.http.get('/console/sign-in');
    assert.match(page.text, /<link rel="icon" href="\/console\/assets\/favicon.svg" type="image\/svg\+xml"\/>/);
    const svg = await server.http.get('/console/assets/favicon.svg');
    assert.equal(svg.status, 200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    assert.match(svg.text, /^<svg /);
  });

  it('when the account has no beats entitlement, then the beats page says so', async () => {
    const { browser } = await signedIn();
    const page = await browser.get('/console/beats');
    assert.equal(page.status, 403);
    assert.match(page.text, /This account has no beats entitlement/);
  });
});
