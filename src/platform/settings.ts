// The `settings` table, a few named values the processes sharing a database agree on (the
// signing secret, the demo seeding marker); this file alone reads and writes it.
import type { Queryable } from './db/database.js';

export const settings = {
  async get(db: Queryable, name: string): Promise<string | null> {
    const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
    return rows[0]?.value ?? null;
  },

  /** Stores the value unless the name has one; answers whether this call stored it. */
  async claim(db: Queryable, name: string, value: string): Promise<boolean> {
    const stored = await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name', [name, value]);
    return stored.length > 0;
  },

  async set(db: Queryable, name: string, value: string): Promise<void> {
    await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value]);
  },
};
