//! The owner's webhook requests through HTTP, against the running stack: event types per endpoint
//! (a filtered endpoint receives only its types, and the choice can change), secret rotation with
//! a receiver on the old secret and one on the new (both verify every delivery in the overlap,
//! only the new one after it ends), replay of one event, recovery of exactly the missed events on
//! re-enable, and the event log with where each event went. The 24 h window itself runs on the
//! time-skipping server (test/workflows/webhook-endpoint-requests.test.ts).
import test from 'ava';
import { adminToken, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import {
  attemptsOf,
  type Delivery,
  disableByFailures,
  endpointOf,
  eventually,
  registerEndpoint,
  sendTest,
  sleep,
} from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import { DEFAULT_EVENT_TYPES } from '../../contracts/event-kinds.js';

const receiver = receiverForFile();

const grant = (account: TestAccount, amount = 5) =>
  request('POST', `/api/v1/admin/accounts/${account.id}/credits`, { token: adminToken(), body: { amount, reason: 'purchase' } });
const createKey = (account: TestAccount) => request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'k' } });
const eventsOf = (account: TestAccount, query = '') => request('GET', `/api/v1/account/events${query}`, { token: account.ownerToken });
const kinds = (ds: Delivery[]) => ds.map((d) => d.body.event);
/**
 * The kinds delivered, in a fixed order: events of two requests made one after the other are
 * fanned out as each is recorded, without waiting, so they may reach an endpoint in either order
 * (live deliveries promise each event once, not an order between them).
 */
const kindSet = (ds: Delivery[]) => kinds(ds).sort();

test('an endpoint receives only the event types it chose; the choice can be changed; the default leaves out call.completed', async (t) => {
  const account = await newAccount(10);
  const all = await registerEndpoint(account, receiver.url('/types-all'));
  t.deepEqual(all.eventTypes, [...DEFAULT_EVENT_TYPES]);
  t.false((all.eventTypes as string[]).includes('call.completed'));
  const keysOnly = await registerEndpoint(account, receiver.url('/types-keys'), ['api_key.created', 'api_key.revoked']);
  t.deepEqual(keysOnly.eventTypes, ['api_key.created', 'api_key.revoked']);

  t.is((await grant(account)).status, 200);
  t.is((await createKey(account)).status, 201);
  await receiver.waitFor(
    (ds) => ds.filter((d) => d.path === '/types-all').length === 2 && ds.some((d) => d.path === '/types-keys'),
    20_000,
    'the first two events',
  );
  await sleep(2000);
  t.deepEqual(kindSet(receiver.deliveries('/types-all')), ['api_key.created', 'credits.granted']);
  t.deepEqual(kinds(receiver.deliveries('/types-keys')), ['api_key.created'], 'credits.granted was not sent to it');
  // webhook.test goes to the endpoint it tests, whatever it chose.
  const testId = await sendTest(account, keysOnly.id);
  await receiver.waitFor((ds) => ds.some((d) => d.body?.id === testId), 20_000, 'the test event');

  const changed = await request('PATCH', `/api/v1/account/webhooks/${keysOnly.id}`, {
    token: account.ownerToken,
    body: { eventTypes: ['credits.granted'] },
  });
  t.is(changed.status, 200);
  t.deepEqual(changed.body.eventTypes, ['credits.granted']);
  t.deepEqual((await endpointOf(account, keysOnly.id)).eventTypes, ['credits.granted']);
  await createKey(account);
  await grant(account);
  await receiver.waitFor(
    (ds) => ds.filter((d) => d.path === '/types-all').length === 4 && ds.filter((d) => d.path === '/types-keys').length === 3,
    20_000,
    'the next events',
  );
  await sleep(2000);
  t.deepEqual(kinds(receiver.deliveries('/types-keys')), ['api_key.created', 'webhook.test', 'credits.granted']);

  // Validated at the edge.
  for (const body of [
    { eventTypes: [] },
    { eventTypes: ['nope'] },
    { eventTypes: ['webhook.test'] },
    { eventTypes: ['credits.low', 'credits.low'] },
    {},
    { eventTypes: ['credits.low'], x: 1 },
  ]) {
    t.true(
      isProblem(
        await request('PATCH', `/api/v1/account/webhooks/${keysOnly.id}`, { token: account.ownerToken, body }),
        400,
        'validation_failed',
      ),
      JSON.stringify(body),
    );
  }
  t.true(
    isProblem(
      await request('POST', '/api/v1/account/webhooks', {
        token: account.ownerToken,
        body: { url: receiver.url('/x'), eventTypes: ['nope'] },
      }),
      400,
      'validation_failed',
    ),
  );
  const other = await newAccount(10);
  t.true(
    isProblem(
      await request('PATCH', `/api/v1/account/webhooks/${keysOnly.id}`, { token: other.ownerToken, body: { eventTypes: ['credits.low'] } }),
      404,
      'not_found',
    ),
  );
});

