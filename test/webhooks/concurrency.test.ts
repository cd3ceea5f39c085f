//! Deliveries to one endpoint in parallel, against the running stack: an endpoint that never
//! answers (each attempt ends at the 10 s wait) is posted up to WEBHOOK_ENDPOINT_CONCURRENCY at
//! once, never more, and holds only those: another endpoint of its account and another account's
//! endpoint are delivered while it holds all of its own. (The workflow's side of concurrency, the
//! count in the order attempts end, is test/workflows/webhook-endpoint-concurrent.test.ts.)
import test from 'ava';
import { newAccount, request } from '../helpers/api.js';
import { registerEndpoint, sendTest, type Delivery } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { DEFAULT_ENDPOINT_CONCURRENCY } from '../../contracts/webhook-policy.js';

/** The stack runs with WEBHOOK_ENDPOINT_CONCURRENCY unset. */
const CONCURRENCY = DEFAULT_ENDPOINT_CONCURRENCY;

const receiver = receiverForFile();

/** Exchanges at `path` open at `at` (ms): received by then and not yet ended. */
const openAt = (all: Delivery[], path: string, at: number) =>
  all.filter((d) => d.path === path && d.receivedAt <= at && (d.closedAt === null || d.closedAt > at)).length;

/** The most exchanges at `path` that were ever open at once. */
function mostOpen(all: Delivery[], path: string): number {
  const mine = all.filter((d) => d.path === path);
  return Math.max(0, ...mine.map((d) => openAt(mine, path, d.receivedAt)));
}

test("an endpoint that never answers holds only its own attempts, at most its concurrency: its account's other endpoint and another account's are delivered meanwhile", async (t) => {
  const account = await newAccount(10);
  const slow = await registerEndpoint(account, receiver.url('/never'));
  const sibling = await registerEndpoint(account, receiver.url('/sibling'));
  const other = await newAccount(10);
  const elsewhere = await registerEndpoint(other, receiver.url('/elsewhere'));
  receiver.behave('/never', () => ({ hang: true }));

  // Twice its concurrency queued: all of its attempts in flight are held open by the receiver.
  const queued = await Promise.all(Array.from({ length: 2 * CONCURRENCY }, () => sendTest(account, slow.id)));
  await receiver.waitFor((all) => openAt(all, '/never', Date.now()) >= CONCURRENCY, 60_000, `${CONCURRENCY} attempts held open`);

  const [siblingEvent, elsewhereEvent] = await Promise.all([sendTest(account, sibling.id), sendTest(other, elsewhere.id)]);
  const all = await receiver.waitFor(
    (got) => [siblingEvent, elsewhereEvent].every((id) => got.some((d) => d.body?.id === id && d.answered === 200)),
    60_000,
    "the other endpoints' deliveries",
  );
  for (const id of [siblingEvent, elsewhereEvent]) {
    const d = all.find((x) => x.body?.id === id)!;
    t.true(openAt(all, '/never', d.receivedAt) > 0, `${d.path} was delivered while the slow endpoint held attempts open`);
  }
  t.is(mostOpen(all, '/never'), CONCURRENCY, 'the slow endpoint had its concurrency in flight, never more');
  t.true(new Set(all.filter((d) => d.path === '/never').map((d) => d.body.id)).size < queued.length, 'its backlog was still waiting');

  const removed = await request('DELETE', `/api/v1/account/webhooks/${slow.id}`, { token: account.ownerToken });
  t.is(removed.status, 204);
});
