//! Runs a service process from its TypeScript sources: registers tsx on the main thread only.
//! `--import tsx` would be inherited by every worker thread, and in the Temporal SDK's workflow
//! threads tsx's CommonJS hook lexes each module the SDK loads (@temporalio/proto's is megabytes):
//! seconds of CPU per thread at every worker start, for threads that run no TypeScript. Thread
//! pools of our own that do run .ts modules register tsx themselves (lib/thread-pool.ts).
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const { register } = await import('tsx/esm/api');
  register();
}
