//! What a receiver gets, against the running stack: credits.low once with a signature that
//! verifies (with the package's helper and with a plain HMAC), the contract's headers and
//! envelope, the other account events, no event of one account at another account's endpoint,
//! an event left unsent re-sent by the scheduled sweep, and API calls that never wait for a webhook.
import test from 'ava';
import { createHmac } from 'node:crypto';
import { adminToken, callTool, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { WEBHOOK_REFAN_SCHEDULE_ID } from '../../domain/upkeep-schedules.js';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { attemptsOf, eventually, registerEndpoint, sendTest, sleep, type Delivery } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';

const receiver = receiverForFile();

const ofEvent = (path: string, event: string) => (all: Delivery[]) => all.filter((d) => d.path === path && d.body?.event === event);

/** Calls hash-text (1 credit) `n` times, one after another; each must answer 200. */
async function spend(apiKey: string, n: number): Promise<number[]> {
  const remaining: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await callTool(apiKey, 'hash-text', { text: `spend ${i}` });
    if (res.status !== 200) throw new Error(`hash-text answered ${res.status}: ${JSON.stringify(res.body)}`);
    remaining.push(Number(res.headers.get('x-credits-remaining')));
  }
  return remaining;
}

test('credits.low is delivered exactly once, signed so that verifyWebhook and a plain HMAC both accept it, with every header and the envelope of the contract', async (t) => {
  const account = await newAccount(30);
  const endpoint = await registerEndpoint(account, receiver.url('/low'));
  // 30 -> 20 one credit at a time: the 6th call takes the balance from 25 to 24 and crosses.
  const remaining = await spend(account.apiKey, 10);
  t.deepEqual(remaining, [29, 28, 27, 26, 25, 24, 23, 22, 21, 20]);
  const [low] = ofEvent(
    '/low',
    'credits.low',
  )(await receiver.waitFor((all) => ofEvent('/low', 'credits.low')(all).length > 0, 20_000, 'credits.low'));
  const d = low!;

  // Method, headers.
  t.is(d.method, 'POST');
  t.is(d.headers['content-type'], 'application/json');
  t.is(d.headers['x-service-event'], 'credits.low');
  t.is(d.headers['x-service-event-id'], d.body.id);
  t.regex(d.headers['user-agent'] ?? '', /^UtilityTools-Webhooks\/\d/);
  const timestamp = d.headers['x-service-timestamp'] as string;
  t.regex(timestamp, /^\d{10}$/, 'Unix seconds');
  t.true(Math.abs(Number(timestamp) - d.receivedAt / 1000) < 5, 'signed just now');
  const signature = d.headers['x-service-signature'] as string;
  t.regex(signature, /^sha256=[0-9a-f]{64}$/);

  // The signature, two ways: the package's helper, and HMAC-SHA256 of "<timestamp>.<raw body>" by hand.
  t.true(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt));
  const expected = 'sha256=' + createHmac('sha256', endpoint.secret).update(`${timestamp}.${d.rawBody}`).digest('hex');
  t.is(signature, expected);
  t.false(
    verifyWebhook(endpoint.secret, d.headers, d.rawBody.replace('"balance":24', '"balance":25'), d.receivedAt),
    'a changed body fails',
  );
  t.false(
    verifyWebhook(
      endpoint.secret.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      d.headers,
      d.rawBody,
      d.receivedAt,
    ),
    'another secret fails',
  );
  t.false(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt + 300_000), 'stale after 300 s');

  // The envelope.
  t.deepEqual(Object.keys(d.body), ['id', 'event', 'createdAt', 'data']);
  t.regex(d.body.id, /^evt_/);
  t.is(d.body.event, 'credits.low');
  t.regex(d.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  t.true(Math.abs(Date.parse(d.body.createdAt) - d.receivedAt) < 20_000);
  t.deepEqual(Object.keys(d.body.data).sort(), ['balance', 'message', 'threshold']);
  t.like(d.body.data, { balance: 24, threshold: 25 });
  t.is(typeof d.body.data.message, 'string');

  // Exactly once: later calls below the threshold fire nothing more; one attempt, a success.
  await spend(account.apiKey, 3);
  await sleep(3000);
  t.is(ofEvent('/low', 'credits.low')(receiver.deliveries()).length, 1);
  // The receiver has the delivery before its attempt is written: wait for the record, then count.
  const lowAttempts = (rows: UncheckedJson[]) => rows.filter((a) => a.event === 'credits.low');
  const attempts = lowAttempts(
    await eventually(
      () => attemptsOf(account, endpoint.id),
      (rows) => lowAttempts(rows).length >= 1,
      60_000,
      'the attempt recorded',
    ),
  );
  t.is(attempts.length, 1);
  t.like(attempts[0], { eventId: d.body.id, success: true, statusCode: 200 });
});

