//! `toolCall` past its answer deadline (`answerBy`, set by the API from the tool's timeout plus
//! its grace): nobody waits for the 200 any more, so the call is refunded instead of committed.
//! The chaos suite found the case: the API answered 503 during a Temporal outage while the
//! workflow went on and charged.
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Mongo } from '../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { createCallActivities } from '../../activities/call-activities.js';
import { createLedger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { TASK_QUEUES } from '../../contracts/temporal-names.js';
import type { ToolCallInput, ToolCallResult } from '../../contracts/call.js';

let env: TestWorkflowEnvironment;
let mongo: Mongo;
let bed: WorkflowTestBed | undefined;
let toolRuns = 0;
/** How long `answersLate` takes: longer than the answerBy it is given. */
const LATE_MS = 1_500;

test.before(async () => {
  bed = await startWorkflowTestBed('workflow_answer_by_tests', async (env, mongo) => {
    const answers = async () => {
      toolRuns++;
      return { fine: true };
    };
    const answersLate = async () => {
      toolRuns++;
      await new Promise((resolve) => setTimeout(resolve, LATE_MS));
      return { fine: true };
    };
    return [
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.cpu,
        workflowBundle: await serviceWorkflowBundle(),
        activities: createCallActivities(mongo.db, { answers, answersLate }),
      }),
    ];
  });
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

async function call(answerBy: number, tool = 'answers'): Promise<{ result: ToolCallResult; accountId: string; workflowId: string }> {
  const { account } = await createAccounts(mongo.db).open({ credits: 10 });
  const input: ToolCallInput = {
    accountId: account._id,
    tool,
    pool: 'cpu',
    execution: 'local',
    oneStep: true,
    cost: 3,
    timeoutMs: 10_000,
    input: {},
    answerBy,
  };
  const workflowId = `wf-answer-by-${answerBy}-${Date.now()}`;
  const result = await env.client.workflow.execute('toolCall', { taskQueue: TASK_QUEUES.cpu, workflowId, args: [input] });
  return { result: result as ToolCallResult, accountId: account._id, workflowId };
}

test.serial('a tool that answers after answerBy is refunded with tool_timeout, not charged', async (t) => {
  const { result, accountId } = await call(Date.now() + LATE_MS / 3, 'answersLate');
  t.like(result, { ok: false, error: { code: 'tool_timeout' } });
  const account = await createLedger(mongo.db).balanceOf(accountId);
  t.like(account, { balance: 10, chargedBalance: 10, holds: {} });
});

test.serial('a call taken up only after answerBy (its pool was down) neither reserves nor runs the tool', async (t) => {
  const runs = toolRuns;
  const { result, accountId, workflowId } = await call(1);
  t.like(result, { ok: false, error: { code: 'tool_timeout' } });
  t.is(toolRuns, runs, 'the tool did not run');
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  t.deepEqual(
    history.events?.filter((e) => e.markerRecordedEventAttributes) ?? [],
    [],
    'no ledger step ran (a local activity leaves a marker)',
  );
  t.like(await createLedger(mongo.db).balanceOf(accountId), { balance: 10, chargedBalance: 10, holds: {} });
});

test.serial('before answerBy the answer is charged as usual', async (t) => {
  const { result, accountId } = await call(Date.now() + 10 * 60_000);
  t.like(result, { ok: true, charged: 3, balance: 7 });
  t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
});
