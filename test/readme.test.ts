// The README's walkthroughs, run as a newcomer runs them: the blocks marked
// `<!-- readme-test: <group> -->`, in order, in one bash session per walkthrough, against a
// server started on an empty data folder with the demo corpus, as `npm start` does, with the
// settings the README gives. Every curl must answer 2xx (curl --fail-with-body) and every
// command succeed (set -e, pipefail), so the README cannot drift from the service. Blocks
// marked `save <path>` are programs the README tells the reader to save; they are written
// there first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { freePort } from './helpers/ports.js';
import { runOwned } from './helpers/processes.js';
import { ROOT, type SpawnedServer, spawnServer, timeLimit } from './helpers/server.js';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const MARKS = /<!-- readme-test: (\S+)(?: (\S+))? -->\s*```(\w+)\n([\s\S]*?)\n```/g;

/** The blocks of a group (`first-requests`, `webhooks`…), in README order. */
function blocksOf(group: string): string[] {
  return [...README.matchAll(MARKS)].filter((mark) => mark[1] === group).map((mark) => mark[4]!);
}

/** The programs to save: path → text. */
function savedPrograms(): Map<string, string> {
  return new Map([...README.matchAll(MARKS)].filter((mark) => mark[1] === 'save').map((mark) => [mark[2]!, mark[4]!]));
}

/**
 * A folder in the clone (.tmp/ is ignored by git), so that saved programs import the
 * project's packages as the README's do; it holds the README's .tmp/ and data/.
 */
function workFolder(t: TestContext): string {
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const cwd = fs.mkdtempSync(path.join(ROOT, '.tmp', 'readme-test-'));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  fs.mkdirSync(path.join(cwd, '.tmp'));
  return cwd;
}

/** Runs blocks in one bash session in `cwd`, as the reader would type them; fails on the first error. */
async function runBlocks(t: TestContext, cwd: string, blocks: readonly string[], rewrite: (script: string) => string) {
  const script = [
    'set -euo pipefail',
    // Any answer other than 2xx fails the command, and with it the script.
    'curl() { command curl --fail-with-body --show-error "$@"; }',
    // A program the blocks start in the background ends with them.
    "trap 'kill $(jobs -p) 2> /dev/null || true' EXIT",
    ...blocks.map((block, i) => `echo "== block ${i + 1}"\n${block}\necho`),
  ].join('\n');
  const run = await runOwned(t, 'bash', ['-c', rewrite(script)], { cwd, env: { ...process.env } });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal((run.stdout.match(/^== block \d+$/gm) ?? []).length, blocks.length, run.stdout);
  return run.stdout;
}

/** The demo server as the README starts it (a smaller demo: 2,000 events, about 165 in the last 30 days), and its demo key and port. */
async function demoServer(t: TestContext, env: Record<string, string>, onOutput?: (output: string) => void) {
  const server: SpawnedServer = await spawnServer(t, { EVMON_DATABASE_URL: '', EVMON_SEED: 'demo', EVMON_TEST_DEMO_EVENTS: '2000', ...env }, { onOutput });
  t.after(() => server.stop());
  const key = /Demo API key[^:]*: (evk_[A-Za-z0-9_-]{43})/.exec(server.output())?.[1];
  assert.ok(key, server.output());
  const port = /"port":(\d+)[^\n]*"msg":"ready"/.exec(server.output())![1]!;
  return { server, key, port };
}

