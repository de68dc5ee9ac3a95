// The README's first requests, run as a newcomer runs them: the shell blocks marked
// `<!-- readme-test: first-requests -->`, in order, in one bash session, against a server
// started on an empty data folder with the demo corpus, as `npm start` does. Every curl must
// answer 2xx (curl --fail-with-body) and every command succeed (set -e, pipefail), so the
// README cannot drift from the service.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runOwned } from './helpers/processes.js';
import { ROOT, spawnServer, timeLimit } from './helpers/server.js';

/**
 * The marked blocks, in README order: `first-requests` shell blocks to run, and `save <path>`
 * blocks (a program the README tells the reader to save) to write before they run.
 */
function markedBlocks(readme: string): { run: string[]; save: Map<string, string> } {
  const run: string[] = [];
  const save = new Map<string, string>();
  for (const mark of readme.matchAll(/<!-- readme-test: (first-requests|save (\S+)) -->\s*```(\w+)\n([\s\S]*?)\n```/g)) {
    if (mark[2]) save.set(mark[2], mark[4]!);
    else run.push(mark[4]!);
  }
  const marks = readme.match(/<!-- readme-test: /g)?.length ?? 0;
  if (marks !== run.length + save.size) throw new Error(`${marks} marks, ${run.length + save.size} blocks right after one`);
  return { run, save };
}

describe('the README', () => {
  it('when its first requests are run in order against a new server, then every one answers 2xx', {
    timeout: timeLimit({ starts: 1, otherMs: 240_000 }),
  }, async (t) => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const { run: blocks, save } = markedBlocks(readme);
    assert.ok(blocks.length >= 8 && save.size >= 1, `${blocks.length} blocks to run, ${save.size} to save`);

    // A folder in the clone (.tmp/ is ignored by git), so that saved programs import the
    // project's packages as the README's do; it holds the README's .tmp/ and data/.
    const cwd = fs.mkdtempSync(path.join(ROOT, '.tmp', 'readme-test-'));
    t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
    fs.mkdirSync(path.join(cwd, '.tmp'));
    // As the README's operator path starts it: a token of one's own in .tmp/ops-token.
    const token = 'readme-test-operator-token-0123456789';
    fs.writeFileSync(path.join(cwd, '.tmp', 'ops-token'), `${token}\n`);
    // A smaller demo (2,000 events, about 165 in the last 30 days) than npm start's.
    const server = await spawnServer(t, {
      EVMON_DATABASE_URL: '',
      EVMON_SEED: 'demo',
      EVMON_TEST_DEMO_EVENTS: '2000',
      EVMON_OPS_TOKEN: token,
    });
    try {
      const key = /Demo API key[^:]*: (evk_[A-Za-z0-9_-]{43})/.exec(server.output())?.[1];
      assert.ok(key, server.output());
      const port = /"port":(\d+)[^\n]*"msg":"ready"/.exec(server.output())![1]!;
      const local = (text: string) => text.replaceAll('https://localhost:8443', `https://127.0.0.1:${port}`);
      for (const [file, program] of save) fs.writeFileSync(path.join(cwd, file), local(program));
      // The certificate where the README names it (./data/tls/cert.pem, the server's data folder).
      fs.mkdirSync(path.join(cwd, 'data', 'tls'), { recursive: true });
      fs.writeFileSync(path.join(cwd, 'data', 'tls', 'cert.pem'), server.ca);
      // What the README promises: the last 30 days searchable first.
      await server.waitForOutput(/"msg":"demo corpus: the last 30 days are loaded and searchable/, 180_000);

      const script = [
        'set -euo pipefail',
        // Any answer other than 2xx fails the command, and with it the script.
        'curl() { command curl --fail-with-body --show-error "$@"; }',
        ...blocks.map((block, i) => `echo "== block ${i + 1}"\n${block}\necho`),
      ]
        .join('\n')
        .replaceAll('KEY=evk_…', `KEY=${key}`);
      assert.ok(script.includes(`KEY=${key}`), 'the README sets KEY=evk_… for the reader to fill in');
      const run = await runOwned(t, 'bash', ['-c', local(script)], { cwd, env: { ...process.env } });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal((run.stdout.match(/^== block \d+$/gm) ?? []).length, blocks.length, run.stdout);
      // A few of the answers, read: the search found acquisitions, the article was stored.
      assert.match(run.stdout, /outlets, \d+ independent: /);
      assert.match(run.stdout, /"object":"incident_report"/);
      assert.match(run.stdout, /"object":"beat_entries"/);
      assert.match(run.stdout, /"object":"event_revision"/);
      // MCP over curl and through the SDK.
      assert.match(run.stdout, /^search_events search_events_continue get_event/m);
      assert.match(run.stdout, /^\{"result":\{"content":\[\{"type":"text","text":"\{\\"object\\":\\"list\\"/m);
      assert.match(run.stdout, /^search_events, search_events_continue, get_event, /m);
      assert.match(run.stdout, /^search_events, [^\n]*\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S/m);
    } finally {
      await server.stop();
    }
  });
});
