// Idempotency claims (v1 document, "Idempotency"; decisions.md, "Idempotency"): one row per
// (API key, Idempotency-Key). Every step is one statement, so two processes, or a crash at
// any point, leave a state of the spec's table: unused, claimed, completed or released.
import type { Clock } from './clock.js';
import type { Database, Queryable } from './db/database.js';
import { deleteInBatches } from './retention.js';

export const REPLAY_WINDOW_MS = 24 * 3_600_000;
/** A non-billed claim left in flight (its request died) may be taken over after this. */
export const STALE_CLAIM_MS = 60_000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type ClaimOutcome =
  | { kind: 'claimed'; owner: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict' } // same key, another request
  | { kind: 'in-flight' };

export interface ClaimRequest {
  apiKeyId: string;
  key: string;
  fingerprint: Buffer;
  billed: boolean;
  /** A fresh token naming this request as the claim's holder (chosen by the caller, so it can release a claim whose answer it never got). */
  owner: string;
}

export interface IdempotencyClaims {
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /** Stores the response and completes the claim, if this owner still holds it. */
  complete(apiKeyId: string, key: string, owner: string, response: StoredResponse): Promise<void>;
  /** Releases the claim (the key is unused again), if this owner still holds it. */
  release(apiKeyId: string, key: string, owner: string): Promise<void>;
  /** Keeps the claim in flight, as claimed now (if this owner still holds it). */
  hold(apiKeyId: string, key: string, owner: string): Promise<void>;
  /** Deletes claims past the replay window. */
  sweep(): Promise<number>;
}

/** The claim one request holds. */
export interface HeldClaim {
  apiKeyId: string;
  key: string;
  owner: string;
}

/**
 * Stores an answer in the transaction of the effect it answers (architecture habit 13): the
 * effect and its stored answer commit together, so a crash after the commit replays the answer
 * and a crash before it leaves nothing done. `at` is when the answer was made.
 */
export type CommitAnswer<T> = (tx: Queryable, answer: T, at: Date) => Promise<void>;

/**
 * Stores the response and completes the claim through `q` (the database, or the transaction of
 * the request's effect), if this owner still holds it; answers whether it did.
 */
export async function completeClaim(q: Queryable, claim: HeldClaim, response: StoredResponse, at: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE idempotency_claims SET completed_at = $4, response_status = $5, response_headers = $6, response_body = $7
      WHERE api_key_id = $1 AND idempotency_key = $2 AND owner = $3 AND completed_at IS NULL
     RETURNING 1`,
    [claim.apiKeyId, claim.key, claim.owner, at, response.status, JSON.stringify(response.headers), response.body],
  );
  return rows.length > 0;
}

interface ClaimRow {
  owner: string;
  fingerprint: Buffer;
  completed_at: Date | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: Buffer | null;
}

export function idempotencyClaims(db: Database, clock: Clock): IdempotencyClaims {
  return {
    async claim(request) {
      // A claim may vanish (released) between the two statements; then try again.
      const { owner } = request;
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = clock.now();
        // Takes the key when unused, past the replay window, or a stale non-billed claim of
        // the same request. A billed claim left in flight is never taken over.
        const taken = await db.query<{ owner: string }>(
          `INSERT INTO idempotency_claims (api_key_id, idempotency_key, fingerprint, billed, owner, claimed_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (api_key_id, idempotency_key) DO UPDATE
              SET fingerprint = EXCLUDED.fingerprint, billed = EXCLUDED.billed, owner = EXCLUDED.owner, claimed_at = EXCLUDED.claimed_at,
                  completed_at = NULL, response_status = NULL, response_headers = NULL, response_body = NULL
            WHERE idempotency_claims.claimed_at <= $7
               OR (idempotency_claims.completed_at IS NULL AND NOT idempotency_claims.billed
                   AND idempotency_claims.claimed_at <= $8 AND idempotency_claims.fingerprint = EXCLUDED.fingerprint)
           RETURNING owner`,
          [
            request.apiKeyId,
            request.key,
            request.fingerprint,
            request.billed,
            owner,
            now,
            new Date(now.getTime() - REPLAY_WINDOW_MS),
            new Date(now.getTime() - STALE_CLAIM_MS),
          ],
        );
        if (taken[0]?.owner === owner) return { kind: 'claimed', owner };
        const [row] = await db.query<ClaimRow>(
          `SELECT owner, fingerprint, completed_at, response_status, response_headers, response_body
             FROM idempotency_claims WHERE api_key_id = $1 AND idempotency_key = $2`,
          [request.apiKeyId, request.key],
        );
        if (!row) continue;
        if (!Buffer.from(row.fingerprint).equals(request.fingerprint)) return { kind: 'conflict' };
        if (row.completed_at === null) return { kind: 'in-flight' };
        return { kind: 'replay', response: { status: row.response_status!, headers: row.response_headers ?? {}, body: Buffer.from(row.response_body ?? []) } };
      }
      return { kind: 'in-flight' };
    },

    async complete(apiKeyId, key, owner, response) {
      await completeClaim(db, { apiKeyId, key, owner }, response, clock.now());
    },

    async release(apiKeyId, key, owner) {
      await db.query('DELETE FROM idempotency_claims WHERE api_key_id = $1 AND idempotency_key = $2 AND owner = $3 AND completed_at IS NULL', [
        apiKeyId,
        key,
        owner,
      ]);
    },

    async hold(apiKeyId, key, owner) {
      await db.query('UPDATE idempotency_claims SET claimed_at = $4 WHERE api_key_id = $1 AND idempotency_key = $2 AND owner = $3 AND completed_at IS NULL', [
        apiKeyId,
        key,
        owner,
        clock.now(),
      ]);
    },

    // Claims past the window are already free to take (see claim); the row just goes. A claim
    // taken again meanwhile has a new claimed_at and is left alone (the locking read re-checks it).
    sweep() {
      return deleteInBatches(
        db,
        `DELETE FROM idempotency_claims WHERE (api_key_id, idempotency_key) IN (
           SELECT api_key_id, idempotency_key FROM idempotency_claims WHERE claimed_at <= $2 LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING 1`,
        [new Date(clock.now().getTime() - REPLAY_WINDOW_MS)],
      );
    },
  };
}
