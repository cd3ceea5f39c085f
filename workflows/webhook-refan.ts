//! Run by a Temporal Schedule every minute: re-sends events whose webhook fan-out did not finish.
import { proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/core/webhooks.js';

const { refanWebhookEvents } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '5m', retry: { maximumAttempts: 3 } });

export async function webhookRefan(): Promise<number> {
  return refanWebhookEvents();
}
