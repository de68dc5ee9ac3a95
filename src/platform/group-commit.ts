// Group commit, per key, within one process: work for a key runs one batch at a time, and
// what arrives while a batch is in flight joins the next one, so concurrent callers share one
// transaction (and one commit) instead of queueing for the same row lock one by one. A batch
// that fails is run again item by item, so one bad item never fails the others.

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** `run(key, items)` does the work of several callers at once; every caller gets its answer. */
export function groupCommit<T, R>(run: (key: string, items: readonly T[]) => Promise<R>, maxItems = 256) {
  const queues = new Map<string, Waiting<T, R>[]>();

  async function drain(key: string, queue: Waiting<T, R>[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxItems);
      try {
        const result = await run(
          key,
          batch.map((waiting) => waiting.item),
        );
        for (const waiting of batch) waiting.resolve(result);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else for (const waiting of batch) await run(key, [waiting.item]).then(waiting.resolve, waiting.reject);
      }
    }
    queues.delete(key);
  }

  return (key: string, item: T): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const queue = queues.get(key);
      if (queue) return void queue.push({ item, resolve, reject });
      const fresh = [{ item, resolve, reject }];
      queues.set(key, fresh);
      void drain(key, fresh);
    });
}
