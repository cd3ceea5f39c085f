//! A monitor of an account out of credits: its run is refused free (the reserve holds nothing, no
//! call is charged), the monitor and its schedule pause with `stateReason: insufficient_credits`
//! and one `monitor.paused`; once credits are granted its owner resumes it and its runs are calls
//! again. And its monthly credit cap, held as a key's: past it the same pause, for that reason.
import test from 'ava';
import { adminToken, balanceOf, newAccount, request } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';
import { createMonitor, delivered, monitorEndpoint, monitorUsage, readMonitor, runsOf, settled } from './support.js';

const EVERY_SECOND_HASH = {
  name: 'Hash every second',
  tool: 'hash-text',
  input: { text: 'credits' },
  schedule: { every: '1s' },
  assertions: [{ path: '/algorithm', op: 'eq', value: 'sha256' }],
  alert: { notify: [] },
};

const schedulePaused = (id: string) =>
  withTemporalClient(async (client) => (await client.schedule.getHandle(`monitor-${id}`).describe()).state.paused);

test('an account at 0 credits pauses its monitor with nothing charged; resumed after a grant, its runs are charged calls again', async (t) => {
  t.timeout(2 * 60_000);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const account = await newAccount(0);
  await monitorEndpoint(account, receiver, '/credits');
  const monitor = await createMonitor(account, EVERY_SECOND_HASH);

  const paused = await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'paused',
    60_000,
    'the monitor paused',
  );
  t.is(paused.stateReason, 'insufficient_credits');
  t.is(paused.nextRunAt, null);
  await eventually(
    () => schedulePaused(monitor.id),
    (p) => p,
    30_000,
    'its schedule paused with it',
  );
  await settled(account, monitor.id);
  const runs = await runsOf(account, monitor.id);
  t.true(runs.length >= 1);
  t.like(runs.at(-1), { outcome: 'error', charged: 0, durationMs: 0, state: 'paused', error: { code: 'insufficient_credits' } });
  t.deepEqual(await monitorUsage(account, monitor.id), [], 'no call was charged or even held');
  t.is(await balanceOf(account), 0);
  const pausedEvents = await eventually(
    async () => delivered(receiver, '/credits', 'monitor.paused'),
    (d) => d.length >= 1,
    30_000,
    'monitor.paused',
  );
  t.is(pausedEvents.length, 1, 'one monitor.paused, however many runs were refused');
  t.like(pausedEvents[0].data, { monitorId: monitor.id, state: 'paused', reason: 'insufficient_credits' });

  const granted = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 10, reason: 'manual_adjustment' },
  });
  t.is(granted.status, 200);
  const resumed = await request('PATCH', `/api/v1/account/monitors/${monitor.id}`, { token: account.ownerToken, body: { paused: false } });
  t.like(resumed.body, { state: 'pending', stateReason: null });
  await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'up',
    60_000,
    'the monitor up',
  );
  // It runs on until the 10 credits are spent, then pauses again: every charged run is one of its calls.
  await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'paused',
    60_000,
    'paused again at 0',
  );
  await settled(account, monitor.id);
  const usage = await monitorUsage(account, monitor.id);
  t.is(usage.length, 10, 'ten runs charged, one credit each');
  t.is(await balanceOf(account), 0);
  t.is((await runsOf(account, monitor.id)).filter((r) => r.charged === 1).length, 10);
});

test("a monitor's monthly credit cap stops its runs, free, and pauses it as monitor_credit_limit", async (t) => {
  const account = await newAccount(100);
  const monitor = await createMonitor(account, { ...EVERY_SECOND_HASH, monthlyCreditLimit: 3 });
  const paused = await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'paused',
    60_000,
    'the monitor paused',
  );
  t.is(paused.stateReason, 'monitor_credit_limit');
  await settled(account, monitor.id);
  t.is((await monitorUsage(account, monitor.id)).length, 3, 'exactly its cap was spent');
  t.is(await balanceOf(account), 97);
});
