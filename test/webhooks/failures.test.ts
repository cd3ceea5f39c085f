//! Failed deliveries against the running stack: a receiver that fails then recovers (the count
//! goes up, then resets), one slower than the 10 s wait, a redirect (a failure, not followed),
//! and the 20th consecutive failure disabling the endpoint until it is re-enabled.
import test from 'ava';
import { newAccount, request, type TestAccount } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { attemptsOf, endpointOf, eventually, registerEndpoint, sendTest, sleep } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';

const receiver = receiverForFile();

/** The endpoint once its count of consecutive failures is `n`. */
const endpointAtCount = (account: TestAccount, endpointId: string, n: number, timeoutMs: number) =>
  eventually(
    () => endpointOf(account, endpointId),
    (e) => e.consecutiveFailures === n,
    timeoutMs,
    `a count of ${n}`,
  );

/** The endpoint's attempts, newest first, once `count` of them are recorded (`atLeast`: or more). */
const attemptsRecorded = (account: TestAccount, endpointId: string, count: number, options: { atLeast?: boolean } = {}) =>
  eventually(
    () => attemptsOf(account, endpointId),
    (rows) => (options.atLeast ? rows.length >= count : rows.length === count),
    60_000,
    `${count} attempts recorded`,
  );

test('a receiver that fails, then recovers: the count goes up, then resets; each attempt is listed with its status code', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/flaky'));
  // Each event's first attempt fails, its retry (5 s later) succeeds: decided per event, not by a
  // flag the test flips, so a slow test cannot let a retry fail too. The retry answers after 6 s,
  // inside the 10 s wait: the count of 2 then stands for about 11 s, long enough to be read on a
  // busy machine before the first success resets it.
  const failedOnce = new Set<string>();
  receiver.behave('/flaky', (d) => {
    if (failedOnce.has(d.body?.id)) return { status: 200, delayMs: 6_000 };
    failedOnce.add(d.body?.id);
    return { status: 500 };
  });
  const ids = [await sendTest(account, endpoint.id), await sendTest(account, endpoint.id)];
  await receiver.waitFor(
    (all) => new Set(all.filter((d) => d.path === '/flaky').map((d) => d.body.id)).size === 2,
    20_000,
    'both first attempts',
  );
  const counted = await endpointAtCount(account, endpoint.id, 2, 30_000);
  t.like(counted, { status: 'active', consecutiveFailures: 2 });

  await receiver.waitFor(
    (all) => all.filter((d) => d.path === '/flaky' && d.answered === 200).length === 2,
    60_000,
    'both retries delivered',
  );
  const reset = await endpointAtCount(account, endpoint.id, 0, 60_000);
  t.like(reset, { status: 'active', consecutiveFailures: 0 });

  // The receiver has the second retry before its attempt is written: wait for the record.
  const attempts = await attemptsRecorded(account, endpoint.id, 4, { atLeast: true });
  t.is(attempts.length, 4);
  t.deepEqual(
    attempts.map((a) => [a.statusCode, a.success]),
    [
      [200, true],
      [200, true],
      [500, false],
      [500, false],
    ],
    'newest first',
  );
  for (const id of ids) t.is(attempts.filter((a) => a.eventId === id).length, 2);
  t.is(attempts[3].error, 'The receiver answered HTTP 500.');
  // A retry is signed afresh and still verifies; each event delivered once.
  const delivered = receiver.deliveries('/flaky').filter((d) => d.answered === 200);
  t.deepEqual(delivered.map((d) => d.body.id).sort(), [...ids].sort());
  for (const d of delivered) t.true(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt));
  const retried = receiver.deliveries('/flaky').filter((d) => d.body.id === ids[0]);
  t.true(retried[1]!.receivedAt - retried[0]!.receivedAt >= 4500, 'the retry waited about 5 s');
});

test('a receiver slower than 10 s counts as failed, with no status code', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/slow'));
  // The first answer would come after 15 s: well past the 10 s wait, even on a busy machine. The
  // retry's comes after 6 s (inside the wait), so the count of 1 stands long enough to be read.
  receiver.behave('/slow', (_d, n) => (n === 1 ? { status: 200, delayMs: 15_000 } : { status: 200, delayMs: 6_000 }));
  const eventId = await sendTest(account, endpoint.id);
  const first = (await attemptsRecorded(account, endpoint.id, 1, { atLeast: true })).at(-1);
  t.like(first, { eventId, success: false, statusCode: null });
  // It would have been a success (200) had the attempt waited for the answer at 15 s.
  t.true(first.durationMs >= 9_500, `gave up after ${first.durationMs} ms`);
  t.is(typeof first.error, 'string');
  await endpointAtCount(account, endpoint.id, 1, 30_000);
  // The retry, 5 s later, is answered within the wait and delivered; the count resets.
  const rows = await attemptsRecorded(account, endpoint.id, 2);
  t.like(rows[0], { eventId, success: true, statusCode: 200 });
  await endpointAtCount(account, endpoint.id, 0, 60_000);
  t.pass();
});

