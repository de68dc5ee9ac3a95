// On an empty database with EVMON_SEED=demo: a demo account with every entitlement and a key
// with every scope, printed once. (The demo corpus arrives with the corpus feature.)
import { SCOPES } from '../../platform/scopes.js';
import type { Runtime } from '../../runtime.js';

export const DEMO_CREDITS = 10_000;

export async function seedOnEmptyDatabase(runtime: Runtime): Promise<void> {
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
  // Printed to the terminal once, on purpose: this is the only time the raw key exists.
  process.stdout.write(
    `\nDemo account ${account.id} seeded with ${DEMO_CREDITS} credits.\nDemo API key (all scopes, shown once): ${key.key}\n\n`,
  );
}
