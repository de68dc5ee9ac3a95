import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONSOLE_PASSWORD, consoleClient } from '../helpers/console.js';
import { evmon, evmonBin, evmonWithInput } from '../helpers/evmon.js';
import { bearer, PG_URL, spawnServer, tempDir, timeLimit } from '../helpers/server.js';

describe('evmon command line', () => {
  const env = PG_URL ? { EVMON_DATABASE_URL: PG_URL, EVMON_DATA_DIR: tempDir() } : { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: tempDir() };

  it('when an account, a key and a console user are made with evmon, then the server accepts the key and the password; once revoked, it refuses the key', {
    timeout: timeLimit({ starts: 1, runs: 8 }),
  }, async (t) => {
    const account = await evmon(
      t,
      env,
      'accounts',
      'create',
      '--display-name',
      'Wire Desk',
      '--kind',
      'ORGANIZATION',
      '--credits',
      '25',
      '--entitlements',
      'beats',
    );
    assert.equal(account.status, 0, account.stderr);
    assert.equal(account.json.display_name, 'Wire Desk');
    assert.equal(account.json.credit_balance, 25);
    assert.deepEqual(account.json.entitlements, { structured_reporting: false, entity_reporting: false, beats: true });

    const key = await evmon(t, env, 'keys', 'create', account.json.id, '--name', 'cli', '--scopes', 'SENSORS_READ,BEATS_READ');
    assert.equal(key.status, 0, key.stderr);
    assert.match(key.json.key, /^evk_/);

    const credited = await evmon(t, env, 'credits', 'add', account.json.id, '-5', '--reason', 'correction');
    assert.equal(credited.json.credit_balance, 20);

    // The console user's password comes on standard input, never as a flag.
    const email = `desk.${Date.now()}@example.com`;
    const flagged = await evmon(t, env, 'console-users', 'create', account.json.id, '--email', email, '--password', CONSOLE_PASSWORD);
    assert.equal(flagged.status, 2);
    assert.match(flagged.stderr, /--password is not taken: .*standard input/);
    assert.doesNotMatch(flagged.stderr, new RegExp(CONSOLE_PASSWORD), 'the refusal does not repeat the password');
    const empty = await evmonWithInput(t, env, '', 'console-users', 'create', account.json.id, '--email', email);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /expected the password on standard input/);
    const user = await evmonWithInput(t, env, `${CONSOLE_PASSWORD}\r\nignored second line\n`, 'console-users', 'create', account.json.id, '--email', email);
    assert.equal(user.status, 0, user.stderr);
    assert.equal(user.json.email, email);
    assert.equal(user.json.password, undefined);

    const server = await spawnServer(t, env);
    try {
      assert.equal((await server.http.get('/v1/sensors', bearer(key.json.key))).status, 200);
      // The first line, without its line ending, is the password.
      const browser = consoleClient(server.http);
      assert.equal((await browser.signIn(email, 'ignored second line')).status, 400);
      assert.equal((await browser.signIn(email, CONSOLE_PASSWORD)).status, 303);
      if (PG_URL) {
        // With PostgreSQL the CLI and the server run side by side.
        assert.equal((await evmon(t, env, 'keys', 'revoke', key.json.id)).status, 0);
        await new Promise((r) => setTimeout(r, 5_200)); // other processes honour revocation within 5 s
        assert.equal((await server.http.get('/v1/sensors', bearer(key.json.key))).status, 401);
      } else {
        // The embedded database belongs to one process: the CLI is refused while the server runs.
        const refused = await evmon(t, env, 'keys', 'list', account.json.id);
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /in use by another evmon process/);
        // It says what to do instead while the server runs.
        assert.ok(refused.stderr.includes(`operator API instead: GET /ops/v1/accounts/${account.json.id}/api-keys`), refused.stderr);
        assert.doesNotMatch(refused.stderr, /operations\.md/, 'a clone has no operations.md');
        // An import names the bulk call that takes its file.
        const file = path.join(tempDir(), 'one.ndjson');
        fs.writeFileSync(file, '{}\n');
        const importing = await evmon(t, env, 'import', file);
        assert.equal(importing.status, 1);
        assert.match(importing.stderr, /operator API instead: POST \/ops\/v1\/articles\/bulk \(Content-Type: application\/x-ndjson/);
      }
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const listed = await evmon(t, env, 'keys', 'list', account.json.id);
    assert.equal(listed.json.data.length, 1);
    assert.equal(listed.json.data[0].key, undefined);
  });

  it('when the input is wrong, then evmon says what is wrong and exits non-zero', { timeout: timeLimit({ runs: 6 }) }, async (t) => {
    const badScope = await evmon(t, env, 'keys', 'create', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'EVERYTHING');
    assert.equal(badScope.status, 2);
    assert.match(badScope.stderr, /\/scopes\/0 must be one of SENSORS_READ/);
    assert.doesNotMatch(badScope.stderr, /Usage:/, 'a refused value is told without the whole usage');
    const badId = await evmon(t, env, 'keys', 'revoke', 'nope');
    assert.equal(badId.stderr, 'evmon: expected a key id (a UUID), got nope\n(evmon --help lists every command and option.)\n');
    // As installed (bin/evmon.js through tsx), once: the rest run the build the test run made.
    const unknown = await evmonBin(t, env, 'dance');
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command: dance\n\nUsage: evmon/, 'an unknown command still shows the usage');
    const missing = await evmon(t, env, 'accounts', 'show', '00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /not-found/);
    assert.equal((await evmon(t, env, 'accounts', 'show', 'nope')).status, 2);
    const plan = await evmon(t, env, 'plans', 'set', 'half', '--beats_max', '5');
    assert.equal(plan.status, 2);
    assert.match(plan.stderr, /\/clauses_max is required/);
  });
});
