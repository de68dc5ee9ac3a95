// Catching up with a log, within one process: one run at a time, and callers arriving while a
// run is in flight wait for the next one, which they all share. A run that began before a
// caller arrived may have read the log before what the caller must see (a change it made, a
// snapshot it needs to be past), so it cannot serve that caller; the next run, begun after,
// can. Work that must not overlap a run (reading what the runs keep, putting a rebuilt copy
// in place) takes its turn between runs.

/** `run()` catches up once; every caller of `catchUp()` is served by a run begun after its call. */
export function sharedCatchUp(run: () => Promise<void>) {
  /** Runs and the work between them, one at a time: settles when the last one started does. */
  let turn: Promise<unknown> = Promise.resolve();
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  /** Runs `work` once the runs and work started before it are done, before any started after. */
  function between<T>(work: () => Promise<T>): Promise<T> {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  }

  function catchUp(): Promise<void> {
    if (!running) {
      running = between(run).finally(() => {
        running = null;
      });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return catchUp();
      });
    return queued;
  }

  return {
    catchUp,
    between,
    /** Resolves once the runs and work started so far are done (whether they failed or not). */
    settled: async (): Promise<void> => {
      await turn;
    },
  };
}
