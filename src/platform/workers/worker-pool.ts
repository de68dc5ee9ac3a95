// Worker threads for work that would hold the event loop for long (a bulk request's 10,000
// lines parsed, checked and fingerprinted take about 700 ms of CPU): Piscina runs the default
// export of a module in up to one thread fewer than the machine has cores (at least one, at
// most MAX_THREADS), started at the first task and let go after IDLE_MS idle. The loop keeps
// answering other requests meanwhile, and on the embedded database, which works on the loop's
// own thread, the task runs beside the database's work instead of between it.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

export interface WorkerPool<Task, Result> {
  /** The task's result; rejects when the task fails, or when the pool cannot start a thread (onBroken). */
  run(task: Task): Promise<Result>;
  /** Lets the threads go (running tasks finish first, for at most Piscina's 30 s). */
  close(): Promise<void>;
}

/** A thread waits this long for the next task before it is let go (starting one costs 0.3 to 1 s of CPU). */
const IDLE_MS = 10 * 60_000;
/** Threads at most, whatever the machine (Node 20 counts the host's cores, not a container's quota). */
const MAX_THREADS = 4;

/**
 * A pool running `module`'s default export, a function of one task (both sides
 * structured-cloned). When a thread cannot start (its module fails to load), the pool is
 * broken for good: `onBroken` hears why, the tasks waiting are rejected, and so is every later
 * one, so the caller does the work itself.
 */
export function workerPool<Task, Result>(module: URL, onBroken: (error: unknown) => void): WorkerPool<Task, Result> {
  // Sources run through tsx (their own URL ends in .ts) start the module through tsx-worker.mjs.
  const fromSources = module.pathname.endsWith('.ts');
  const pool = new Piscina({
    filename: fileURLToPath(fromSources ? new URL('./tsx-worker.mjs', import.meta.url) : module),
    workerData: fromSources ? { module: module.href } : undefined,
    minThreads: 0,
    maxThreads: Math.min(MAX_THREADS, Math.max(1, os.availableParallelism() - 1)),
    idleTimeout: IDLE_MS,
  });
  let broken: unknown = null;
  const waiting = new AbortController();
  // Piscina says so on the pool when a thread fails with no task to blame (unheard, the
  // process would exit), and starts no other thread: the tasks waiting would never settle.
  pool.on('error', (error: unknown) => {
    if (broken !== null) return;
    broken = error ?? new Error('a worker thread failed to start');
    waiting.abort(broken);
    onBroken(broken);
  });
  return {
    run: (task) => (broken !== null ? Promise.reject(broken) : (pool.run(task, { signal: waiting.signal }) as Promise<Result>)),
    close: () => pool.close().catch(() => pool.destroy()),
  };
}
