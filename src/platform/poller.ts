// The claim loop of the job queue and of the webhook outbox: one claim at a time; a request
// made while a claim runs claims again once it ends (what asked may have committed after that
// claim looked); a request for later never postpones one already due sooner; and a poll when
// nothing asks, for work other processes add or that becomes due.
import { performance } from 'node:perf_hooks';

export interface PollerOptions {
  /** Claims and starts what there is room for; answers how many it claimed. */
  claim(): Promise<number>;
  pollMs: number;
  onError(error: unknown): void;
}

export function poller({ claim, pollMs, onError }: PollerOptions) {
  let claiming: Promise<number> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let timerDueAt = 0;
  let running = false;

  function claimNow(): Promise<number> {
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = claim().finally(() => {
      claiming = null;
      if (again) {
        again = false;
        schedule(0);
      }
    });
    return claiming;
  }

  /** Claims after `delay` ms, unless a claim is already set to happen sooner. */
  function schedule(delay: number): void {
    if (!running) return;
    const dueAt = performance.now() + delay;
    if (timer && timerDueAt <= dueAt) return;
    if (timer) clearTimeout(timer);
    timerDueAt = dueAt;
    timer = setTimeout(() => {
      timer = null;
      claimNow()
        .catch(onError)
        .finally(() => {
          if (!timer) schedule(pollMs);
        });
    }, delay);
    timer.unref();
  }

  return {
    /** Claims now, or joins the claim in progress (and claims again after it). */
    claimNow,
    schedule,
    start(): void {
      running = true;
      schedule(0);
    },
    /** Stops polling and waits for the claim in progress. */
    async stop(): Promise<void> {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await claiming?.catch(() => 0);
    },
  };
}
