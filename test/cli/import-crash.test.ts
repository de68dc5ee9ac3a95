// An import killed midway and run again adds nothing twice (issue: bulk ingest, point 4): each
// article is identified by its outlet and url, and what a committed batch stored stays.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { evmon, spawnEvmon } from '../helpers/evmon.js';
import { PG_URL, tempDir, timeLimit } from '../helpers/server.js';

const LINES = 1_500; // three batches of 500

describe('evmon import across a crash', () => {
  it('when an import is killed after its first batch and run again, then every article is stored exactly once', {
    timeout: timeLimit({ runs: 8 }),
  }, async (t) => {
    const dir = tempDir();
    const env = PG_URL ? { EVMON_DATABASE_URL: PG_URL, EVMON_DATA_DIR: dir } : { EVMON_DATABASE_URL: '', EVMON_DATA_DIR: dir };
    const outlet = (await evmon(t, env, 'outlets', 'create', '--name', 'Wire')).json.id;
    const entity = (await evmon(t, env, 'entities', 'create', '--name', `Maker ${Math.random()}`)).json.id;
    const typeFile = path.join(dir, 'type.json');
    const code = `launch_${Math.random().toString(36).slice(2, 10)}`;
    fs.writeFileSync(
      typeFile,
      JSON.stringify({
        code_name: code,
        name: 'Launch',
        description: '',
        roles: [{ code_name: 'maker', name: 'Maker', expected_type: 'NAMED_ENTITY' }],
        sentence_template: '{maker} launched',
      }),
    );
    const type = (await evmon(t, env, 'event-types', 'create', '--file', typeFile)).json.id;
    // Spread over 300 days, so events stay small (one every few days).
    const file = path.join(dir, 'articles.ndjson');
    const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 300) * 86_400_000).toISOString();
    fs.writeFileSync(
      file,
      Array.from({ length: LINES }, (_, i) =>
        JSON.stringify({
          outlet_id: outlet,
          event_type_id: type,
          published_at: day(i),
          roles: [{ role: 'maker', entity_id: entity }],
          url: `https://wire.example/${code}/${i}`,
        }),
      ).join('\n'),
    );

    const first = spawnEvmon(t, env, 'import', file);
    for (const deadline = Date.now() + 60_000; !/lines 1 to 500 done/.test(first.stderr()); ) {
      assert.ok(Date.now() < deadline, `the first batch commits: ${first.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await first.stop('SIGKILL');

    const again = await evmon(t, env, 'import', file);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.json.refused, 0);
    assert.equal(again.json.imported + again.json.existing, LINES);
    assert.ok(again.json.existing >= 500, `what the killed run committed is there (${again.json.existing})`);
    t.diagnostic(`the killed run had stored ${again.json.existing} of ${LINES}`);
    const third = await evmon(t, env, 'import', file);
    assert.deepEqual([third.json.imported, third.json.existing, third.json.refused], [0, LINES, 0], 'every article once');
  });
});
