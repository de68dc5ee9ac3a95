// Forged console forms (decisions.md, "Web console"; docs/api-reference.md, "Web console"):
// a CSRF token works only in the session it was served to, the secret behind the tokens is
// renewed at sign-in, and a state-changing request must come from the console's own origin
// (Origin, or Referer without Origin). Real HTTPS requests, cookies and tokens as browsers hold
// them, crossed by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccount, consoleClient, type ConsoleClient } from '../helpers/console.js';
import type { HttpResponse } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const SESSION = '__Host-evmon-session';
const CSRF = '__Host-evmon-csrf';

describe('console forms and cross-site requests', () => {
  let server: TestServer;
  let origin: string;

  before(async () => {
    server = await startServer();
    origin = new URL(server.http.baseUrl).origin;
  });
  after(() => server.close());

  /** A signed-in browser on the API keys page, with its account. */
  async function signedIn(): Promise<{ browser: ConsoleClient; accountId: string }> {
    const { account, email } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    assert.equal((await browser.signIn(email)).status, 303);
    assert.equal((await browser.get('/console/settings/api-keys')).status, 200);
    return { browser, accountId: account.id };
  }

  /** Posts the create-key form with exactly these cookies, token and headers. */
  function createKey(cookies: Record<string, string>, token: string, headers: Record<string, string> = { origin }): Promise<HttpResponse> {
    const cookie = Object.entries(cookies)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const form = new URLSearchParams({ _csrf: token, name: 'made by a form', scopes: 'EVENTS_READ' });
    return server.http.request('POST', '/console/settings/api-keys', {
      rawBody: form.toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
  }

  const cookiesOf = (browser: ConsoleClient) => ({ [SESSION]: browser.cookies.get(SESSION)!, [CSRF]: browser.cookies.get(CSRF)! });
  const keyCount = async (accountId: string) => (await server.ops.get(`/accounts/${accountId}/api-keys`)).data.length;

  function assertExpiredForm(response: HttpResponse, context: string) {
    assert.equal(response.status, 403, `${context}: ${response.text.slice(0, 300)}`);
    assert.match(response.headers['content-type'] ?? '', /^text\/html/, context);
    assert.match(response.text, /This form has expired or did not come from this console/, context);
  }

  function assertRefusedOrigin(response: HttpResponse, said: RegExp, context: string) {
    assert.equal(response.status, 403, `${context}: ${response.text.slice(0, 300)}`);
    assert.match(response.headers['content-type'] ?? '', /^text\/html/, context);
    assert.match(response.text, /This form did not come from this console/, context);
    assert.match(response.text, said, context);
    assert.ok(response.text.includes(`${origin}/console`), `${context}: the page names the console's address`);
  }

  it("when one browser's session cookie is sent with another browser's CSRF cookie and token, then 403 and no key is made", async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    const own = cookiesOf(victim.browser);
    const theirs = cookiesOf(attacker.browser);

    assertExpiredForm(await createKey({ [SESSION]: own[SESSION], [CSRF]: theirs[CSRF] }, attacker.browser.csrf!), 'their CSRF cookie and token');
    assertExpiredForm(await createKey(own, attacker.browser.csrf!), 'their token with our CSRF cookie');
    assertExpiredForm(await createKey({ [SESSION]: own[SESSION], [CSRF]: theirs[CSRF] }, victim.browser.csrf!), 'our token with their CSRF cookie');
    assert.equal(await keyCount(victim.accountId), 0);
    assert.equal(await keyCount(attacker.accountId), 0);

    // Each browser's own cookies and token work.
    assert.equal((await createKey(own, victim.browser.csrf!)).status, 201);
    assert.equal((await createKey(theirs, attacker.browser.csrf!)).status, 201);
    assert.equal(await keyCount(victim.accountId), 1);
  });

  it('when a token served before sign-in is sent after sign-in, then 403: the secret is renewed at sign-in and tokens are bound to the session', async () => {
    const { account, email } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    await browser.get('/console/sign-in');
    const before = { token: browser.csrf!, secret: browser.cookies.get(CSRF)! };
    const signIn = await browser.post('/console/sign-in', { email, password: 'correct horse battery staple' });
    assert.equal(signIn.status, 303);
    const renewed = browser.cookies.get(CSRF)!;
    assert.notEqual(renewed, before.secret, 'sign-in sets a new CSRF secret');
    assert.match(signIn.headers['set-cookie'] ?? '', /__Host-evmon-csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax/);

    const session = browser.cookies.get(SESSION)!;
    assertExpiredForm(await createKey({ [SESSION]: session, [CSRF]: renewed }, before.token), 'old token, new secret');
    assertExpiredForm(await createKey({ [SESSION]: session, [CSRF]: before.secret }, before.token), 'old token with the old secret kept');
    assert.equal(await keyCount(account.id), 0);

    // A page served after sign-in gives a token that works.
    await browser.get('/console/settings/api-keys');
    assert.equal((await createKey({ [SESSION]: session, [CSRF]: renewed }, browser.csrf!)).status, 201);
    assert.equal(await keyCount(account.id), 1);
  });

  it('when a token served in one session is sent after signing in again, then 403', async () => {
    const { account, email } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    await browser.signIn(email);
    await browser.get('/console/settings/api-keys');
    const first = { token: browser.csrf!, secret: browser.cookies.get(CSRF)! };
    assert.equal((await browser.post('/console/sign-out')).status, 303);
    await browser.signIn(email);
    assertExpiredForm(await createKey({ [SESSION]: browser.cookies.get(SESSION)!, [CSRF]: first.secret }, first.token), 'a token of the session before');
    assert.equal(await keyCount(account.id), 0);
  });

  it('when a form comes from another Origin, then 403 and nothing changes, sign-in included', async () => {
    const { browser, accountId } = await signedIn();
    const cookies = cookiesOf(browser);
    const url = new URL(origin);
    const others = [
      'https://attacker.example',
      'null',
      `http://${url.host}`,
      `https://${url.hostname}:${Number(url.port) + 1}`,
      `https://localhost:${url.port}`,
      `https://${url.hostname}.attacker.example:${url.port}`,
    ];
    for (const other of others) {
      const sentFrom = other === 'null' ? 'null' : new URL(other).origin;
      assertRefusedOrigin(await createKey(cookies, browser.csrf!, { origin: other }), new RegExp(`sent from ${sentFrom.replace(/[.]/g, '\\.')}`), other);
      // Even with a Referer of the console's own origin: Origin decides when it is sent.
      assertRefusedOrigin(
        await createKey(cookies, browser.csrf!, { origin: other, referer: `${origin}/console/settings/api-keys` }),
        /sent from/,
        `${other} with our Referer`,
      );
    }
    assert.equal(await keyCount(accountId), 0);

    // Sign-in from another origin makes no session (login CSRF).
    const { email } = await consoleAccount(server.ops);
    const stranger = consoleClient(server.http);
    await stranger.get('/console/sign-in');
    const form = new URLSearchParams({ _csrf: stranger.csrf!, email, password: 'correct horse battery staple' });
    const signIn = await server.http.request('POST', '/console/sign-in', {
      rawBody: form.toString(),
      headers: { cookie: `${CSRF}=${stranger.cookies.get(CSRF)}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://attacker.example' },
    });
    assertRefusedOrigin(signIn, /sent from https:\/\/attacker\.example/, 'sign-in');
    assert.doesNotMatch(signIn.headers['set-cookie'] ?? '', /evmon-session/);
  });

  it('when a form has no Origin, then its Referer decides: another origin is 403, the console page passes; with neither, 403', async () => {
    const { browser, accountId } = await signedIn();
    const cookies = cookiesOf(browser);
    assertRefusedOrigin(
      await createKey(cookies, browser.csrf!, { referer: 'https://attacker.example/console/settings/api-keys' }),
      /sent from https:\/\/attacker\.example/,
      'foreign Referer',
    );
    assertRefusedOrigin(await createKey(cookies, browser.csrf!, { referer: 'not a url' }), /sent from not a url/, 'unreadable Referer');
    assertRefusedOrigin(await createKey(cookies, browser.csrf!, {}), /did not say which page sent it/, 'neither header');
    assert.equal(await keyCount(accountId), 0);

    assert.equal((await createKey(cookies, browser.csrf!, { referer: `${origin}/console/settings/api-keys?x=1` })).status, 201, 'our own page as Referer');
    assert.equal((await createKey(cookies, browser.csrf!, { origin })).status, 201, 'our own Origin');
    assert.equal(await keyCount(accountId), 2);
  });

  it('when the console is opened under another name of the server, then its forms pass: the Origin is the address the request was sent to', async () => {
    const { browser, accountId } = await signedIn();
    const cookies = cookiesOf(browser);
    const otherName = `localhost:${new URL(origin).port}`;
    // The public base URL says 127.0.0.1; a browser that opened https://localhost:<port> sends
    // that as both Host and Origin.
    assert.equal((await createKey(cookies, browser.csrf!, { host: otherName, origin: `https://${otherName}` })).status, 201);
    // The same Origin with our Host is still another site's form.
    assertRefusedOrigin(await createKey(cookies, browser.csrf!, { origin: `https://${otherName}` }), /sent from https:\/\/localhost/, 'another name, our Host');
    assert.equal(await keyCount(accountId), 1);
  });

  it('when a page is read from another origin, then it is served: only state-changing requests are checked', async () => {
    const { browser } = await signedIn();
    const page = await server.http.request('GET', '/console/settings/api-keys', {
      headers: { cookie: `${SESSION}=${browser.cookies.get(SESSION)}`, origin: 'https://attacker.example' },
    });
    assert.equal(page.status, 200);
  });
});
