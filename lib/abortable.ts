//! Work that a signal may abandon: the caller stops waiting the moment the signal aborts, while
//! the work itself may still be running and may still fail. Such a late failure is nobody's to
//! handle, and Node ends the process on a rejection nobody handles; so it is observed here.

/**
 * `work`'s outcome, or a rejection with the signal's reason as soon as `signal` aborts (at once
 * when it already has). A rejection of `work` after that is observed and dropped.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
