//! Run by a Temporal Schedule every few minutes: grants the monthly allowances that are due and lets
//! lapsed grants expire, in passes of a bounded size until nothing is due.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { CoreActivities } from '../activities/core/index.js';

const { runAllowances } = proxyActivities<CoreActivities>({ startToCloseTimeout: '10m', retry: { maximumAttempts: 3 } });

/** Passes before the history is started afresh (each pass is one activity: a few events). */
const PASSES_PER_RUN = 100;

export interface AllowancesResult {
  granted: number;
  expired: number;
  passes: number;
}

export async function allowances(): Promise<AllowancesResult> {
  // The workflow's clock: periods follow the time a test server skips, and are the real time otherwise.
  const now = Date.now();
  const total: AllowancesResult = { granted: 0, expired: 0, passes: 0 };
  for (;;) {
    const pass = await runAllowances(now);
    total.granted += pass.granted;
    total.expired += pass.expired;
    total.passes++;
    if (!pass.more) return total;
    if (total.passes >= PASSES_PER_RUN) await continueAsNew<typeof allowances>();
  }
}
