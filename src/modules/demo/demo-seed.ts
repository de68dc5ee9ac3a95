// On an empty database with EVMON_SEED=demo: the demo corpus (about 20,000 events over the
// past year), a demo account with every entitlement, a key with every scope and a console user
// with a generated password, printed once.
import { randomBytes } from 'node:crypto';
import { SCOPES } from '../../platform/scopes.js';
import type { Runtime } from '../../runtime.js';
import { generateDemoCorpus } from './demo-corpus.js';

export const DEMO_CREDITS = 10_000;
export const DEMO_EVENTS = 20_000;
export const DEMO_CONSOLE_EMAIL = 'demo@example.com';

export async function seedOnEmptyDatabase(runtime: Runtime, events = DEMO_EVENTS): Promise<void> {
  const existing = await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  if ((existing[0]?.n ?? 0) > 0) return;
  // Of several processes starting together on one empty database, only the one that records
  // the seeding seeds.
  const claimed = await runtime.db.query(
    `INSERT INTO settings (name, value) VALUES ('demo_seeded', 'yes') ON CONFLICT (name) DO NOTHING RETURNING name`,
  );
  if (claimed.length === 0) return;
  const account = await runtime.accounts.createAccount({
    display_name: 'Demo Newsroom',
    kind: 'ORGANIZATION',
    credit_balance: DEMO_CREDITS,
    entitlements: { structured_reporting: true, entity_reporting: true, beats: true },
  });
  const key = await runtime.accounts.createApiKey(account.id, { name: 'demo', scopes: [...SCOPES] });
  const consolePassword = randomBytes(15).toString('base64url');
  await runtime.consoleUsers.create(account.id, { email: DEMO_CONSOLE_EMAIL, password: consolePassword });
  const corpus = await generateDemoCorpus(runtime, { events });
  runtime.logger.info(corpus, 'demo corpus seeded');
  // Printed to the terminal once, on purpose: this is the only time the raw key exists.
  process.stdout.write(
    `\nDemo corpus: ${corpus.events} events, ${corpus.reports} reports, ${corpus.merges} merges, in ${corpus.seconds} s.\n` +
      `Demo account ${account.id} seeded with ${DEMO_CREDITS} credits.\nDemo API key (all scopes, shown once): ${key.key}\n` +
      `Web console: ${runtime.config.publicBaseUrl}/console, email ${DEMO_CONSOLE_EMAIL}, password (shown once): ${consolePassword}\n\n`,
  );
}
