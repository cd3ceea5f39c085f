//! Batches (domain/batches/): the records (`batches.ts`), how their items move on (`progress.ts`)
//! and waking an account's runner (`wake.ts`).
export { Batch, MAX_BATCH_ITEMS, batchItemId, batchView, createBatches, type NewBatchItem } from './batches.js';
export { createBatchProgress, type BatchItemOutcome } from './progress.js';
export { resumingOnGrant, wakeBatchRunner } from './wake.js';
