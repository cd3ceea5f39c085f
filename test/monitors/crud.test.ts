//! Monitors as account resources: made, listed, read, changed, paused and resumed, deleted, each
//! with its Temporal Schedule following it; definitions that cannot run refused with
//! `invalid_request` naming each field; another account's monitor unknown; the per-account limit.
import test from 'ava';
import { ScheduleNotFoundError } from '@temporalio/client';
import { isProblem, newAccount, request } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { createMonitor } from './support.js';

const HOURLY_HASH = {
  name: 'hash every hour',
  tool: 'hash-text',
  input: { text: 'monitored' },
  schedule: { every: '1h' },
  assertions: [{ path: '/hash', op: 'matches', value: '^[0-9a-f]{64}$' }],
};

const describeSchedule = (id: string) => withTemporalClient((client) => client.schedule.getHandle(`monitor-${id}`).describe());

test('a monitor is made, listed, read, changed, paused, resumed and deleted, and its schedule follows it', async (t) => {
  const account = await newAccount(100);
  const created = await request('POST', '/api/v1/account/monitors', { token: account.ownerToken, body: HOURLY_HASH });
  t.is(created.status, 201, JSON.stringify(created.body));
  const monitor = created.body;
  t.regex(monitor.id, /^mon_[0-9A-Za-z]+$/);
  t.is(created.headers.get('location'), `/api/v1/account/monitors/${monitor.id}`);
  t.like(monitor, { name: 'hash every hour', tool: 'hash-text', state: 'pending', stateReason: null, lastRunAt: null });
  t.deepEqual(monitor.input, { text: 'monitored', algorithm: 'sha256' }, 'the input with its defaults');
  t.deepEqual(monitor.alert, { downAfter: 2, upAfter: 1, notify: ['owners'], remindEvery: null });
  t.deepEqual(monitor.uptime, { '24h': null, '7d': null, '30d': null });
  t.truthy(monitor.nextRunAt, 'its schedule says when it runs');
  const schedule = await describeSchedule(monitor.id);
  t.false(schedule.state.paused);
  // Temporal starts every run; a run's own step skips one due while another is under way (overlap.test.ts).
  t.is(schedule.policies.overlap, 'ALLOW_ALL');
  t.is(schedule.action.type, 'startWorkflow');

  const list = await request('GET', '/api/v1/account/monitors', { token: account.ownerToken });
  t.is(list.status, 200);
  t.deepEqual(
    list.body.items.map((m: { id: string }) => m.id),
    [monitor.id],
  );

  // A schedule made with Temporal's own skip, as schedules once were, takes today's policy at its monitor's next change.
  await withTemporalClient((client) =>
    client.schedule.getHandle(`monitor-${monitor.id}`).update((p) => ({ ...p, policies: { ...p.policies, overlap: 'SKIP' } })),
  );
  const paused = await request('PATCH', `/api/v1/account/monitors/${monitor.id}`, {
    token: account.ownerToken,
    body: { paused: true, name: 'renamed' },
  });
  t.is(paused.status, 200, JSON.stringify(paused.body));
  t.like(paused.body, { name: 'renamed', state: 'paused', stateReason: 'paused', nextRunAt: null });
  const pausedSchedule = await describeSchedule(monitor.id);
  t.true(pausedSchedule.state.paused, 'pausing the monitor pauses its schedule');
  t.is(pausedSchedule.policies.overlap, 'ALLOW_ALL');

  const resumed = await request('PATCH', `/api/v1/account/monitors/${monitor.id}`, { token: account.ownerToken, body: { paused: false } });
  t.like(resumed.body, { state: 'pending', stateReason: null });
  t.false((await describeSchedule(monitor.id)).state.paused, 'resuming it resumes its schedule');

  const audit = await request('GET', '/api/v1/account/audit-log?limit=10', { token: account.ownerToken });
  t.deepEqual(
    audit.body.items.map((e: { action: string }) => e.action).filter((a: string) => a.startsWith('monitor.')),
    ['monitor.updated', 'monitor.updated', 'monitor.created'],
  );

  const deleted = await request('DELETE', `/api/v1/account/monitors/${monitor.id}`, { token: account.ownerToken });
  t.is(deleted.status, 204);
  t.true(isProblem(await request('GET', `/api/v1/account/monitors/${monitor.id}`, { token: account.ownerToken }), 404, 'not_found'));
  const gone = await describeSchedule(monitor.id).catch((err: unknown) => err);
  t.true(gone instanceof ScheduleNotFoundError, 'deleting the monitor deleted its schedule');
});

