// Console sign-in and sessions (decisions.md, "Web console"). A session is a row referenced
// by a random token in a cookie; only the token's hash is stored. Sessions end after 12 h
// idle or 7 days in all, on the injected clock. Failed sign-ins are counted per email typed
// (whether or not a user has it): from the fourth each answer is slowed, and the tenth refuses
// that email for 15 minutes. A wrong email and a wrong password read the same.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { SessionPrincipal } from '../platform/http/guard.js';
import type { IdGenerator } from '../platform/ids.js';
import { deleteInBatches } from '../platform/retention.js';
import { hashPassword, verifyPassword } from './passwords.js';

export const SESSION_COOKIE = '__Host-evmon-session';
export const IDLE_LIMIT_MS = 12 * 3600_000;
export const ABSOLUTE_LIMIT_MS = 7 * 24 * 3600_000;
export const MAX_FAILURES = 10;
export const LOCK_MS = 15 * 60_000;
const SLOW_AFTER_FAILURES = 3;
const SLOW_STEP_MS = 100;
const SLOW_MAX_MS = 1_000;
// last_seen_at is written when over a minute old: idle expiry is exact to a minute, and a
// page view costs no write.
const TOUCH_AFTER_MS = 60_000;
const MAX_EMAIL_LENGTH = 254;
// Rows are deleted this long after they stop mattering (an ended session reads as none
// either way): the margin keeps a process whose clock runs a little behind from reading a
// row as alive that another has just deleted.
export const SWEEP_MARGIN_MS = 3600_000;

export type SignInResult = { ok: true; token: string; session: SessionPrincipal } | { ok: false; reason: 'invalid' | 'locked' };

// Unknown emails are checked against this hash, so they take as long as known ones.
const decoy = hashPassword(randomBytes(16).toString('base64'));

const tokenHash = (token: string) => createHash('sha256').update(token).digest();

interface SessionRow {
  id: string;
  user_id: string;
  account_id: string;
  email: string;
  created_at: Date;
  last_seen_at: Date;
}

