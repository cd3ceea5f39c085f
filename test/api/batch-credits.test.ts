//! A batch whose balance runs short, through HTTP against the running stack: under `stop` (the
//! default) the rest is skipped with insufficient_credits and exactly what succeeded is charged;
//! under `wait` it pauses (batch.paused) and resumes by itself once credits are granted, every
//! item charged once.
import test from 'ava';
import { adminToken, balanceOf, newAccount, request } from '../helpers/api.js';
import { allItems, batchOf, ended, postBatch as post } from '../helpers/batches.js';
import { eventually } from '../helpers/webhook-receiver.js';

test('onInsufficientCredits stop (the default): once the balance cannot cover an item, the rest is skipped with insufficient_credits; exactly what succeeded is charged', async (t) => {
  const account = await newAccount(5);
  const res = await post(account, { tool: 'hash-text', items: Array.from({ length: 15 }, (_, i) => ({ text: `s${i}` })) });
  t.is(res.status, 202);
  const done = await ended(account, res.body.id);
  t.like(done.body, { status: 'completed', charged: 5, counts: { pending: 0, running: 0, succeeded: 5, failed: 0, skipped: 10 } });
  t.is(await balanceOf(account), 0);
  const skipped = await allItems(account, res.body.id, '&status=skipped');
  t.is(skipped.length, 10);
  t.true(skipped.every((i) => i.error?.code === 'insufficient_credits' && i.error.status === 402 && i.output === undefined));
  t.is((await allItems(account, res.body.id, '&status=succeeded')).length, 5);
});

test('onInsufficientCredits wait: the batch pauses (batch.paused in the event log) when the balance runs short, and resumes by itself when credits are granted; every item charged once', async (t) => {
  const account = await newAccount(3);
  const res = await post(account, {
    tool: 'hash-text',
    items: Array.from({ length: 8 }, (_, i) => ({ text: `w${i}` })),
    onInsufficientCredits: 'wait',
  });
  t.is(res.status, 202);
  t.is(res.body.onInsufficientCredits, 'wait');
  // Settled: paused, and the three items that got a credit ended. (An item is marked running only
  // once its call has started, so a call under way can still read as pending for a moment.)
  const paused = await eventually(
    () => batchOf(account, res.body.id),
    (r) => r.body.status === 'paused' && r.body.counts.running === 0 && r.body.counts.succeeded === 3,
    60_000,
    'the batch to pause with three items served',
  );
  t.like(paused.body, { charged: 3, completedAt: null, counts: { succeeded: 3, failed: 0, skipped: 0, running: 0, pending: 5 } });
  t.is(await balanceOf(account), 0);
  // The status is set before the event is recorded: wait for the record.
  const events = await eventually(
    () => request('GET', '/api/v1/account/events?type=batch.paused', { token: account.ownerToken }),
    (r) => r.body.items?.length >= 1,
    60_000,
    'batch.paused recorded',
  );
  t.is(events.body.items.length, 1);
  t.like(events.body.items[0].data, { batchId: res.body.id, status: 'paused', tool: 'hash-text', total: 8 }); // its counts: when it paused, items still running

  const grant = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 10, reason: 'purchase' },
  });
  t.is(grant.status, 200, JSON.stringify(grant.body));
  const done = await ended(account, res.body.id);
  t.like(done.body, { status: 'completed', charged: 8, counts: { pending: 0, running: 0, succeeded: 8, failed: 0, skipped: 0 } });
  t.is(await balanceOf(account), 5, 'each item charged once, the refused attempts not at all');
  const items = await allItems(account, res.body.id);
  t.true(items.every((i) => i.status === 'succeeded'));
});
