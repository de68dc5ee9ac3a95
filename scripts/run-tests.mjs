// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// EVMON_TEST_DATABASE_URL=postgres://… runs the same suite against PostgreSQL.
//
// Tests that need a real server process (restart, crash, SIGTERM, several processes) spawn
// one; on a busy machine each start cost seconds of TypeScript compilation and of creating
// an embedded database. So, once per run: the sources are compiled (spawned servers run the
// build, not tsx), and an embedded data folder is created and migrated, which spawned servers
// on the embedded database copy instead of creating their own (test/helpers/server.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'helpers' ? [] : find(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

function run(args, env = process.env) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const BUILD = '.test-build';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run([tsc, '-p', 'tsconfig.build.json', '--outDir', BUILD, '--tsBuildInfoFile', path.join(BUILD, '.tsbuildinfo')]);

const template = mkdtempSync(path.join(os.tmpdir(), 'evmon-template-'));
process.on('exit', () => rmSync(template, { recursive: true, force: true }));
run([path.join(BUILD, 'src/cli/main.js'), 'migrate'], { ...process.env, EVMON_DATABASE_URL: '', EVMON_DATA_DIR: template, EVMON_LOG_LEVEL: 'silent' });

const only = process.argv.slice(2);
const files = only.length > 0 ? only : find('test').sort();
// A test's time limit, unless it sets its own: tests that start server processes size theirs
// to the starts they wait for (test/helpers/server.ts SPAWN_BUDGET_MS).
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: {
    ...process.env,
    EVMON_LOG_LEVEL: process.env.EVMON_LOG_LEVEL ?? 'silent',
    EVMON_TEST_SERVER_BUILD: path.resolve(BUILD),
    EVMON_TEST_DATA_TEMPLATE: template,
    // The webhook receiver of the tests serves this self-signed certificate; servers trust it
    // the way an operator adds a CA, through Node's own variable (read at process start).
    NODE_EXTRA_CA_CERTS: path.resolve('test/fixtures/webhook-receiver-cert.pem'),
  },
});
process.exit(result.status ?? 1);
