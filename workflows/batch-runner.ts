//! One per account with batches (id `batch-runner-<accountId>`): keeps at most BATCH_CONCURRENCY of
//! the account's batch items running, all its batches together. It only counts and wakes: each
//! wake (a batch was made or cancelled, credits arrived, an item ended with nothing to hand its slot
//! on to) runs one activity that fills the free slots from the database (activities/core/batches.ts),
//! so items' inputs and outputs never enter its history. While a batch has items left, an ending
//! item starts the next one itself (activities/batch-items.ts): the runner fills the slots at the
//! start and looks again when its items stop handing on, or every 30 s. It ends when nothing is
//! running, waiting or paused, and continues as new long before its history grows large.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/core/batches.js';
import { BATCH_RUNNER_WAKE, type BatchRunnerInput } from '../contracts/batch.js';

/**
 * A fill reads and writes the database and starts calls: retried until both answer. It heartbeats
 * while it runs, so a fill whose worker died is retried within the heartbeat timeout (the chaos run's
 * killed workers stalled a batch for the whole start-to-close timeout without it), while a fill that
 * waits on the database is not run twice beside itself.
 */
const { fillBatchSlots } = proxyActivities<BatchActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

export const wakeSignal = defineSignal(BATCH_RUNNER_WAKE);

/** Without a wake, a fill runs this often anyway: an item whose wake was lost costs at most this. */
const RECHECK = '30 seconds';
/** While only paused batches are left, how often their account's balance is looked at. */
const PAUSED_RECHECK_MS = 60_000;
/** Events before the runner continues as new: far below Temporal's 50,000 (and its warning at 10,240). */
const MAX_HISTORY_EVENTS = 5_000;

export async function batchRunner(input: BatchRunnerInput): Promise<void> {
  let woken = true;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  for (;;) {
    woken = false;
    const fill = await fillBatchSlots(input.accountId);
    const idle = fill.running === 0 && fill.waiting === 0;
    if (idle && fill.wakeAt === undefined) {
      // Nothing left. A wake that arrived meanwhile (a new batch) is a reason to look again.
      if (!woken) return;
      continue;
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > (input.maxHistoryEvents ?? MAX_HISTORY_EVENTS)) {
      await continueAsNew<typeof batchRunner>(input);
    }
    if (woken) continue;
    const wait = idle ? Math.max(1_000, Math.min(PAUSED_RECHECK_MS, fill.wakeAt! - Date.now())) : RECHECK;
    await condition(() => woken, wait);
  }
}
