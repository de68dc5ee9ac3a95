// The MCP peer suite (@modelcontextprotocol/conformance 0.1.13, the newest that runs on Node
// 20) against the endpoint, through the project's script that supplies the bearer key: the
// server scenarios that apply to a tools-only server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { testCorpus } from '../helpers/corpus.js';
import { runOwned } from '../helpers/processes.js';
import { ROOT, startServer, tempDir, type TestServer, timeLimit } from '../helpers/server.js';

describe('MCP conformance suite', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('when the suite runs server-initialize, ping and tools-list, then every check passes', {
    timeout: timeLimit({ runs: 4 }), // the script and a process of the suite per scenario
  }, async (t) => {
    const { key } = await testCorpus(server).account(0, ['EVENTS_READ', 'BEATS_READ', 'BEATS_WRITE']);
    const ca = path.join(tempDir(), 'ca.pem');
    fs.writeFileSync(ca, server.ca);
    // Run asynchronously: this process serves the requests.
    const { status, stdout, stderr } = await runOwned(t, process.execPath, ['scripts/mcp-conformance.mjs', 'server-initialize', 'ping', 'tools-list'], {
      cwd: ROOT,
      env: { ...process.env, EVMON_MCP_URL: `${server.http.baseUrl}/mcp`, EVMON_MCP_KEY: key, EVMON_MCP_CA: ca },
    });
    const plain = stripVTControlCharacters(stdout + stderr);
    assert.equal(status, 0, plain);
    for (const scenario of ['server-initialize', 'ping', 'tools-list']) assert.match(plain, new RegExp(`^${scenario}: passed$`, 'm'));
    assert.doesNotMatch(plain, /FAILURE/);
  });
});
