//! Plans, grants and the owner's view of them through HTTP: the operator's plans and plan changes,
//! grants with an expiry and a payment id, the account's plan, next allowance and grants, and the
//! usage ledger as CSV. Every bad input is a 400 naming its field.
import test from 'ava';
import { ALLOWANCES_SCHEDULE_ID } from '../../domain/upkeep-schedules.js';
import { adminToken, isProblem, newAccount, request } from '../helpers/api.js';
import { Client } from '@temporalio/client';
import { testEnv } from '../helpers/env.js';
import { randomBase62 } from '../../lib/ids.js';
import { periodStart } from '../../domain/plans/periods.js';
import { connectTemporal } from '../helpers/temporal.js';

const admin = (method: string, path: string, body?: unknown) => request(method, `/api/v1/admin${path}`, { token: adminToken(), body });
const fields = (res: { body: { errors?: Array<{ field: string }> } }) => [...new Set((res.body.errors ?? []).map((e) => e.field))];
const uniquePlanId = () => `t-${randomBase62(10).toLowerCase()}`;
const DAY = 24 * 3600 * 1000;

async function createPlan(monthlyAllowance: number, rollover: 'none' | 'keep') {
  const id = uniquePlanId();
  const res = await admin('POST', '/plans', { id, name: `Plan ${id}`, monthlyAllowance, rollover });
  if (res.status !== 201) throw new Error(`could not create a plan: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

test('the operator creates, lists, reads and changes plans; an id in use is 409 already_exists', async (t) => {
  const id = uniquePlanId();
  const created = await admin('POST', '/plans', { id, name: 'Pro', monthlyAllowance: 5000, rollover: 'none' });
  t.is(created.status, 201);
  t.like(created.body, { id, name: 'Pro', monthlyAllowance: 5000, rollover: 'none' });
  t.true(isProblem(await admin('POST', '/plans', { id, name: 'Again', monthlyAllowance: 1, rollover: 'keep' }), 409, 'already_exists'));
  const generated = await admin('POST', '/plans', { name: 'Team Plus', monthlyAllowance: 10, rollover: 'keep' });
  t.regex(generated.body.id, /^team-plus-[a-z0-9]{4}$/);

  const list = await admin('GET', '/plans');
  t.true(
    list.body.some((p: { id: string }) => p.id === 'free'),
    'the default plan exists',
  );
  t.true(list.body.some((p: { id: string }) => p.id === id));
  const patched = await admin('PATCH', `/plans/${id}`, { monthlyAllowance: 6000, rollover: 'keep' });
  t.like(patched.body, { id, name: 'Pro', monthlyAllowance: 6000, rollover: 'keep' });
  t.like((await admin('GET', `/plans/${id}`)).body, { monthlyAllowance: 6000 });
  t.true(isProblem(await admin('PATCH', '/plans/no-such-plan', { name: 'x' }), 404, 'not_found'));
});

test('bad plan input is a 400 naming the field', async (t) => {
  const over = await admin('POST', '/plans', { name: 'Huge', monthlyAllowance: 10_000_001, rollover: 'none' });
  t.true(isProblem(over, 400, 'validation_failed'));
  t.deepEqual(fields(over), ['/monthlyAllowance']);
  t.deepEqual(fields(await admin('POST', '/plans', { name: 'Neg', monthlyAllowance: -5, rollover: 'none' })), ['/monthlyAllowance']);
  t.deepEqual(fields(await admin('POST', '/plans', { name: 'R', monthlyAllowance: 5, rollover: 'sometimes' })), ['/rollover']);
  t.deepEqual(fields(await admin('PATCH', '/plans/free', {})), ['/']);
  const unknown = await admin('POST', '/accounts', { plan: 'no-such-plan' });
  t.true(isProblem(unknown, 400, 'validation_failed'));
  t.deepEqual(fields(unknown), ['/plan']);
  const future = await admin('POST', '/accounts', { planStartsAt: new Date(Date.now() + DAY).toISOString() });
  t.deepEqual(fields(future), ['/planStartsAt']);
  const account = await newAccount(0);
  t.deepEqual(fields(await admin('PUT', `/accounts/${account.id}/plan`, { plan: 'no-such-plan' })), ['/plan']);
});

test('an account opened on a plan gets its first allowance at once; the owner sees the plan, the next allowance and the grants', async (t) => {
  const planId = await createPlan(300, 'none');
  const startedAt = new Date(Date.now() - 10 * DAY);
  const opened = await admin('POST', '/accounts', { name: 'Planned', credits: 100, plan: planId, planStartsAt: startedAt.toISOString() });
  t.is(opened.status, 201);
  t.like(opened.body.account, { balance: 400, plan: planId });
  const owner = opened.body.ownerToken as string;

  const account = await request('GET', '/api/v1/account', { token: owner });
  t.like(account.body, { balance: 400, plan: { id: planId, monthlyAllowance: 300, rollover: 'none' }, nextAllowance: { amount: 300 } });
  const next = periodStart(startedAt, 1);
  t.is(account.body.nextAllowance.at, next.toISOString(), 'the anniversary: the day of the month it joined');
  t.is(account.body.planSince, startedAt.toISOString());

  const grants = await request('GET', '/api/v1/account/grants', { token: owner });
  t.is(grants.status, 200);
  t.deepEqual(
    grants.body.items.map((g: { reason: string; amount: number; remaining: number }) => [g.reason, g.amount, g.remaining]).sort(),
    [
      ['monthly_allowance', 300, 300],
      ['welcome', 100, 100],
    ],
  );
  const allowance = grants.body.items.find((g: { reason: string }) => g.reason === 'monthly_allowance');
  t.is(allowance.expiresAt, next.toISOString(), 'rollover none: it lapses when the next period starts');
  t.is(grants.body.nextCursor, null);

  const byOperator = await admin('GET', `/accounts/${opened.body.account.id}`);
  t.like(byOperator.body, { balance: 400, plan: { id: planId }, nextAllowance: { amount: 300 } });
});

test('a grant with an expiry and a payment id grants once; the same id with another body is 409', async (t) => {
  const account = await newAccount(0);
  const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
  const body = { amount: 250, reason: 'purchase', expiresAt, idempotencyKey: `pi_${randomBase62(12)}` };
  const first = await admin('POST', `/accounts/${account.id}/credits`, body);
  t.is(first.status, 200);
  t.like(first.body, { balance: 250, grant: { amount: 250, reason: 'purchase', expiresAt, idempotencyKey: body.idempotencyKey } });
  t.is(first.headers.get('idempotent-replayed'), null);
  const again = await admin('POST', `/accounts/${account.id}/credits`, body);
  t.is(again.status, 200);
  t.deepEqual(again.body, first.body);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.true(isProblem(await admin('POST', `/accounts/${account.id}/credits`, { ...body, amount: 251 }), 409, 'idempotency_conflict'));
  t.true(isProblem(await admin('POST', `/accounts/${account.id}/credits`, { ...body, expiresAt: undefined }), 409, 'idempotency_conflict'));
  t.is((await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance, 250);
});

test('bad grants are 400s naming the field: zero or negative amounts, an expiry in the past', async (t) => {
  const account = await newAccount(0);
  const grant = (body: unknown) => admin('POST', `/accounts/${account.id}/credits`, body);
  t.deepEqual(fields(await grant({ amount: 0, reason: 'purchase' })), ['/amount']);
  t.deepEqual(fields(await grant({ amount: -3, reason: 'purchase' })), ['/amount']);
  const past = await grant({ amount: 5, reason: 'purchase', expiresAt: new Date(Date.now() - 1000).toISOString() });
  t.true(isProblem(past, 400, 'validation_failed'));
  t.deepEqual(fields(past), ['/expiresAt']);
  t.deepEqual(fields(await grant({ amount: 5, reason: 'purchase', expiresAt: 'tomorrow' })), ['/expiresAt']);
  t.deepEqual(fields(await grant({ amount: 5, reason: 'purchase', idempotencyKey: '' })), ['/idempotencyKey']);
  t.is((await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance, 0);
});

test('a plan change applies from the next period; with prorate a share comes now', async (t) => {
  const small = await createPlan(100, 'keep');
  const big = await createPlan(3100, 'keep');
  const opened = await admin('POST', '/accounts', { credits: 0, plan: small, planStartsAt: new Date(Date.now() - 5 * DAY).toISOString() });
  const id = opened.body.account.id as string;
  const moved = await admin('PUT', `/accounts/${id}/plan`, { plan: big });
  t.is(moved.status, 200);
  t.like(moved.body, { balance: 100, plan: { id: big }, nextAllowance: { amount: 3100 } });

  const other = await admin('POST', '/accounts', { credits: 0, plan: small, planStartsAt: new Date(Date.now() - 5 * DAY).toISOString() });
  const prorated = await admin('PUT', `/accounts/${other.body.account.id}/plan`, { plan: big, prorate: true });
  // 3000 more a month, for the 23 to 26 days left of a 28- to 31-day period.
  t.true(prorated.body.balance > 100 + 2000 && prorated.body.balance < 100 + 3000, `balance ${prorated.body.balance}`);
  const again = await admin('PUT', `/accounts/${other.body.account.id}/plan`, { plan: big, prorate: true });
  t.is(again.body.balance, prorated.body.balance, 'moving to the plan it is on grants nothing');
});

test('the usage ledger can be read for a period and exported as CSV', async (t) => {
  const account = await newAccount(50);
  for (const text of ['a', 'b']) {
    t.is((await request('POST', '/api/v1/tools/hash-text', { token: account.apiKey, body: { text } })).status, 200);
  }
  const from = new Date(Date.now() - DAY).toISOString();
  const to = new Date(Date.now() + DAY).toISOString();
  const csv = await request('GET', `/api/v1/account/usage?from=${from}&to=${to}`, {
    token: account.ownerToken,
    headers: { accept: 'text/csv' },
  });
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  t.regex(csv.headers.get('content-disposition') ?? '', /^attachment; filename="usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
  const lines = (csv.body as string).trim().split('\r\n');
  t.is(lines[0], 'at,requestId,tool,outcome,credits,grantId,keyId');
  t.is(lines.length, 3);
  t.true(lines.slice(1).every((l) => /^\d{4}-.+Z,[^,]+,hash-text,charged,1,,key_\w+$/.test(l)));

  const json = await request('GET', `/api/v1/account/usage?from=${to}`, { token: account.ownerToken });
  t.deepEqual(json.body.items, [], 'nothing after the period');
  const bad = await request('GET', '/api/v1/account/usage?from=yesterday', { token: account.ownerToken, headers: { accept: 'text/csv' } });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(fields(bad), ['query:from']);
});

test('the allowance schedule runs on the core queue and skips a run while one is under way', async (t) => {
  const connection = await connectTemporal();
  try {
    const client = new Client({ connection, namespace: testEnv.temporalNamespace() });
    const schedule = await client.schedule.getHandle(ALLOWANCES_SCHEDULE_ID).describe();
    t.is(schedule.policies.overlap, 'SKIP');
    t.like(schedule.action, { type: 'startWorkflow', workflowType: 'allowances', taskQueue: 'core' });
  } finally {
    await connection.close();
  }
});