export function consoleSessions({ db, clock, newId }: { db: Database; clock: Clock; newId: IdGenerator }) {
  const expired = (row: Pick<SessionRow, 'created_at' | 'last_seen_at'>, nowMs: number) =>
    nowMs - row.last_seen_at.getTime() >= IDLE_LIMIT_MS || nowMs - row.created_at.getTime() >= ABSOLUTE_LIMIT_MS;

  /**
   * Counts this attempt as a failure before the password is checked, in one statement, so
   * concurrent guesses cannot pass the limit together; a success clears the count. Answers
   * the count, or null while the email is refused.
   */
  async function countAttempt(emailKey: string, now: Date): Promise<number | null> {
    const [row] = await db.query<{ failures: number; locked_until: Date | null }>(
      `INSERT INTO console_sign_in_failures AS f (email_key, failures, last_failure_at) VALUES ($1, 1, $2)
       ON CONFLICT (email_key) DO UPDATE SET
         failures = CASE WHEN f.locked_until > $2 THEN f.failures
                         WHEN f.last_failure_at <= $2 - make_interval(secs => $3) THEN 1
                         ELSE f.failures + 1 END,
         last_failure_at = CASE WHEN f.locked_until > $2 THEN f.last_failure_at ELSE $2 END,
         locked_until = CASE WHEN f.locked_until > $2 THEN f.locked_until ELSE NULL END
       RETURNING failures, locked_until`,
      [emailKey, now, LOCK_MS / 1000],
    );
    if (!row || (row.locked_until !== null && row.locked_until > now) || row.failures > MAX_FAILURES) return null;
    return row.failures;
  }

  return {
    async signIn(email: string, password: string): Promise<SignInResult> {
      const emailKey = email.trim().toLowerCase();
      const now = clock.now();
      if (emailKey.length === 0 || emailKey.length > MAX_EMAIL_LENGTH || password.length > 1024) {
        await verifyPassword(password.slice(0, 1024), await decoy);
        return { ok: false, reason: 'invalid' };
      }
      const failures = await countAttempt(emailKey, now);
      if (failures === null) return { ok: false, reason: 'locked' };

      const [user] = await db.query<{ id: string; account_id: string; email: string; password_hash: string }>(
        'SELECT id, account_id, email, password_hash FROM console_users WHERE lower(email) = $1',
        [emailKey],
      );
      const valid = await verifyPassword(password, user?.password_hash ?? (await decoy));
      if (!user || !valid) {
        if (failures >= MAX_FAILURES) {
          await db.query('UPDATE console_sign_in_failures SET locked_until = $2 WHERE email_key = $1', [emailKey, new Date(now.getTime() + LOCK_MS)]);
          return { ok: false, reason: 'locked' };
        }
        if (failures > SLOW_AFTER_FAILURES) await sleep(Math.min(SLOW_MAX_MS, SLOW_STEP_MS * (failures - SLOW_AFTER_FAILURES)));
        return { ok: false, reason: 'invalid' };
      }

      const token = randomBytes(32).toString('base64url');
      const sessionId = newId();
      await db.transaction(async (tx) => {
        await tx.query('DELETE FROM console_sign_in_failures WHERE email_key = $1', [emailKey]);
        // The user's sessions that have expired go now, rather than waiting for a sweep.
        await tx.query(`DELETE FROM console_sessions WHERE user_id = $1 AND (last_seen_at <= $2 OR created_at <= $3)`, [
          user.id,
          new Date(now.getTime() - IDLE_LIMIT_MS),
          new Date(now.getTime() - ABSOLUTE_LIMIT_MS),
        ]);
        await tx.query('INSERT INTO console_sessions (id, user_id, token_hash, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)', [
          sessionId,
          user.id,
          tokenHash(token),
          now,
        ]);
      });
      return { ok: true, token, session: { sessionId, userId: user.id, accountId: user.account_id, email: user.email } };
    },

    /** The session a cookie's token names, or null when there is none or it has expired. */
    async resume(token: string): Promise<SessionPrincipal | null> {
      if (token.length === 0 || token.length > 100) return null;
      const [row] = await db.query<SessionRow>(
        `SELECT s.id, s.user_id, u.account_id, u.email, s.created_at, s.last_seen_at
           FROM console_sessions s JOIN console_users u ON u.id = s.user_id WHERE s.token_hash = $1`,
        [tokenHash(token)],
      );
      if (!row) return null;
      const now = clock.now();
      if (expired(row, now.getTime())) {
        await db.query('DELETE FROM console_sessions WHERE id = $1', [row.id]);
        return null;
      }
      if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_AFTER_MS) {
        await db.query('UPDATE console_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2', [row.id, now]);
      }
      return { sessionId: row.id, userId: row.user_id, accountId: row.account_id, email: row.email };
    },

    async signOut(sessionId: string): Promise<void> {
      await db.query('DELETE FROM console_sessions WHERE id = $1', [sessionId]);
    },

    /** Deletes sessions that expired (idle or by age) over SWEEP_MARGIN_MS ago; answers how many. */
    sweepSessions(): Promise<number> {
      const cutoff = clock.nowMs() - SWEEP_MARGIN_MS;
      // A page view in the meantime moves last_seen_at, which the locking read re-checks.
      return deleteInBatches(
        db,
        `DELETE FROM console_sessions WHERE id IN (
           SELECT id FROM console_sessions WHERE last_seen_at <= $2 OR created_at <= $3 LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING 1`,
        [new Date(cutoff - IDLE_LIMIT_MS), new Date(cutoff - ABSOLUTE_LIMIT_MS)],
      );
    },

    /**
     * Deletes failed sign-ins that count toward nothing any more; answers how many. A count
     * lasts while failures come within LOCK_MS of each other, and a lock LOCK_MS from the
     * failure that set it, so a row whose last failure is older than both reads as no row.
     */
    sweepSignInFailures(): Promise<number> {
      return deleteInBatches(
        db,
        `DELETE FROM console_sign_in_failures WHERE email_key IN (
           SELECT email_key FROM console_sign_in_failures
            WHERE last_failure_at <= $2 AND (locked_until IS NULL OR locked_until <= $3) LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING 1`,
        [new Date(clock.nowMs() - SWEEP_MARGIN_MS - LOCK_MS), new Date(clock.nowMs() - SWEEP_MARGIN_MS)],
      );
    },
  };
}

export type ConsoleSessions = ReturnType<typeof consoleSessions>;
