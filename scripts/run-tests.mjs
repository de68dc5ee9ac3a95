// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// EVMON_TEST_DATABASE_URL=postgres://… runs the same suite against PostgreSQL.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'helpers' ? [] : find(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : find('test').sort();
// A file's time limit: test/platform/process.test.ts waits for real server processes, one of
// them seeding the 20,000-event demo corpus, and takes about 105 s on an idle 2-core machine.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      EVMON_LOG_LEVEL: process.env.EVMON_LOG_LEVEL ?? 'silent',
      // The webhook receiver of the tests serves this self-signed certificate; servers trust it
      // the way an operator adds a CA, through Node's own variable (read at process start).
      NODE_EXTRA_CA_CERTS: path.resolve('test/fixtures/webhook-receiver-cert.pem'),
    },
  },
);
process.exit(result.status ?? 1);
