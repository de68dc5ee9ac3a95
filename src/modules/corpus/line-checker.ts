// Checking a bulk batch's lines (article-lines.ts) off the event loop: a batch of 16 MiB is
// parsed, checked and its texts fingerprinted in about 700 ms of CPU, which on the loop would
// hold every other request that long, and on the embedded database (its work runs on the same
// thread) would run between the database's work instead of beside it. Batches of under
// INLINE_CHARS characters are checked in place: a few milliseconds, no thread to start.
// Either way the lines are checked by the same function, so the outcome is the same; and when
// the threads fail, the batch is checked in place.
import path from 'node:path';
import type { Logger } from 'pino';
import { workerPool } from '../../platform/workers/worker-pool.js';
import { type CheckedLine, checkedLines, receivedLine, type SentLine } from './article-lines.js';
import type { LineCheckingTask } from './line-checking.worker.js';

/** Lines of fewer characters in all are checked on the loop (about 6 ms at most). */
const INLINE_CHARS = 256 * 1024;
/** Lines per task: a batch is shared among the threads in slices this long, answered in order. */
const SLICE_LINES = 500;

export interface LineChecker {
  /** The lines checked and their texts read, numbered from 1; blank lines dropped. */
  check(lines: readonly string[]): Promise<CheckedLine[]>;
  close(): Promise<void>;
}

export function lineChecker(logger: Logger): LineChecker {
  // The task's module as this process runs it: the sources (.ts, through tsx) or the build (.js).
  const module = new URL(`./line-checking.worker${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url);
  const pool = workerPool<LineCheckingTask, SentLine[]>(module, (error) =>
    logger.error({ err: error }, 'worker threads for bulk lines cannot start; bulk lines are checked on the event loop from now on'),
  );
  return {
    async check(lines) {
      let chars = 0;
      for (const line of lines) chars += line.length;
      if (chars < INLINE_CHARS) return checkedLines(lines);
      const slices: Promise<SentLine[]>[] = [];
      for (let at = 0; at < lines.length; at += SLICE_LINES) slices.push(pool.run({ lines: lines.slice(at, at + SLICE_LINES), first: at + 1 }));
      try {
        return (await Promise.all(slices)).flat().map(receivedLine);
      } catch (error) {
        // A thread that died, or none that can start: the same answer, on the loop.
        await Promise.allSettled(slices);
        logger.warn({ err: error }, 'checking bulk lines in a worker thread failed; checked on the event loop');
        return checkedLines(lines);
      }
    },
    close: () => pool.close(),
  };
}
