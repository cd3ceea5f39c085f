//! Repeating a step through a dependency's outage (Temporal or the database restarting) until a
//! deadline: the caller's answer waits for the dependency rather than failing at its first blip.

/** Pause between attempts (each attempt already carries the client's own retries). */
export const RETRY_PAUSE_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt`, repeating it every RETRY_PAUSE_MS while it fails and `deadline` (epoch ms)
 * allows. `settle` judges each failure: it returns an answer, throws (not an outage: no retry),
 * or returns undefined to go on; `final` tells it no retry is left, and then `giveUp(err)` is
 * thrown (the failure itself unless the caller words it).
 */
export async function untilDeadline<T>(
  deadline: number,
  attempt: () => Promise<T>,
  settle: (err: unknown, final: boolean) => T | undefined,
  giveUp: (err: unknown) => unknown = (err) => err,
): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      const final = Date.now() >= deadline - RETRY_PAUSE_MS;
      const answer = settle(err, final);
      if (answer !== undefined) return answer;
      if (final) throw giveUp(err);
      await sleep(RETRY_PAUSE_MS);
    }
  }
}
