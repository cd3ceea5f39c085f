//! Run by a Temporal Schedule every few minutes: one sweep of expired state.
import { proxyActivities } from '@temporalio/workflow';
import type { CoreActivities } from '../activities/core/index.js';

const { sweep } = proxyActivities<CoreActivities>({ startToCloseTimeout: '5m', retry: { maximumAttempts: 3 } });

export async function sweeper() {
  // The workflow's clock: retention follows the time a test server skips, and is the real time otherwise.
  return sweep(Date.now());
}
