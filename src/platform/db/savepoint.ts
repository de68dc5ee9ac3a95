// A part of a transaction that can fail on its own: work runs inside a savepoint, released when
// it succeeds and rolled back to when it throws, so the transaction goes on without it.
import type { Queryable } from './database.js';

/**
 * Runs `work` inside savepoint `name` (a plain SQL identifier) of `tx`. On an error the
 * transaction is rolled back to the savepoint and the error thrown again. If the rollback
 * itself fails (the connection lost, say), its error is thrown instead: the caller must not
 * take the transaction for usable and go on.
 */
export async function inSavepoint<T>(tx: Queryable, name: string, work: () => Promise<T>): Promise<T> {
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const result = await work();
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}
