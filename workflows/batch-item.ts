//! The last step of a batch item's call whose call step did not record it (one started before steps
//! recorded their items, replayed so): record its outcome on the item and hand its slot on to the
//! next item of its batch, or tell the account's batch runner the slot is free
//! (activities/batch-items.ts), as a local activity on whichever worker runs the call.
import { proxyLocalActivities } from '@temporalio/workflow';
import type { BatchItemActivities } from '../activities/batch-items.js';

/** A few writes and a start or a signal; retried until the database and Temporal answer, like the ledger steps. */
export const { recordBatchItem: finishBatchItem } = proxyLocalActivities<BatchItemActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});
