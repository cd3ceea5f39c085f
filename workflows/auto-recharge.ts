//! One per account (id `auto-recharge-<accountId>`), woken by a charge that took the balance below
//! the account's threshold (domain/billing/recharge-trigger.ts): runs its recharges one at a time.
//! A recharge is claimed and paid for by an activity, then awaited until its event settles it (the
//! Stripe event's activity signals it; without a signal it looks every few minutes), for at most a
//! day. It ends when no wake is left, and continues as new after many recharges.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, uuid4 } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/core/billing.js';
import { AUTO_RECHARGE_SIGNALS, type AutoRechargeInput } from '../contracts/billing-messages.js';

const { beginRecharge, rechargeSettled, releaseRecharge } = proxyActivities<BillingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export const rechargeDueSignal = defineSignal(AUTO_RECHARGE_SIGNALS.due);
export const rechargeSettledSignal = defineSignal<[string]>(AUTO_RECHARGE_SIGNALS.settled);

/** How long a signal is waited for before the recharge's state is read instead. */
const LOOK_EVERY = '5 minutes';
/** Looks before a recharge whose event never came frees its slot (a day). */
const LOOKS = 288;
/** Recharges before the workflow continues as new. */
const RECHARGES_PER_RUN = 50;

export async function autoRecharge(input: AutoRechargeInput): Promise<number> {
  let due = false;
  const settled = new Set<string>();
  setHandler(rechargeDueSignal, () => {
    due = true;
  });
  setHandler(rechargeSettledSignal, (rechargeId) => {
    settled.add(rechargeId);
  });
  let rounds = 0;
  while (due && rounds < RECHARGES_PER_RUN) {
    due = false;
    rounds++;
    const step = { accountId: input.accountId, rechargeId: `rch_${uuid4().replaceAll('-', '')}` };
    const start = await beginRecharge(step);
    if (!start.started || start.settled) continue;
    let looks = 0;
    while (!settled.has(step.rechargeId) && !(await rechargeSettled(step))) {
      if (++looks > LOOKS) {
        await releaseRecharge(step);
        break;
      }
      await condition(() => settled.has(step.rechargeId), LOOK_EVERY);
    }
  }
  if (due) await continueAsNew<typeof autoRecharge>(input);
  return rounds;
}