test('a definition that cannot run is 400 invalid_request naming each bad field, and nothing is made', async (t) => {
  const account = await newAccount(100);
  const post = (body: Record<string, unknown>) => request('POST', '/api/v1/account/monitors', { token: account.ownerToken, body });
  const fieldsOf = (res: { body: { errors?: Array<{ field: string }> } }) => (res.body.errors ?? []).map((e) => e.field).sort();

  const bad = await post({
    ...HOURLY_HASH,
    input: {},
    schedule: { every: '0s' },
    assertions: [
      { path: 'digest', op: 'eq', value: 'x' },
      { path: '/hash', op: 'gt' },
      { op: 'visual_change', threshold: 0.1 },
      { path: '/hash', op: 'matches', value: '(' },
    ],
    alert: { remindEvery: 'soon', notify: ['usr_nobodyHere'] },
  });
  t.true(isProblem(bad, 400, 'invalid_request'), JSON.stringify(bad.body));
  t.deepEqual(fieldsOf(bad), [
    '/alert/notify/0',
    '/alert/remindEvery',
    '/assertions/0/path',
    '/assertions/1/value',
    '/assertions/2/op',
    '/assertions/3/value',
    '/input/text',
    '/schedule/every',
  ]);

  const cron = await post({ ...HOURLY_HASH, schedule: { cron: '61 * * *', timezone: 'Mars/Olympus' } });
  t.true(isProblem(cron, 400, 'invalid_request'));
  t.deepEqual(fieldsOf(cron), ['/schedule/cron', '/schedule/timezone']);
  const both = await post({ ...HOURLY_HASH, schedule: { every: '1h', cron: '0 * * * *' } });
  t.deepEqual(fieldsOf(both), ['/schedule']);
  const unknownOp = await post({ ...HOURLY_HASH, assertions: [{ path: '/hash', op: 'resembles', value: 1 }] });
  t.true(isProblem(unknownOp, 400, 'invalid_request'));
  t.deepEqual(fieldsOf(unknownOp), ['/assertions/0/op']);
  const secret = await post({ ...HOURLY_HASH, tool: 'bcrypt-hash', input: { password: 'hunter2-hunter2' } });
  t.deepEqual(fieldsOf(secret), ['/input/password'], 'a schedule would keep a secret: refused');

  const cronOk = await post({ ...HOURLY_HASH, schedule: { cron: '*/15 9-17 * * MON-FRI', timezone: 'Europe/Paris' } });
  t.is(cronOk.status, 201, JSON.stringify(cronOk.body));
  const list = await request('GET', '/api/v1/account/monitors', { token: account.ownerToken });
  t.is(list.body.items.length, 1, 'only the good one was made');
});

test("another account's monitor is 404 for every operation on it", async (t) => {
  const [owner, stranger] = await Promise.all([newAccount(100), newAccount(100)]);
  const monitor = await createMonitor(owner, { ...HOURLY_HASH, paused: true });
  for (const [method, path, body] of [
    ['GET', '', undefined],
    ['PATCH', '', { name: 'mine now' }],
    ['DELETE', '', undefined],
    ['POST', '/run', undefined],
    ['GET', '/runs', undefined],
  ] as const) {
    const res = await request(method, `/api/v1/account/monitors/${monitor.id}${path}`, { token: stranger.ownerToken, body });
    t.true(isProblem(res, 404, 'not_found'), `${method} ${path}: ${res.status}`);
  }
  t.is((await request('GET', `/api/v1/account/monitors/${monitor.id}`, { token: owner.ownerToken })).body.name, 'hash every hour');
});

test('past MONITORS_PER_ACCOUNT a new monitor is 409 monitor_limit with the limit', async (t) => {
  const account = await newAccount(100);
  let made = 0;
  for (; made <= 100; made++) {
    const res = await request('POST', '/api/v1/account/monitors', { token: account.ownerToken, body: { ...HOURLY_HASH, paused: true } });
    if (res.status === 409) {
      t.true(isProblem(res, 409, 'monitor_limit'));
      t.is(res.body.limit, made, 'refused exactly past the limit');
      return;
    }
    t.is(res.status, 201);
  }
  t.fail('no limit was met');
});
