// Console users through the operator API and evmon (operations.md): created with an scrypt
// password hash, emails unique case-insensitively, deleted with their sessions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/console/passwords.js';
import { testCorpus, unique, type TestCorpus } from '../helpers/corpus.js';
import { evmon, evmonWithInput } from '../helpers/evmon.js';
import { PG_URL, startServer, tempDir, type TestServer, timeLimit } from '../helpers/server.js';

const MISSING = '01900000-0000-7000-8000-000000000000';

describe('console users', () => {
  let server: TestServer;
  let corpus: TestCorpus;

  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
  });
  after(() => server.close());

  it('when the operator creates a console user, then 201 without the password, stored as a scrypt hash; the email is unique whatever its case', async () => {
    const { id: accountId } = await corpus.account();
    const email = `Owner.${unique()}@Example.com`;
    const created = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email, password: 'correct horse battery' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['account_id', 'created_at', 'email', 'id', 'object']);
    assert.equal(created.json.object, 'console_user');
    assert.equal(created.json.account_id, accountId);
    assert.equal(created.json.email, email);
    const [row] = await server.runtime.db.query<{ password_hash: string }>('SELECT password_hash FROM console_users WHERE id = $1', [created.json.id]);
    assert.match(row!.password_hash, /^scrypt\$16384\$8\$1\$/);
    assert.ok(await verifyPassword('correct horse battery', row!.password_hash));
    assert.ok(!(await verifyPassword('correct horse batterY', row!.password_hash)));

    const taken = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email: email.toLowerCase(), password: 'another long password' });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(taken.json.type, `${server.docsUrl}/problems/state-conflict`);
  });

  it('when the input is wrong, then 400 for a short password or a non-email, 404 for an unknown account', async () => {
    const { id: accountId } = await corpus.account();
    const short = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email: `a${unique()}@example.com`, password: 'elevenchars' });
    assert.equal(short.status, 400);
    assert.equal(short.json.errors[0].pointer, '/password');
    const long = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email: `a${unique()}@example.com`, password: 'x'.repeat(201) });
    assert.equal(long.status, 400);
    const notEmail = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email: 'nobody', password: 'long enough password' });
    assert.equal(notEmail.status, 400);
    assert.equal(notEmail.json.errors[0].pointer, '/email');
    assert.equal(
      (await corpus.ops('POST', `/accounts/${MISSING}/console-users`, { email: `a${unique()}@example.com`, password: 'long enough password' })).status,
      404,
    );
  });

  it('when a console user is deleted, then 204 and their sessions end; a second delete is 404', async () => {
    const { id: accountId } = await corpus.account();
    const created = await corpus.ops('POST', `/accounts/${accountId}/console-users`, { email: `b${unique()}@example.com`, password: 'long enough password' });
    await server.runtime.db.query(`INSERT INTO console_sessions (id, user_id, token_hash, created_at, last_seen_at) VALUES ($1, $2, $3, now(), now())`, [
      MISSING.replace(/0$/, '9'),
      created.json.id,
      Buffer.from(unique()),
    ]);
    assert.equal((await corpus.ops('DELETE', `/console-users/${created.json.id}`)).status, 204);
    assert.equal((await server.runtime.db.query('SELECT 1 FROM console_sessions WHERE user_id = $1', [created.json.id])).length, 0);
    assert.equal((await corpus.ops('DELETE', `/console-users/${created.json.id}`)).status, 404);
  });

  it('when evmon creates and deletes a console user, then it prints the user and never the password', {
    timeout: timeLimit({ runs: 5 }),
  }, async (t) => {
    const dir = tempDir();
    const env = { EVMON_DATABASE_URL: PG_URL ?? '', EVMON_DATA_DIR: dir };
    const run = (...args: string[]) => evmon(t, env, ...args);
    const account = JSON.parse((await run('accounts', 'create')).stdout);
    // The password comes on standard input (test/cli/evmon.test.ts: never as a flag).
    const created = await evmonWithInput(t, env, 'a secret of some length\n', 'console-users', 'create', account.id, '--email', `c${unique()}@example.com`);
    assert.equal(created.status, 0, created.stderr);
    const user = JSON.parse(created.stdout);
    assert.equal(user.object, 'console_user');
    assert.ok(!created.stdout.includes('a secret of some length'));
    const refused = await evmonWithInput(t, env, 'short\n', 'console-users', 'create', account.id, '--email', `d${unique()}@example.com`);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /\/password/);
    assert.equal((await run('console-users', 'delete', user.id)).status, 0);
    assert.equal((await run('console-users', 'delete', user.id)).status, 1);
  });
});
