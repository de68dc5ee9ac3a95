// How many requests the process is serving now: the web layer counts them in and out, and
// background work that shares the thread with them (the search index's build) asks whether any
// are waiting, without importing the web framework.

export interface RequestsInFlight {
  /** Counts one request in; the answer counts it out (once, however often it is called). */
  enter(): () => void;
  /** True while a request is being served. */
  any(): boolean;
}

export function requestsInFlight(): RequestsInFlight {
  let serving = 0;
  return {
    enter() {
      serving += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        serving -= 1;
      };
    },
    any: () => serving > 0,
  };
}
