// The console over HTTPS as a browser sees it (decisions.md, "Web console"): sessions in
// __Host- cookies, CSRF tokens on every form, sign-in throttling, idle and absolute expiry on
// the test clock, security headers, and pages that show only the user's own account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_PASSWORD, consoleAccount, consoleClient } from '../helpers/console.js';
import { unique } from '../helpers/corpus.js';
import { bearer, startServer, type TestServer } from '../helpers/server.js';

const HOUR = 3600;

describe('console sessions', () => {
  let server: TestServer;
  const advance = (seconds: number) => server.ops.post('/clock', { advance_seconds: seconds });

  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('when a page is asked for without a session, then a redirect to sign-in; / leads to the console', async () => {
    const root = await server.http.get('/');
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, '/console');
    for (const path of ['/console', '/console/settings/api-keys', '/console/credits', '/console/sensors', '/console/beats']) {
      const response = await server.http.get(path);
      assert.equal(response.status, 303, path);
      assert.equal(response.headers.location, '/console/sign-in', path);
    }
    // An API key is not a session.
    const { account } = await consoleAccount(server.ops);
    const key = await server.ops.createKey(account.id, ['EVENTS_READ']);
    assert.equal((await server.http.get('/console/credits', bearer(key))).status, 303);
  });

  it('when the user signs in, then a __Host- session cookie (HttpOnly, Secure, SameSite=Lax), and pages with CSP, X-Frame-Options DENY and no-store', async () => {
    const { email } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    const signIn = await browser.signIn(email.toUpperCase());
    assert.equal(signIn.status, 303);
    assert.equal(signIn.headers.location, '/console/settings/api-keys');
    const cookie = /__Host-evmon-session=[^,]*/.exec(signIn.headers['set-cookie']!)?.[0] ?? '';
    assert.match(cookie, /; Path=\//);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.doesNotMatch(cookie, /Domain=/);

    const page = await browser.get('/console/settings/api-keys');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type']!, /^text\/html/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
    const csp = page.headers['content-security-policy']!;
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(page.text, /<script>|<script [^>]*>[^<]|\son[a-z]+=/i, 'no inline script or handler');
    assert.match(page.text, new RegExp(email, 'i'));
  });

  it('when a wrong email or a wrong password is tried, then both read the same', async () => {
    const { email } = await consoleAccount(server.ops);
    const wrongPassword = await consoleClient(server.http).signIn(email, 'not the password at all');
    const wrongEmail = await consoleClient(server.http).signIn(`nobody.${unique()}@example.com`);
    assert.equal(wrongPassword.status, 400);
    assert.equal(wrongEmail.status, 400);
    const message = (response: { text: string }) => /role="alert"><p>([^<]*)</.exec(response.text)?.[1];
    assert.equal(message(wrongPassword), 'The email or the password is not right.');
    assert.equal(message(wrongEmail), message(wrongPassword));
    assert.doesNotMatch(wrongPassword.headers['set-cookie'] ?? '', /evmon-session/);
  });

  it('when a form comes without its CSRF token or with a forged one, then 403 and nothing changes', async () => {
    const { account, email } = await consoleAccount(server.ops);
    // Sign-in itself needs the token.
    const noToken = consoleClient(server.http);
    await noToken.get('/console/sign-in');
    const refused = await noToken.post('/console/sign-in', { _csrf: '', email, password: CONSOLE_PASSWORD });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /This form has expired or did not come from this console/);
    assert.equal(noToken.cookies.has('__Host-evmon-session'), false);

    const browser = consoleClient(server.http);
    await browser.signIn(email);
    await browser.get('/console/settings/api-keys');
    const forged = await browser.post('/console/settings/api-keys', { _csrf: 'forged-token', name: 'forged', scopes: 'EVENTS_READ' });
    assert.equal(forged.status, 403);
    // A token from another browser's cookie does not fit this one's.
    const other = consoleClient(server.http);
    await other.get('/console/sign-in');
    const crossed = await browser.post('/console/settings/api-keys', { _csrf: other.csrf!, name: 'crossed', scopes: 'EVENTS_READ' });
    assert.equal(crossed.status, 403);
    const keys = await server.ops.get(`/accounts/${account.id}/api-keys`);
    assert.equal(keys.data.length, 0);

    const signOut = await browser.post('/console/sign-out', { _csrf: 'forged-token' });
    assert.equal(signOut.status, 403);
    assert.equal((await browser.get('/console/credits')).status, 200, 'still signed in');
  });

  it('when ten sign-ins for one email fail, then that email is refused for 15 minutes, the right password too, and for an unknown email alike', async () => {
    const { email } = await consoleAccount(server.ops);
    const unknown = `nobody.${unique()}@example.com`;
    for (const target of [email, unknown]) {
      const browser = consoleClient(server.http);
      for (let attempt = 1; attempt <= 9; attempt++) assert.equal((await browser.signIn(target, `wrong password ${attempt}`)).status, 400);
      const tenth = await browser.signIn(target, 'wrong password 10');
      assert.equal(tenth.status, 429);
      assert.equal(tenth.headers['retry-after'], '900');
      assert.match(tenth.text, /Too many failed sign-ins for this email. Signing in with it is refused for 15 minutes./);
    }
    const locked = await consoleClient(server.http).signIn(email);
    assert.equal(locked.status, 429, 'the right password is refused while locked');
    // Another email is not affected.
    const { email: other } = await consoleAccount(server.ops);
    assert.equal((await consoleClient(server.http).signIn(other)).status, 303);

    await advance(15 * 60 - 1);
    assert.equal((await consoleClient(server.http).signIn(email)).status, 429);
    await advance(1);
    assert.equal((await consoleClient(server.http).signIn(email)).status, 303);
  });

  it('when a sign-in succeeds, then earlier failures are forgotten', async () => {
    const { email } = await consoleAccount(server.ops);
    for (let attempt = 1; attempt <= 5; attempt++) await consoleClient(server.http).signIn(email, `wrong ${attempt}`);
    assert.equal((await consoleClient(server.http).signIn(email)).status, 303);
    for (let attempt = 1; attempt <= 9; attempt++) assert.equal((await consoleClient(server.http).signIn(email, `wrong again ${attempt}`)).status, 400);
  });

  it('when a session is idle for 12 hours, then it has ended; activity keeps it alive until 7 days in all', async () => {
    const { email } = await consoleAccount(server.ops);
    const idle = consoleClient(server.http);
    await idle.signIn(email);
    await advance(12 * HOUR - 60);
    assert.equal((await idle.get('/console/credits')).status, 200);
    await advance(12 * HOUR - 60);
    assert.equal((await idle.get('/console/credits')).status, 200, 'the last visit restarted the idle time');
    await advance(12 * HOUR);
    const expired = await idle.get('/console/credits');
    assert.equal(expired.status, 303);
    assert.equal(expired.headers.location, '/console/sign-in');

    const active = consoleClient(server.http);
    await active.signIn(email);
    for (let hours = 11; hours < 7 * 24; hours += 11) {
      await advance(11 * HOUR);
      assert.equal((await active.get('/console/credits')).status, 200, `after ${hours} h`);
    }
    await advance(7 * 24 * HOUR - 165 * HOUR); // exactly 7 days after signing in
    assert.equal((await active.get('/console/credits')).status, 303);
  });

  it('when the user signs out, then the session ends and its cookie opens nothing', async () => {
    const { email } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    await browser.signIn(email);
    await browser.get('/console/credits');
    const stolen = browser.cookies.get('__Host-evmon-session')!;
    const signOut = await browser.post('/console/sign-out');
    assert.equal(signOut.status, 303);
    assert.equal(signOut.headers.location, '/console/sign-in');
    assert.equal(browser.cookies.has('__Host-evmon-session'), false);
    const replayed = await server.http.get('/console/credits', { cookie: `__Host-evmon-session=${stolen}` });
    assert.equal(replayed.status, 303);
  });

  it('when the operator deletes a console user, then their session ends at once', async () => {
    const { email, userId } = await consoleAccount(server.ops);
    const browser = consoleClient(server.http);
    await browser.signIn(email);
    assert.equal((await browser.get('/console/credits')).status, 200);
    const deleted = await server.http.request('DELETE', `/ops/v1/console-users/${userId}`, { headers: bearer('test-ops-token-0123456789') });
    assert.equal(deleted.status, 204);
    assert.equal((await browser.get('/console/credits')).status, 303);
  });

  it('when console routes are declared, then each says it needs a session or is public', async () => {
    // A console route declared without an access kind would be open: the app refuses to start.
    const { installGuard } = await import('../../src/platform/http/guard.js');
    const Fastify = (await import('fastify')).default;
    const app = Fastify();
    installGuard(app, {
      limiter: server.runtime.limiter,
      authenticator: server.runtime.keys,
      parseKey: () => null,
      opsToken: null,
      sessions: { cookieName: 'x', resume: async () => null },
    });
    assert.throws(() => app.get('/console/forgotten', async () => 'open'), /declares neither access 'session' nor 'public'/);
    app.get('/console/declared', { config: { access: 'session' } }, async () => 'guarded');
    await app.close();
  });
});