test('calls racing across 25 fire credits.low once: one delivery', async (t) => {
  const account = await newAccount(30);
  const endpoint = await registerEndpoint(account, receiver.url('/low-race'));
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => callTool(account.apiKey, 'hash-text', { text: `race ${i}` })));
  t.true(answers.every((a) => a.status === 200));
  await receiver.waitFor((all) => ofEvent('/low-race', 'credits.low')(all).length > 0, 20_000, 'credits.low');
  await sleep(3000);
  const lows = ofEvent('/low-race', 'credits.low')(receiver.deliveries());
  t.is(lows.length, 1);
  t.true(lows[0]!.body.data.balance < 25 && lows[0]!.body.data.balance >= 18);
  t.true(verifyWebhook(endpoint.secret, lows[0]!.headers, lows[0]!.rawBody, lows[0]!.receivedAt));
});

test('an event recorded but never handed to delivery (a crash in between) is re-sent by the scheduled sweep, once', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/swept'));
  // What a process that died right after recording leaves behind: the event, without `fannedOutAt`,
  // old enough for the sweep (30 s); the endpoint existed before it.
  const eventId = `evt_swept${Date.now()}`;
  await withServiceDb(async (db) => {
    await db
      .collection('webhook_endpoints')
      .updateOne({ _id: endpoint.id as never }, { $set: { createdAt: new Date(Date.now() - 120_000) } });
    await db.collection('events').insertOne({
      _id: eventId as never,
      accountId: account.id,
      event: 'api_key.created',
      createdAt: new Date(Date.now() - 40_000),
      data: { keyId: 'key_swept', name: 'swept', prefix: 'utk_swept000' },
    });
  });
  // The sweep runs every minute; run it now, so where that minute stands decides nothing.
  await withTemporalClient((client) => client.schedule.getHandle(WEBHOOK_REFAN_SCHEDULE_ID).trigger(ScheduleOverlapPolicy.ALLOW_ALL));
  const [d] = (await receiver.waitFor((all) => all.some((x) => x.body?.id === eventId), 100_000, 'the swept event')).filter(
    (x) => x.body?.id === eventId,
  );
  t.like(d!.body, { id: eventId, event: 'api_key.created', data: { keyId: 'key_swept' } });
  t.true(verifyWebhook(endpoint.secret, d!.headers, d!.rawBody, d!.receivedAt));
  // Marked once every signal went through, which the delivery can overtake.
  const marked = await eventually(
    () => withServiceDb((db) => db.collection('events').findOne({ _id: eventId as never })),
    (e) => Boolean(e?.fannedOutAt),
    60_000,
    'the event marked',
  );
  t.truthy(marked?.fannedOutAt, 'marked as fanned out, so the next sweep leaves it');
  t.is(receiver.deliveries('/swept').filter((x) => x.body?.id === eventId).length, 1);
});

test('credits.exhausted, credits.granted, api_key.created and api_key.revoked reach the endpoint with their data', async (t) => {
  const account = await newAccount(3);
  const endpoint = await registerEndpoint(account, receiver.url('/account-events'));
  await spend(account.apiKey, 3);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'refused' })).status, 402);
  const granted = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 10, reason: 'purchase' },
  });
  t.is(granted.status, 200);
  const key = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'ci' } });
  t.is(key.status, 201);
  t.is((await request('DELETE', `/api/v1/account/keys/${key.body.id}`, { token: account.ownerToken })).status, 200);

  const kinds = ['credits.exhausted', 'credits.granted', 'api_key.created', 'api_key.revoked'];
  const all = await receiver.waitFor((got) => kinds.every((k) => ofEvent('/account-events', k)(got).length > 0), 30_000, kinds.join(', '));
  const mine = all.filter((d) => d.path === '/account-events');
  t.deepEqual(mine.map((d) => d.body.event).sort(), [...kinds].sort(), 'each once, and nothing else (no credits.low: it started below 25)');
  const by = (k: string) => mine.find((d) => d.body.event === k)!;
  t.like(by('credits.exhausted').body.data, { balance: 0 });
  t.is(typeof by('credits.exhausted').body.data.message, 'string');
  t.deepEqual(by('credits.granted').body.data, { amount: 10, reason: 'purchase', balance: 10 });
  t.deepEqual(by('api_key.created').body.data, { keyId: key.body.id, name: 'ci', prefix: key.body.prefix });
  t.deepEqual(by('api_key.revoked').body.data, { keyId: key.body.id, name: 'ci', prefix: key.body.prefix });
  for (const d of mine) {
    t.is(d.headers['x-service-event'], d.body.event);
    t.is(d.headers['x-service-event-id'], d.body.id);
    t.true(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt), `${d.body.event} verifies`);
  }
});

test('an account event goes to every active endpoint of the account, each signed with its own secret', async (t) => {
  const account = await newAccount(10);
  const a = await registerEndpoint(account, receiver.url('/every-a'));
  const b = await registerEndpoint(account, receiver.url('/every-b'));
  const key = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'fan-out' } });
  t.is(key.status, 201);
  const created = (path: string) => (all: Delivery[]) => all.filter((d) => d.path === path && d.body?.data?.keyId === key.body.id);
  await receiver.waitFor(
    (all) => created('/every-a')(all).length > 0 && created('/every-b')(all).length > 0,
    20_000,
    'api_key.created at both',
  );
  const [atA] = created('/every-a')(receiver.deliveries());
  const [atB] = created('/every-b')(receiver.deliveries());
  t.is(atA!.body.id, atB!.body.id, 'the same event');
  t.true(verifyWebhook(a.secret, atA!.headers, atA!.rawBody, atA!.receivedAt));
  t.true(verifyWebhook(b.secret, atB!.headers, atB!.rawBody, atB!.receivedAt));
  t.false(verifyWebhook(b.secret, atA!.headers, atA!.rawBody, atA!.receivedAt), "a's delivery does not verify with b's secret");
});