test('rotation: receivers on the old and on the new secret both verify every delivery in the overlap; after it ends only the new one does', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/rotate'));
  const oldSecret = endpoint.secret;
  const rotated = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/rotate-secret`, { token: account.ownerToken });
  t.is(rotated.status, 200);
  const newSecret = rotated.body.secret as string;
  t.regex(newSecret, /^whsec_/);
  t.not(newSecret, oldSecret);
  const overlapEnds = Date.parse(rotated.body.previousSecretExpiresAt);
  t.true(Math.abs(overlapEnds - (Date.now() + 24 * 3600_000)) < 60_000, 'a 24 h overlap');
  const listed = await endpointOf(account, endpoint.id);
  t.is(listed.secret, undefined, 'the new secret is shown once');
  t.is(listed.previousSecretExpiresAt, rotated.body.previousSecretExpiresAt);

  const inWindow = [await sendTest(account, endpoint.id), await sendTest(account, endpoint.id)];
  await receiver.waitFor((ds) => inWindow.every((id) => ds.some((d) => d.body?.id === id)), 20_000, 'deliveries in the window');
  for (const d of receiver.deliveries('/rotate')) {
    t.true(verifyWebhook(oldSecret, d.headers, d.rawBody, d.receivedAt), 'a receiver still on the old secret');
    t.true(verifyWebhook(newSecret, d.headers, d.rawBody, d.receivedAt), 'a receiver already on the new one');
    t.true(verifyWebhook([oldSecret, newSecret], d.headers, d.rawBody, d.receivedAt), 'one holding both');
    t.regex(d.headers['x-service-signature'] as string, /^sha256=[0-9a-f]{64}$/, 'X-Service-Signature keeps its one value');
  }

  const ended = await request('DELETE', `/api/v1/account/webhooks/${endpoint.id}/previous-secret`, { token: account.ownerToken });
  t.is(ended.status, 200);
  t.is(ended.body.previousSecretExpiresAt, null);
  const after = await sendTest(account, endpoint.id);
  const [d] = (await receiver.waitFor((ds) => ds.some((x) => x.body?.id === after), 20_000, 'a delivery after the overlap')).filter(
    (x) => x.body?.id === after,
  );
  t.true(verifyWebhook(newSecret, d!.headers, d!.rawBody, d!.receivedAt));
  t.false(verifyWebhook(oldSecret, d!.headers, d!.rawBody, d!.receivedAt), 'the old secret no longer verifies');
  t.is(d!.headers['x-service-signatures'], d!.headers['x-service-signature'], 'one signature again');

  const other = await newAccount(10);
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/rotate-secret`, { token: other.ownerToken }),
      404,
      'not_found',
    ),
  );
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/rotate-secret`, { token: account.ownerToken, body: { x: 1 } }),
      400,
      'validation_failed',
    ),
  );
});

test('replay sends one past event again as a new, re-signed attempt listed as a replay; unknown events and disabled endpoints are refused', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/replay'));
  const eventId = await sendTest(account, endpoint.id);
  await receiver.waitFor((ds) => ds.some((d) => d.path === '/replay' && d.body?.id === eventId), 20_000, 'the first delivery');
  await sleep(1100); // a later timestamp for the re-signed attempt

  const res = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/replay`, { token: account.ownerToken, body: { eventId } });
  t.is(res.status, 202);
  t.deepEqual(res.body, { eventId, endpointId: endpoint.id });
  const both = (await receiver.waitFor((ds) => ds.filter((d) => d.path === '/replay').length === 2, 20_000, 'the replay')).filter(
    (d) => d.path === '/replay',
  );
  t.is(both[1]!.rawBody, both[0]!.rawBody, 'the same envelope');
  t.not(both[1]!.headers['x-service-timestamp'], both[0]!.headers['x-service-timestamp'], 'signed afresh');
  t.true(verifyWebhook(endpoint.secret, both[1]!.headers, both[1]!.rawBody, both[1]!.receivedAt));
  const attempts = await eventually(
    () => attemptsOf(account, endpoint.id),
    (rows) => rows.length === 2,
    10_000,
    'two attempts',
  );
  t.deepEqual(
    attempts.map((a) => [a.eventId, a.trigger, a.success]),
    [
      [eventId, 'replay', true],
      [eventId, 'event', true],
    ],
  );

  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/replay`, {
        token: account.ownerToken,
        body: { eventId: 'evt_doesnotexist0000000000' },
      }),
      404,
      'not_found',
    ),
  );
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/replay`, { token: account.ownerToken, body: {} }),
      400,
      'validation_failed',
    ),
  );
  const other = await newAccount(10);
  const otherEndpoint = await registerEndpoint(other, receiver.url('/replay-other'));
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${otherEndpoint.id}/replay`, { token: other.ownerToken, body: { eventId } }),
      404,
      'not_found',
    ),
    "another account's event",
  );
});

test('re-enabling with recoverSince delivers exactly the events missed while disabled, once each, in order; the event log shows where each went', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/recover'));
  let down = true;
  receiver.behave('/recover', () => ({ status: down ? 503 : 204 }));
  await disableByFailures(account, endpoint.id);
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/replay`, {
        token: account.ownerToken,
        body: { eventId: receiver.deliveries('/recover')[0]!.body.id },
      }),
      409,
      'endpoint_disabled',
    ),
  );

  // While it is down: three events it would have had, in this order.
  // From now: the 20 test events that failed came before (recovery would rightly resend those too).
  const since = new Date().toISOString();
  await grant(account);
  await sleep(20);
  await createKey(account);
  await sleep(20);
  await grant(account, 7);
  await sleep(2000);
  const posted = receiver.deliveries('/recover').length;
  t.is(posted, 20, 'nothing was posted while disabled');

  down = false;
  t.true(
    isProblem(
      await request('POST', `/api/v1/account/webhooks/${endpoint.id}/enable`, {
        token: account.ownerToken,
        body: { recoverSince: '2000-01-01T00:00:00Z' },
      }),
      400,
      'validation_failed',
    ),
    'older than 30 days',
  );
  const enabled = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/enable`, {
    token: account.ownerToken,
    body: { recoverSince: since },
  });
  t.is(enabled.status, 200);
  t.is(enabled.body.status, 'active');
  await receiver.waitFor((ds) => ds.filter((d) => d.path === '/recover').length >= posted + 3, 30_000, 'the recovered events');
  await sleep(3000);
  const recovered = receiver.deliveries('/recover').slice(posted);
  t.deepEqual(kinds(recovered), ['credits.granted', 'api_key.created', 'credits.granted'], 'exactly the missed events, once, in order');
  t.deepEqual(
    recovered.map((d) => d.body.data.amount ?? null),
    [5, null, 7],
  );
  for (const d of recovered) t.true(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt));
  // A delivery reaches the receiver before its attempt is recorded: read once all three are.
  const attempts = await eventually(
    () => attemptsOf(account, endpoint.id, 200),
    (list) => list.filter((a) => a.trigger === 'recovery').length >= 3,
    60_000,
    'three recovery attempts recorded',
  );
  t.deepEqual(
    attempts.slice(0, 3).map((a) => a.trigger),
    ['recovery', 'recovery', 'recovery'],
  );

  // The event log: newest first, each with its deliveries; paged; filtered by type.
  const log = await eventsOf(account, '?limit=3');
  t.is(log.status, 200);
  t.deepEqual(
    log.body.items.map((e: UncheckedJson) => e.event),
    ['credits.granted', 'api_key.created', 'credits.granted'],
  );
  t.deepEqual(
    log.body.items.map((e: UncheckedJson) => e.id),
    recovered.map((d) => d.body.id).reverse(),
  );
  for (const e of log.body.items) t.like(e.deliveries, [{ endpointId: endpoint.id, status: 'delivered', attempts: 1 }]);
  t.deepEqual(Object.keys(log.body.items[0]).sort(), ['createdAt', 'data', 'deliveries', 'event', 'id']);
  t.is(typeof log.body.nextCursor, 'string');
  const next = await eventsOf(account, `?limit=100&cursor=${log.body.nextCursor}`);
  const tests = next.body.items.filter((e: UncheckedJson) => e.event === 'webhook.test');
  t.is(tests.length, 20);
  t.true(tests.every((e: UncheckedJson) => e.deliveries[0].status === 'undelivered' || e.deliveries[0].status === 'failing'));
  t.true(tests.some((e: UncheckedJson) => e.deliveries[0].reason === 'endpoint_disabled'));
  const onlyKeys = await eventsOf(account, '?type=api_key.created');
  t.true(onlyKeys.body.items.length >= 1);
  t.true(onlyKeys.body.items.every((e: UncheckedJson) => e.event === 'api_key.created'));
  t.is(onlyKeys.body.items[0].id, recovered[1]!.body.id);
  t.true(isProblem(await eventsOf(account, '?type=nope'), 400, 'validation_failed'));
  t.true(isProblem(await eventsOf(account, '?limit=0'), 400, 'validation_failed'));
  const mine = new Set([...log.body.items, ...next.body.items].map((e: UncheckedJson) => e.id));
  const theirs = (await eventsOf(await newAccount(10))).body.items as UncheckedJson[];
  t.false(
    theirs.some((e) => mine.has(e.id)),
    "another account's log holds none of these",
  );
});
