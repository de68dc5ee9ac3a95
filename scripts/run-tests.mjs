// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// EVMON_TEST_DATABASE_URL=postgres://… runs the same suite against PostgreSQL.
//
// Tests that need a real server process (restart, crash, SIGTERM, several processes) spawn
// one; on a busy machine each start cost seconds of TypeScript compilation and of creating
// an embedded database. So, once per run: the sources are compiled (spawned servers run the
// build, not tsx), and an embedded data folder is created and migrated, which spawned servers
// on the embedded database copy instead of creating their own (test/helpers/server.ts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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

// Every test process runs on this same Node (process.execPath): say which.
process.stdout.write(`# tests on Node ${process.version} (${process.execPath})\n`);

const BUILD = '.test-build';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run([tsc, '-p', 'tsconfig.build.json', '--outDir', BUILD, '--tsBuildInfoFile', path.join(BUILD, '.tsbuildinfo')]);

// One folder for everything the run makes: the database template, and the folders of the
// test files (test/helpers/processes.ts). Removed when the run ends, however it ends, so that
// a test file that could not clean up (killed) leaves nothing behind either.
const runDir = mkdtempSync(path.join(os.tmpdir(), 'evmon-run-'));
process.on('exit', () => rmSync(runDir, { recursive: true, force: true, maxRetries: 5 }));
const template = path.join(runDir, 'template');
mkdirSync(template);
run([path.join(BUILD, 'src/cli/main.js'), 'migrate'], { ...process.env, EVMON_DATABASE_URL: '', EVMON_DATA_DIR: template, EVMON_LOG_LEVEL: 'silent' });

// Time limits. Node 24 applies --test-timeout to each test; Node 20 and 22 to each test file as
// a whole, killing the file's process (SIGTERM) when it passes it (nodejs/node#57672). Tests
// that wait for processes set their own limits, sized by what they wait for (timeLimit in
// test/helpers/server.ts); these bound everything else.
// - A test in the test file's own process: seconds on an idle machine; the longest, generating
//   the demo corpus twice, took 80 s at load average 15.
const TEST_LIMIT_MS = 240_000;
// - A file: above the sum of its tests' limits for the file that waits longest
//   (test/platform/process.test.ts, 10 server starts and a run: 16 minutes), so that only a hang ends a
//   file, not a busy machine.
const FILE_LIMIT_MS = 20 * 60_000;
const limit = Number(process.versions.node.split('.')[0]) >= 24 ? TEST_LIMIT_MS : FILE_LIMIT_MS;

const only = process.argv.slice(2);
const files = only.length > 0 ? only : find('test').sort();
// In a process group of its own with the test files' processes, so that a signal to this
// script reaches them all (they end what they started, test/helpers/processes.ts).
const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${limit}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  detached: true,
  env: {
    ...process.env,
    EVMON_LOG_LEVEL: process.env.EVMON_LOG_LEVEL ?? 'silent',
    EVMON_TEST_SERVER_BUILD: path.resolve(BUILD),
    EVMON_TEST_DATA_TEMPLATE: template,
    EVMON_TEST_TMP: runDir,
    // The webhook receiver of the tests serves this self-signed certificate; servers trust it
    // the way an operator adds a CA, through Node's own variable (read at process start).
    NODE_EXTRA_CA_CERTS: path.resolve('test/fixtures/webhook-receiver-cert.pem'),
  },
});
const signalGroup = (signal) => {
  try {
    process.kill(-runner.pid, signal);
    return true;
  } catch {
    return false; // no process of the group is left
  }
};
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted = signal;
    signalGroup(signal);
  });
}
const exit = await new Promise((resolve) => runner.on('exit', (code, signal) => resolve({ code, signal })));
// An interrupted run has not passed, whatever the runner's own exit code says.
const stopped = interrupted ?? exit.signal;
const status = stopped ? 128 + os.constants.signals[stopped] : exit.code;

// A file killed at its limit is not waited for: give what is left of the group time to end
// what it started, then kill it.
for (let waited = 0; signalGroup(waited === 0 ? 'SIGTERM' : 0) && waited < 10_000; waited += 100) await sleep(100);
signalGroup('SIGKILL');
process.exit(status);
