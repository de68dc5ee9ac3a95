// Worker threads for work that would hold the event loop for long (a bulk request's 10,000
// lines parsed, checked and fingerprinted take about 700 ms of CPU): Piscina runs the default
// export of a module in up to one thread fewer than the machine has cores (at least one),
// started at the first task and let go after a minute idle. The loop keeps answering other
// requests meanwhile, and on the embedded database, which works on the loop's own thread, the
// task runs beside the database's work instead of between it.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

export interface WorkerPool<Task, Result> {
  run(task: Task): Promise<Result>;
  /** Lets the threads go (running tasks finish first). */
  close(): Promise<void>;
}

const IDLE_MS = 60_000;

/** A pool running `module`'s default export, a function of one task (both sides structured-cloned). */
export function workerPool<Task, Result>(module: URL): WorkerPool<Task, Result> {
  // Sources run through tsx (their own URL ends in .ts) start the module through tsx-worker.mjs.
  const fromSources = module.pathname.endsWith('.ts');
  const pool = new Piscina({
    filename: fileURLToPath(fromSources ? new URL('./tsx-worker.mjs', import.meta.url) : module),
    workerData: fromSources ? { module: module.href } : undefined,
    minThreads: 0,
    maxThreads: Math.max(1, os.availableParallelism() - 1),
    idleTimeout: IDLE_MS,
  });
  return {
    run: (task) => pool.run(task) as Promise<Result>,
    close: () => pool.close(),
  };
}
