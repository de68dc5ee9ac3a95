// Console users, as the operator manages them (operations.md: POST
// /ops/v1/accounts/{id}/console-users, DELETE /ops/v1/console-users/{id}).
import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { StrictObject, Text, Timestamp, Uuid } from '../platform/http/schema-kit.js';
import type { IdGenerator } from '../platform/ids.js';
import { ProblemError } from '../platform/problems.js';
import { hashPassword } from './passwords.js';

export const CreateConsoleUserBody = StrictObject({
  email: Text({ minLength: 3, maxLength: 254, description: 'Unique, compared case-insensitively.' }),
  password: Text({ minLength: 12, maxLength: 200, description: '12 to 200 characters.' }),
});
export type CreateConsoleUserBody = Static<typeof CreateConsoleUserBody>;

export const ConsoleUser = Type.Object(
  { object: Type.Literal('console_user'), id: Uuid, account_id: Uuid, email: Type.String(), created_at: Timestamp },
  { $id: 'ConsoleUser' },
);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function consoleUsers({ db, clock, newId }: { db: Database; clock: Clock; newId: IdGenerator }) {
  return {
    async create(accountId: string, input: CreateConsoleUserBody): Promise<Static<typeof ConsoleUser>> {
      const email = input.email.trim();
      if (!EMAIL.test(email)) {
        throw new ProblemError('validation-failed', 'email is not an email address.', { errors: [{ pointer: '/email', detail: 'is not an email address' }] });
      }
      const passwordHash = await hashPassword(input.password); // before the transaction: it takes a while
      return db.transaction(async (tx) => {
        const account = await tx.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
        if (account.length === 0) throw new ProblemError('not-found', `No account with id ${accountId}.`);
        const id = newId();
        const at = clock.now();
        const inserted = await tx.query(
          `INSERT INTO console_users (id, account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
          [id, accountId, email, passwordHash, at],
        );
        if (inserted.length === 0) throw new ProblemError('state-conflict', `The email ${email} is already a console user's.`);
        return { object: 'console_user' as const, id, account_id: accountId, email, created_at: at.toISOString() };
      });
    },

    /** Deletes the user; their sessions end with them. */
    async remove(id: string): Promise<void> {
      const deleted = await db.query('DELETE FROM console_users WHERE id = $1 RETURNING id', [id]);
      if (deleted.length === 0) throw new ProblemError('not-found', `No console user with id ${id}.`);
    },
  };
}

export type ConsoleUsers = ReturnType<typeof consoleUsers>;
