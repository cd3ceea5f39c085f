//! Whether this worker is running single calls (any call that is not a batch item) or ran one in
//! the last moment. A batch's ending item reads it before it starts the next one: while someone
//! waits on a call here, bulk work yields to it (activities/batch-items.ts).

/** How long after a single call ended its worker still counts as busy with them: the gap between a client's calls. */
export const SINGLE_CALL_QUIET_MS = 1_000;

export function createSingleCalls(now: () => number = () => performance.now(), quietMs = SINGLE_CALL_QUIET_MS) {
  let running = 0;
  let lastEnded = Number.NEGATIVE_INFINITY;
  return {
    /** Runs a single call's step, counted while it runs and for `quietMs` after. */
    async during<T>(step: () => Promise<T>): Promise<T> {
      running += 1;
      try {
        return await step();
      } finally {
        running -= 1;
        lastEnded = now();
      }
    },
    busy(): boolean {
      return running > 0 || now() - lastEnded < quietMs;
    },
  };
}

export type SingleCalls = ReturnType<typeof createSingleCalls>;