describe('the README', () => {
  it('when its first requests are run in order against a new server, then every one answers 2xx', {
    timeout: timeLimit({ starts: 1, otherMs: 240_000 }),
  }, async (t) => {
    const blocks = blocksOf('first-requests');
    assert.ok(blocks.length >= 8 && savedPrograms().has('.tmp/mcp-client.mjs'), `${blocks.length} blocks`);
    const cwd = workFolder(t);
    // As the README's operator path starts it: a token of one's own in .tmp/ops-token.
    const token = 'readme-test-operator-token-0123456789';
    fs.writeFileSync(path.join(cwd, '.tmp', 'ops-token'), `${token}\n`);
    const { server, key, port } = await demoServer(t, { EVMON_OPS_TOKEN: token });
    // What the README promises: the last 30 days searchable first.
    await server.waitForOutput(/"msg":"demo corpus: the last 30 days are loaded and searchable/, 180_000);

    const local = (text: string) => text.replaceAll('https://localhost:8443', `https://127.0.0.1:${port}`).replaceAll('KEY=evk_…', `KEY=${key}`);
    fs.writeFileSync(path.join(cwd, '.tmp', 'mcp-client.mjs'), local(savedPrograms().get('.tmp/mcp-client.mjs')!));
    // The certificate where the README names it (./data/tls/cert.pem, the server's data folder).
    fs.mkdirSync(path.join(cwd, 'data', 'tls'), { recursive: true });
    fs.writeFileSync(path.join(cwd, 'data', 'tls', 'cert.pem'), server.ca);
    const stdout = await runBlocks(t, cwd, blocks, local);
    // A few of the answers, read: the search found acquisitions, the article was stored.
    assert.match(stdout, /outlets, \d+ independent: /);
    assert.match(stdout, /"object":"incident_report"/);
    assert.match(stdout, /"object":"beat_entries"/);
    assert.match(stdout, /"object":"event_revision"/);
    // MCP over curl and through the SDK.
    assert.match(stdout, /^search_events search_events_continue get_event/m);
    assert.match(stdout, /^\{"result":\{"content":\[\{"type":"text","text":"\{\\"object\\":\\"list\\"/m);
    assert.match(stdout, /^search_events, [^\n]*\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S/m);
  });

  it('when the webhook walkthrough is followed, then the receiver prints the signed test delivery, then a new article as event.matched', {
    timeout: timeLimit({ starts: 1, otherMs: 300_000 }),
  }, async (t) => {
    const blocks = blocksOf('webhooks');
    assert.ok(blocks.length >= 3 && savedPrograms().has('.tmp/receiver.mjs'), `${blocks.length} blocks`);
    const cwd = workFolder(t);
    const receiverPort = await freePort();
    const local = (text: string) => text.replaceAll('9443', String(receiverPort));
    await runBlocks(t, cwd, blocksOf('webhooks-before-start'), local);
    fs.writeFileSync(path.join(cwd, '.tmp', 'receiver.mjs'), local(savedPrograms().get('.tmp/receiver.mjs')!));
    // Started as the README starts it, its output in .tmp/server.log as `tee` keeps it.
    const log = path.join(cwd, '.tmp', 'server.log');
    const { key, port } = await demoServer(
      t,
      {
        EVMON_OPS_TOKEN: fs.readFileSync(path.join(cwd, '.tmp', 'ops-token'), 'utf8').trim(),
        EVMON_WEBHOOK_ALLOW_PRIVATE: '1',
        NODE_EXTRA_CA_CERTS: path.join(cwd, '.tmp', 'receiver-cert.pem'),
      },
      (output) => {
        // Written whole and renamed into place: a grep in the walkthrough never reads a file
        // cut short mid-write (its wait would end early). The folder goes when the test ends,
        // maybe before the server's last lines.
        try {
          fs.writeFileSync(`${log}.next`, output);
          fs.renameSync(`${log}.next`, log);
        } catch {}
      },
    );
    const setup = blocksOf('first-requests')[0]!;
    // Right after the README's wait: it ended because the corpus was loaded (the sensor would otherwise get its thousands of articles).
    const waited = `grep -q '"msg":"demo corpus seeded"' .tmp/server.log`;
    const stdout = await runBlocks(t, cwd, [setup, blocks[0]!, waited, ...blocks.slice(1)], (script) =>
      local(script)
        .replaceAll('https://localhost:8443', `https://127.0.0.1:${port}`)
        .replaceAll('KEY=evk_…', `KEY=${key}`)
        // The receiver's lines kept in a file the test reads (the reader sees them in the terminal),
        // and the script waits for the article's delivery before it ends.
        .replace('node .tmp/receiver.mjs &', 'node .tmp/receiver.mjs > .tmp/receiver.log &')
        .concat('\nfor i in $(seq 120); do grep -q event.matched .tmp/receiver.log && break; sleep 0.5; done\necho "== receiver"\ncat .tmp/receiver.log\n'),
    );
    const receiver = stdout.slice(stdout.indexOf('== receiver'));
    assert.match(receiver, new RegExp(`^receiving at https://localhost:${receiverPort}$`, 'm'));
    // The test delivery, found by type in the delivery log, succeeded; the receiver verified it.
    const testId = /"type":"sensor.test"[^\n]*?([0-9a-f-]{36}) SUCCEEDED$/m.exec(stdout)?.[1];
    assert.ok(testId, stdout);
    assert.match(receiver, new RegExp(`^${testId} sensor.test \\S`, 'm'));
    // Then the new article's event, matched and verified; nothing failed verification.
    assert.match(receiver, /^[0-9a-f-]{36} event\.matched .+ agreed to acquire .+ for 250000000 USD$/m);
    assert.doesNotMatch(receiver, /not verified/);
  });
});
