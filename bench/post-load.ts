// A load generator on a thread of its own: POSTs JSON bodies over HTTPS, `inFlight` at a time,
// and answers the latencies after the warm-up. A generator on the server's own event loop
// (TLS, undici, JSON) took a third of that loop's time from the server it measured.
import { Worker } from 'node:worker_threads';

export interface PostLoad {
  url: string;
  headers: Record<string, string>;
  bodies: readonly unknown[];
  inFlight: number;
  /** The first this many requests are not timed. */
  warmup: number;
  /** The server's certificate, trusted for "localhost". */
  ca: string;
  /** The status every answer must have. */
  status: number;
}

export interface PostLoadResult {
  rate: number;
  p50: number;
  p99: number;
  count: number;
}

/** Runs the load on a worker thread (post-load-worker.mjs) and resolves with its figures. */
export function postInWorker(load: PostLoad): Promise<PostLoadResult> {
  return new Promise((resolve, reject) => {
    // Plain JavaScript: a worker thread on Node 20 does not load TypeScript through tsx.
    const worker = new Worker(new URL('./post-load-worker.mjs', import.meta.url), { workerData: load });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