test('a 3xx answer is a failure and the redirect is not followed', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/moved'));
  // The retry's answer comes after 6 s (inside the 10 s wait), so the count of 1 stands long enough to be read.
  receiver.behave('/moved', (_d, n) =>
    n === 1 ? { status: 302, headers: { location: receiver.url('/moved-here') } } : { status: 200, delayMs: 6_000 },
  );
  const eventId = await sendTest(account, endpoint.id);
  const first = (await attemptsRecorded(account, endpoint.id, 1, { atLeast: true })).at(-1);
  t.like(first, { eventId, success: false, statusCode: 302, error: 'The receiver answered HTTP 302.' });
  t.like(await endpointAtCount(account, endpoint.id, 1, 30_000), { status: 'active' });
  const rows = await attemptsRecorded(account, endpoint.id, 2);
  t.like(rows[0], { eventId, success: true, statusCode: 200 });
  t.deepEqual(receiver.deliveries('/moved-here'), [], 'the Location was never requested');
});

test('the 20th consecutive failure disables the endpoint; nothing more is posted until it is re-enabled', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/down'));
  let down = true;
  // Every answer waits until all 25 events were handed to the endpoint: the 20 failures (first
  // attempts and the retries they schedule, in whatever order) cannot disable it before that.
  let release!: () => void;
  const handedOver = new Promise<void>((resolve) => (release = resolve));
  receiver.behave('/down', () => ({ status: down ? 503 : 204, after: handedOver }));
  const eventIds = await Promise.all(Array.from({ length: 25 }, () => sendTest(account, endpoint.id)));
  await eventually(
    () =>
      withServiceDb((db) => db.collection('events').countDocuments({ _id: { $in: eventIds as never[] }, fannedOutAt: { $type: 'date' } })),
    (n) => n === eventIds.length,
    60_000,
    'all 25 handed over',
  );
  release();
  const disabled = await eventually(
    () => endpointOf(account, endpoint.id),
    (e) => e.status === 'disabled',
    60_000,
    'disabled',
  );
  t.is(disabled.consecutiveFailures, 20);
  t.truthy(Date.parse(disabled.disabledAt));
  await sleep(2000);
  t.is(receiver.deliveries('/down').length, 20, 'exactly 20 attempts were posted');
  const attempts = await attemptsOf(account, endpoint.id, 200);
  t.is(attempts.length, 20);
  // 503s, or, for the first ones, the attempt's own wait if the hand-over outlasted it: failures both.
  t.true(attempts.every((a) => !a.success && (a.statusCode === 503 || a.statusCode === null)));

  // While disabled, new events are not posted.
  await sendTest(account, endpoint.id);
  await sleep(3000);
  t.is(receiver.deliveries('/down').length, 20);

  // Every delivery still pending when it was disabled ended undelivered, with why. (The event sent
  // since was not handed to it at all: events go to active endpoints only.)
  const undelivered = await withServiceDb((db) => db.collection('webhook_undelivered').find({ endpointId: endpoint.id }).toArray());
  t.is(undelivered.length, 25);
  t.true(undelivered.every((u) => u.reason === 'endpoint_disabled'));

  // Re-enabled: count 0, deliveries resume; the ended ones are not revived.
  down = false;
  const enabled = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/enable`, { token: account.ownerToken });
  t.is(enabled.status, 200);
  t.like(enabled.body, { id: endpoint.id, status: 'active', consecutiveFailures: 0, disabledAt: null });
  const eventId = await sendTest(account, endpoint.id);
  await receiver.waitFor(
    (all) => all.some((d) => d.path === '/down' && d.body.id === eventId && d.answered === 204),
    60_000,
    'delivery after re-enable',
  );
  await sleep(2000);
  t.is(receiver.deliveries('/down').length, 21, 'only the new event was posted');
  t.like(await endpointOf(account, endpoint.id), { status: 'active', consecutiveFailures: 0, disabledAt: null });
});