test("events of one account never reach another account's endpoint", async (t) => {
  const a = await newAccount(26);
  const b = await newAccount(26);
  const endpointA = await registerEndpoint(a, receiver.url('/tenant-a'));
  const endpointB = await registerEndpoint(b, receiver.url('/tenant-b'));
  // Everything that fires an event, on account a only.
  await spend(a.apiKey, 2); // credits.low
  await request('POST', `/api/v1/admin/accounts/${a.id}/credits`, {
    token: adminToken(),
    body: { amount: 5, reason: 'manual_adjustment' },
  });
  const key = await request('POST', '/api/v1/account/keys', { token: a.ownerToken, body: {} });
  await request('DELETE', `/api/v1/account/keys/${key.body.id}`, { token: a.ownerToken });
  await sendTest(a, endpointA.id);
  // b cannot send a's endpoint a test, nor a b's.
  t.is((await request('POST', `/api/v1/account/webhooks/${endpointA.id}/test`, { token: b.ownerToken })).status, 404);
  t.is((await request('POST', `/api/v1/account/webhooks/${endpointB.id}/test`, { token: a.ownerToken })).status, 404);

  const kinds = ['credits.low', 'credits.granted', 'api_key.created', 'api_key.revoked', 'webhook.test'];
  await receiver.waitFor((got) => kinds.every((k) => ofEvent('/tenant-a', k)(got).length > 0), 30_000, "a's events at a");
  await sleep(2000);
  t.deepEqual(receiver.deliveries('/tenant-b'), [], "b got nothing of a's");
  t.deepEqual(await attemptsOf(b, endpointB.id), []);

  // b's own event reaches b's endpoint, and only that one.
  const own = await sendTest(b, endpointB.id);
  await receiver.waitFor((got) => got.some((d) => d.path === '/tenant-b'), 20_000, "b's test");
  t.deepEqual(
    receiver.deliveries('/tenant-b').map((d) => d.body.id),
    [own],
  );
  t.false(receiver.deliveries('/tenant-a').some((d) => d.body.id === own));
});

test('a webhook that hangs never delays or fails the API call that caused the event', async (t) => {
  const account = await newAccount(27);
  const endpoint = await registerEndpoint(account, receiver.url('/hangs'));
  receiver.behave('/hangs', () => ({ hang: true }));
  // A delivery is in flight and hanging before the timed calls start.
  await sendTest(account, endpoint.id);
  await receiver.waitFor((got) => got.some((d) => d.path === '/hangs'), 20_000, 'the first delivery');

  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number, number]> => {
    const started = performance.now();
    const value = await fn();
    return [value, performance.now() - started, Date.now()];
  };
  // 27 -> 26 -> 25 -> 24: the third call crosses 25 and fires credits.low at the hanging endpoint.
  const calls: number[] = [];
  let crossedAt = 0;
  for (let i = 0; i < 3; i++) {
    const [res, ms, at] = await timed(() => callTool(account.apiKey, 'hash-text', { text: `timed ${i}` }));
    t.is(res.status, 200);
    calls.push(ms);
    crossedAt = at;
  }
  const [key, keyMs] = await timed(() =>
    request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'while hanging' } }),
  );
  t.is(key.status, 201);
  const [grant, grantMs] = await timed(() =>
    request('POST', `/api/v1/admin/accounts/${account.id}/credits`, { token: adminToken(), body: { amount: 1, reason: 'purchase' } }),
  );
  t.is(grant.status, 200);
  t.log(
    `tool calls ${calls.map((ms) => ms.toFixed(0)).join(', ')} ms; key ${keyMs.toFixed(0)} ms; grant ${grantMs.toFixed(0)} ms, while the receiver hangs`,
  );
  // A call that waited for a hanging delivery would take the whole 10 s wait.
  const slowest = Math.max(...calls, keyMs, grantMs);
  t.true(slowest < 10_000, `slowest call took ${slowest.toFixed(0)} ms`);
  t.is((await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance, 25);

  // The credits.low the crossing call fired was delivered all the same: its attempt hung for the
  // whole wait and ended after the call had answered.
  const rows = await eventually(
    () => attemptsOf(account, endpoint.id),
    (r) => r.some((a) => a.event === 'credits.low'),
    60_000,
    'the credits.low attempt',
  );
  const low = rows.find((a) => a.event === 'credits.low')!;
  t.like(low, { success: false, statusCode: null });
  t.true(low.durationMs >= 9_500, `the attempt hung for ${low.durationMs} ms`);
  t.true(Date.parse(low.attemptedAt) + low.durationMs > crossedAt, "the call answered before its event's delivery attempt ended");
});
