// The key for cursor and token signatures: EVMON_SECRET, or one generated on first start and
// kept in the database, so every process sharing the database signs alike.
import { randomBytes } from 'node:crypto';
import type { Database } from './db/database.js';
import { settings } from './settings.js';

const SIGNING_SECRET = 'signing_secret';

export async function loadSecret(db: Database, configured: string | null): Promise<string> {
  if (configured !== null) return configured;
  await settings.claim(db, SIGNING_SECRET, randomBytes(32).toString('base64url'));
  return (await settings.get(db, SIGNING_SECRET))!;
}
