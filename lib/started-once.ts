//! Something costly to start (a browser, office listeners, a model's thread), started once: when
//! `after` settles or at its first use, whichever comes first. A restarted worker gives its first
//! seconds to the calls that queued while it was away (workers/caught-up.ts), and a call that
//! needs the thing meanwhile starts it at once.

export interface StartedOnce<T> {
  /** The thing, started now if it was not yet. Throws once stopped. */
  get(): T;
  /** No start after this; returns the thing if it was started, for the caller to close. */
  stop(): T | undefined;
}

/** Without `after`, starts at once. */
export function startedOnce<T>(start: () => T, after?: Promise<unknown>): StartedOnce<T> {
  let started: { value: T } | undefined;
  let stopped = false;
  const get = (): T => {
    if (stopped) throw new Error('stopped before it was started');
    started ??= { value: start() };
    return started.value;
  };
  const startIfRunning = () => {
    if (!stopped) get();
  };
  if (after !== undefined) after.then(startIfRunning, startIfRunning);
  else get();
  return {
    get,
    stop() {
      stopped = true;
      return started?.value;
    },
  };
}
