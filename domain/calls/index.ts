//! Calls (domain/calls/): what a call leaves behind besides its charge: the asynchronous record and
//! its outcome, the cancellations the running step looks for, the per-call keys, their documents.
export { CALL_ANSWER_RETENTION_MS, CALL_TOMBSTONE_MS, createAsyncCalls, type CallOutcome } from './async-calls.js';
export { createCallCancellations } from './cancellations.js';
export { BatchCounts } from './batch-counts.js';
export type { BatchDoc, BatchItemDoc, CallDoc, RenderCacheDoc } from './documents.js';
export { createCallKeys, type CallKeys } from './keys.js';
