// The key for cursor and token signatures: EVMON_SECRET, or one generated on first start and
// kept in the database, so every process sharing the database signs alike.
import { randomBytes } from 'node:crypto';
import type { Database } from './db/database.js';

export async function loadSecret(db: Database, configured: string | null): Promise<string> {
  if (configured !== null) return configured;
  await db.query(`INSERT INTO settings (name, value) VALUES ('signing_secret', $1) ON CONFLICT (name) DO NOTHING`, [randomBytes(32).toString('base64url')]);
  const rows = await db.query<{ value: string }>(`SELECT value FROM settings WHERE name = 'signing_secret'`);
  return rows[0]!.value;
}
