// What a database failure means to the code that called it, decided once, here, where the
// error arises: both storage paths pass every error through `classified`, and every caller
// (the HTTP error handler, MCP, the console, billing) branches on `databaseFailure`, never on
// error codes of its own.

/**
 * - `unavailable`: nothing was written and a retry is safe: the server cannot be reached or
 *   went away before a commit was asked for, it is read-only, out of resources or shutting
 *   down, a statement timed out, or the transaction was a deadlock or serialization victim.
 * - `commit-in-doubt`: the connection was lost while COMMIT was in flight; the transaction may
 *   or may not have committed.
 * - `unique-violation`: another writer stored the same unique value first.
 * - `invalid-value`: the database refused a value as data (SQLSTATE class 22).
 */
export type DatabaseFailure = 'unavailable' | 'commit-in-doubt' | 'unique-violation' | 'invalid-value';

/** A failure that wrote nothing; surfaces as 503 write-unavailable. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('database unavailable', { cause });
  }
}

/** The connection was lost while COMMIT was in flight: the outcome is unknown. */
export class CommitInDoubtError extends Error {
  constructor(cause: unknown) {
    super('the connection was lost while the transaction was committing', { cause });
  }
}

/** SQLSTATEs whose statement or transaction wrote nothing, and which a retry may get past. */
const RETRYABLE_STATES = new Set([
  '25006', // read-only transaction (a standby, or default_transaction_read_only)
  '57014', // statement timeout or cancel
  '40001', // serialization failure
  '40P01', // deadlock victim
]);

const sqlStateOf = (error: unknown): string | null => {
  const code = (error as { code?: unknown } | null)?.code;
  // Only errors the server reported carry a severity; Node's errno errors carry codes too.
  return typeof code === 'string' && typeof (error as { severity?: unknown }).severity === 'string' ? code : null;
};

/** The server went away or the connection broke (whether the server or the network said so). */
function connectionLost(error: unknown): boolean {
  const state = sqlStateOf(error);
  // Class 08: connection exceptions; 57P01-57P04: the server is shutting down, crashed, is
  // starting, or the database was dropped.
  if (state !== null) return state.startsWith('08') || /^57P0[1-4]$/.test(state);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNRESET, ECONNREFUSED, EPIPE…
  // pg raises plain Errors when it cannot reach the server ("Connection terminated
  // unexpectedly", "timeout exceeded when trying to connect"); anything of ours thrown inside
  // a transaction (a ProblemError, say) is of another class and passes through untouched.
  return Object.getPrototypeOf(error) === Error.prototype && /timeout|connect|terminat|socket|pool/i.test(error.message);
}

/**
 * The error as callers should see it: an unavailable database or a commit in doubt as the
 * typed errors above, anything else unchanged. `during` is the statement that failed: only a
 * lost COMMIT leaves the outcome unknown (before it, the server rolls the transaction back).
 */
export function classified(error: unknown, during: 'statement' | 'commit' = 'statement'): unknown {
  if (error instanceof DatabaseUnavailableError || error instanceof CommitInDoubtError) return error;
  if (connectionLost(error)) return during === 'commit' ? new CommitInDoubtError(error) : new DatabaseUnavailableError(error);
  const state = sqlStateOf(error);
  if (state !== null && (RETRYABLE_STATES.has(state) || state.startsWith('53'))) return new DatabaseUnavailableError(error); // class 53: out of resources
  return error;
}

/** How a request hears of an `invalid-value` failure (400 validation-failed). */
export const INVALID_VALUE_DETAIL = 'A value in the request cannot be stored.';

/** The SQLSTATE the server gave a failure, through the typed errors above (null: none, as for a lost connection). */
export function failureState(error: unknown): string | null {
  return error instanceof DatabaseUnavailableError || error instanceof CommitInDoubtError ? sqlStateOf(error.cause) : sqlStateOf(error);
}

/** What a failure means, or null when it is not the database's. */
export function databaseFailure(error: unknown): DatabaseFailure | null {
  if (error instanceof DatabaseUnavailableError) return 'unavailable';
  if (error instanceof CommitInDoubtError) return 'commit-in-doubt';
  const state = sqlStateOf(error);
  if (state === '23505') return 'unique-violation';
  if (state?.startsWith('22')) return 'invalid-value';
  return null;
}
