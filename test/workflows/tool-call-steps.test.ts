//! The `toolCall` workflow's steps on the time-skipping test server: a call is one step whose
//! recorded result names its outcome; calls started as they were before (on `core`, or in three
//! steps) still run and are charged; a step retried after its commit's answer was lost charges once.
import test from 'ava';
import { createLedger } from '../../domain/ledger/ledger.js';
import { LONG_CALL_QUEUES, TASK_QUEUES } from '../../contracts/temporal-names.js';
import { env, FLAKY_COMMIT_QUEUE, mongo, run, steps, useToolCallBed } from './support/tool-call-bed.js';

useToolCallBed('workflow_step_tests');

test.serial('a call started on core, as before calls ran on their pool, still runs its tool on the pool and is charged', async (t) => {
  const { result, accountId } = await run('answers', 'started on core');
  t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
  t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
});

test.serial(
  'a call of a local tool started before calls were one step still runs reserve, tool and commit as steps of their own, and is charged',
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'local in three steps');
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
    t.deepEqual(
      (await steps(workflowId)).map((s) => s.type),
      ['reserve', 'answers', 'commit'],
    );
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  },
);

for (const execution of ['local', 'queued'] as const) {
  test.serial(`a call is one step, whose recorded result names the outcome and times its parts (${execution})`, async (t) => {
    const charged = await run('answers', execution);
    const history = await env.client.workflow.getHandle(charged.workflowId).fetchHistory();
    t.is(
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name,
      execution === 'queued' ? LONG_CALL_QUEUES.cpu : TASK_QUEUES.cpu,
    );
    t.false(history.events?.some((e) => e.activityTaskScheduledEventAttributes) ?? true, 'no activity of its own');
    const [step, ...others] = await steps(charged.workflowId);
    t.deepEqual(others, [], 'one local activity');
    t.is(step?.type, 'callStep');
    t.like(step?.result, { outcome: 'charged', attempts: 1, result: { ok: true, charged: 3, balance: 7 } });
    const { ms } = step!.result as { ms: Record<string, unknown> };
    for (const part of ['reserve', 'tool', 'settle']) t.is(typeof ms[part], 'number', part);

    const refused = await run('refuses', execution);
    t.like((await steps(refused.workflowId))[0]?.result, {
      outcome: 'refunded',
      attempts: 1,
      result: { ok: false, error: { code: 'target_not_allowed' } },
    });
    const poor = await run('answers', execution, { credits: 2, cost: 3 });
    t.like((await steps(poor.workflowId))[0]?.result, {
      outcome: 'insufficient_credits',
      result: { ok: false, error: { code: 'insufficient_credits' } },
    });
  });
}

test.serial(
  "a call of a queued tool started before calls were one step still runs its tool as an activity on the pool's queue, and is charged",
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'queued in three steps');
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
    t.deepEqual(
      (await steps(workflowId)).map((s) => s.type),
      ['reserve', 'commit'],
    );
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    t.is(scheduled?.activityType?.name, 'answers');
    t.is(scheduled?.taskQueue?.name, TASK_QUEUES.cpu);
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  },
);

test.serial(
  'a step retried after its commit got through but its answer was lost charges once, answers 200 and leaves no hold',
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'local', { taskQueue: FLAKY_COMMIT_QUEUE });
    t.like(result, { ok: true, charged: 3, balance: 7 });
    t.like(await createLedger(mongo.db).balanceOf(accountId), { balance: 7, chargedBalance: 7, holds: {} });
    t.like((await steps(workflowId))[0]?.result, { outcome: 'charged' });
  },
);
