// Resolves a raw API key to its principal, with a small per-process cache so that the hot
// path costs no database round trip. Revocation is honoured at once in the process that
// revokes (it evicts the entry) and within CACHE_TTL_MS in every other process sharing the
// database (documented in the API reference). Unknown keys are not cached, so a key created
// by another process works on its first use. Each database read also stamps the key's
// `last_used_at` when it is over a minute old, so the console's "last used" costs no write
// per request.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db/database.js';
import { hashKey } from './api-key-format.js';
import { accountsStore } from './accounts.store.js';
import type { Scope } from '../../platform/scopes.js';

export const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 50_000;
const LAST_USED_PRECISION_MS = 60_000;

export interface KeyPrincipal {
  keyId: string;
  accountId: string;
  scopes: ReadonlySet<Scope>;
  restPerMinute: number;
  mcpPerMinute: number;
}

interface CacheEntry {
  principal: KeyPrincipal | null; // null: a known key that is revoked
  // Cache freshness is process-local bookkeeping, not business time, so it runs on the
  // monotonic timer rather than the injected (possibly frozen) clock.
  fetchedAt: number;
  keyHash: Buffer;
}

export function keyAuthenticator(db: Queryable, clock: Clock) {
  const cache = new Map<string, CacheEntry>();
  // Bumped by every eviction: a look-up that started before one must not cache what it read,
  // or a key revoked meanwhile would be served from the cache as active.
  let generation = 0;

  return {
    async authenticate(rawKey: string): Promise<KeyPrincipal | null> {
      // Entries are keyed by the raw key so a cache hit costs no hashing; raw keys live only in
      // this process's memory, for at most CACHE_TTL_MS, as they do in request headers.
      const cached = cache.get(rawKey);
      if (cached && performance.now() - cached.fetchedAt < CACHE_TTL_MS) return cached.principal;
      const hash = hashKey(rawKey);
      const startedAt = generation;

      const row = await accountsStore.findPrincipalByHash(db, hash);
      if (!row) {
        cache.delete(rawKey);
        return null;
      }
      const now = clock.now();
      if (!row.revoked_at && (row.last_used_at === null || now.getTime() - row.last_used_at.getTime() >= LAST_USED_PRECISION_MS)) {
        await accountsStore.stampLastUsed(db, row.key_id, now);
      }
      const principal: KeyPrincipal | null = row.revoked_at
        ? null
        : {
            keyId: row.key_id,
            accountId: row.account_id,
            scopes: new Set(row.scopes as Scope[]),
            restPerMinute: row.rest_requests_per_minute,
            mcpPerMinute: row.mcp_requests_per_minute,
          };
      if (startedAt !== generation) return principal;
      if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
      cache.set(rawKey, { principal, fetchedAt: performance.now(), keyHash: hash });
      return principal;
    },

    /**
     * The look-up of a key no one has: the statement each request with a key not yet cached
     * runs, read once before a server listens so the first requests after a restart find the
     * keys' table read (on the embedded database, nothing of it is in memory at start).
     */
    async warmUp(): Promise<void> {
      await accountsStore.findPrincipalByHash(db, hashKey(''));
    },

    evict(keyHash: Buffer): void {
      generation++;
      for (const [k, entry] of cache) if (entry.keyHash.equals(keyHash)) cache.delete(k);
    },

    /** Plan or account changes made in this process show at once. */
    evictAll(): void {
      generation++;
      cache.clear();
    },

    evictAccount(accountId: string): void {
      generation++;
      for (const [k, entry] of cache) if (entry.principal?.accountId === accountId) cache.delete(k);
    },
  };
}

export type KeyAuthenticator = ReturnType<typeof keyAuthenticator>;
