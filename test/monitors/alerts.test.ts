//! A monitor's runs on the real Temporal, every second: each an ordinary call charged iff it
//! answers 200 and in the usage with `via: monitor`; against a fixture that starts failing, the
//! monitor goes down after its confirmation count with one `monitor.down` (a signed webhook event
//! and a mail to its owners), and recovers with one `monitor.up`. Verdicts wait for runs, never
//! for a time: the fixture's answers, not the machine's pace, decide them.
import test from 'ava';
import { verifyWebhook } from 'utility-tools/webhooks';
import { adminToken, request, type TestAccount } from '../helpers/api.js';
import { startPageServer, send } from '../fixtures/http-pages.js';
import { uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';
import { createMonitor, delivered, monitorEndpoint, monitorUsage, pauseAndSettle, readMonitor, runsOf } from './support.js';

/** An account the operator opened with a contact address: a monitor's `owners` are mailed there. */
async function accountWithAddress(credits: number): Promise<TestAccount & { email: string }> {
  const email = uniqueAddress('monitor');
  const res = await request('POST', '/api/v1/admin/accounts', { token: adminToken(), body: { name: 'monitored', email, credits } });
  if (res.status !== 201) throw new Error(`opening an account answered ${res.status}`);
  return { id: res.body.account.id, apiKey: res.body.apiKey.key, apiKeyId: res.body.apiKey.id, ownerToken: res.body.ownerToken, email };
}

test('a failing target takes the monitor down after its confirmation count, once, and back up once; each run a call charged iff 200', async (t) => {
  t.timeout(3 * 60_000);
  let status = 200;
  const pages = await startPageServer({
    routes: { '/health': (_req, res) => send(res, status, 'text/plain', status === 200 ? 'all good' : 'broken') },
  });
  const receiver = await startReceiver();
  t.teardown(async () => {
    await pages.close();
    await receiver.close();
  });
  const account = await accountWithAddress(500);
  const secret = await monitorEndpoint(account, receiver, '/monitors');
  const monitor = await createMonitor(account, {
    name: 'Fixture health',
    tool: 'http-request',
    input: { url: pages.url('/health') },
    schedule: { every: '1s' },
    assertions: [
      { path: '/statusCode', op: 'eq', value: 200 },
      { path: '/body', op: 'contains', value: 'good' },
    ],
    alert: { downAfter: 2, upAfter: 1 },
  });

  const up = await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'up',
    60_000,
    'the monitor up',
  );
  t.is(up.stateReason, null);
  status = 503;
  const down = await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'down',
    60_000,
    'the monitor down',
  );
  t.is(down.stateReason, '/statusCode eq 200: got 503');
  status = 200;
  await eventually(
    () => readMonitor(account, monitor.id),
    (m) => m.state === 'up',
    60_000,
    'the monitor up again',
  );
  const runs = await pauseAndSettle(account, monitor.id);

  // Confirmation: the down came with the second failed run in a row, never sooner.
  const chronological = [...runs].reverse();
  const firstDown = chronological.findIndex((r) => r.state === 'down');
  t.deepEqual(
    chronological.slice(firstDown - 1, firstDown + 1).map((r) => r.outcome),
    ['fail', 'fail'],
  );
  t.not(chronological[firstDown - 2]?.outcome, 'fail', 'one failed run alone left it up');

  const downs = await eventually(
    async () => delivered(receiver, '/monitors', 'monitor.down'),
    (d) => d.length >= 1,
    30_000,
    'monitor.down',
  );
  const ups = await eventually(
    async () => delivered(receiver, '/monitors', 'monitor.up'),
    (d) => d.length >= 1,
    30_000,
    'monitor.up',
  );
  t.is(downs.length, 1, 'one monitor.down');
  t.is(ups.length, 1, 'one monitor.up');
  t.like(downs[0].data, { monitorId: monitor.id, name: 'Fixture health', state: 'down', reason: '/statusCode eq 200: got 503' });
  t.like(downs[0].data.run, { outcome: 'fail', charged: 2 });
  t.like(ups[0].data, { monitorId: monitor.id, state: 'up', reason: null });
  const signed = receiver.deliveries('/monitors').find((d) => d.body?.id === downs[0].id)!;
  t.true(verifyWebhook(secret, signed.headers, signed.rawBody, signed.receivedAt), 'a signed event like any other');

  const mail = await waitForMail(account.email, { subject: /^Monitor Fixture health is down$/ });
  t.regex(mail.text, /\/statusCode eq 200: got 503/);
  await waitForMail(account.email, { subject: /^Monitor Fixture health is up again$/ });

  // Each run is a call: http-request answers 200 for a 503 too, so every run was charged once, in the usage.
  const usage = await monitorUsage(account, monitor.id);
  t.true(runs.length >= 4);
  t.deepEqual(usage.map((u) => u.requestId).sort(), runs.map((r) => r.id).sort());
  t.true(usage.every((u) => u.via === 'monitor' && u.outcome === 'charged' && u.credits === 2 && u.tool === 'http-request'));
  t.true(runs.every((r) => r.charged === 2 && r.scheduledAt !== null));
  const balance = (await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance;
  t.is(balance, 500 - 2 * runs.length, 'charged its cost (2) per run, nothing more');
  // The history pages with its cursor, newest first, as the whole list.
  const paged: string[] = [];
  for (let cursor = ''; ; ) {
    const page = await request('GET', `/api/v1/account/monitors/${monitor.id}/runs?limit=3${cursor}`, { token: account.ownerToken });
    paged.push(...page.body.items.map((r: { id: string }) => r.id));
    if (!page.body.nextCursor) break;
    cursor = `&cursor=${page.body.nextCursor}`;
  }
  t.deepEqual(
    paged,
    runs.map((r) => r.id),
  );
  const after = await readMonitor(account, monitor.id);
  t.true(after.uptime['24h'] > 0 && after.uptime['24h'] < 100, `uptime counts the failed runs: ${after.uptime['24h']}`);
  t.is(after.recentRuns.length, Math.min(30, runs.length));
});

test('a run asked for now is judged like a scheduled one, beside its schedule', async (t) => {
  const account = await accountWithAddress(10);
  const monitor = await createMonitor(account, {
    name: 'Hash on demand',
    tool: 'hash-text',
    input: { text: 'now' },
    schedule: { every: '1h' },
    assertions: [{ path: '/hash', op: 'eq', value: 'no such hash' }],
    alert: { downAfter: 1, notify: [] },
  });
  const started = await request('POST', `/api/v1/account/monitors/${monitor.id}/run`, { token: account.ownerToken });
  t.is(started.status, 202);
  t.regex(started.body.runId, new RegExp(`^call-${account.id}-${monitor.id}-now-`));
  const [run] = await eventually(
    () => runsOf(account, monitor.id),
    (r) => r.length === 1,
    30_000,
    'the run judged',
  );
  t.like(run, { id: started.body.runId, outcome: 'fail', charged: 1, scheduledAt: null, state: 'down' });
  t.like(run.assertions[0], { path: '/hash', op: 'eq', pass: false });
  t.is((await readMonitor(account, monitor.id)).state, 'down');
});
