//! A workflow for test/workflows/workflow-tracing.test.ts: a local activity, then an activity, and a log line.
import { log, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

interface Seen {
  seen(): Promise<void>;
}
const remote = proxyActivities<Seen>({ startToCloseTimeout: '10s' });
const local = proxyLocalActivities<Seen>({ startToCloseTimeout: '10s' });

export async function carriesTrace(): Promise<void> {
  await local.seen();
  await remote.seen();
  log.info('carried');
}
