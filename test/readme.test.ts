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
import { ROOT, spawnServer, tempDir, timeLimit } from './helpers/server.js';

const MARK = '<!-- readme-test: first-requests -->';

/** The shell blocks that follow the mark, in README order. */
export function markedBlocks(readme: string): string[] {
  const blocks: string[] = [];
  for (let at = readme.indexOf(MARK); at >= 0; at = readme.indexOf(MARK, at + MARK.length)) {
    const block = /^\s*```sh\n([\s\S]*?)\n```/.exec(readme.slice(at + MARK.length));
    if (!block) throw new Error(`a ${MARK} without a sh block right after it`);
    blocks.push(block[1]!);
  }
  return blocks;
}

describe('the README', () => {
  it('when its first requests are run in order against a new server, then every one answers 2xx', {
    timeout: timeLimit({ starts: 1, otherMs: 240_000 }),
  }, async (t) => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = markedBlocks(readme);
    assert.ok(blocks.length >= 6, `${blocks.length} blocks marked`);

    // As the README's operator path starts it: a token of one's own in .tmp/ops-token.
    const cwd = tempDir();
    fs.mkdirSync(path.join(cwd, '.tmp'));
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
      // What the README promises: the last 30 days searchable first.
      await server.waitForOutput(/"msg":"demo corpus: the last 30 days are loaded and searchable/, 180_000);

      const script = [
        'set -euo pipefail',
        // Any answer other than 2xx fails the command, and with it the script.
        'curl() { command curl --fail-with-body --show-error "$@"; }',
        ...blocks.map((block, i) => `echo "== block ${i + 1}"\n${block}\necho`),
      ]
        .join('\n')
        .replaceAll('KEY=evk_…', `KEY=${key}`)
        .replaceAll('https://localhost:8443', `https://127.0.0.1:${port}`);
      assert.ok(script.includes(`KEY=${key}`), 'the README sets KEY=evk_… for the reader to fill in');
      const run = await runOwned(t, 'bash', ['-c', script], { cwd, env: { ...process.env } });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal((run.stdout.match(/^== block \d+$/gm) ?? []).length, blocks.length, run.stdout);
      // A few of the answers, read: the search found acquisitions, the article was stored.
      assert.match(run.stdout, /outlets, \d+ independent: /);
      assert.match(run.stdout, /"object":"incident_report"/);
      assert.match(run.stdout, /"object":"beat_entries"/);
      assert.match(run.stdout, /"object":"event_revision"/);
    } finally {
      await server.stop();
    }
  });
});
