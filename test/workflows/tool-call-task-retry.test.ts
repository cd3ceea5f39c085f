//! A call's worker dies after its commit got through but before the workflow task that ran it
//! completed: nothing of that task is in the history, so the next worker runs the call's steps
//! again, reserve included. The call must still be charged exactly once.
import test from 'ava';
import { Worker } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startWorkflowTestBed, WORKFLOWS_PATH, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { createCoreActivities } from '../../activities/core/index.js';
import { createLedger } from '../../domain/ledger.js';
import { createAccounts } from '../../domain/accounts.js';
import { testEnv } from '../helpers/env.js';
import { CALL_WORKFLOW_TASK_TIMEOUT_MS, type ToolCallInput, type ToolCallResult } from '../../lib/temporal-shared.js';

const TASK_QUEUE = 'task-retry-tests';
const DATABASE = 'workflow_task_retry_tests';
const DYING_WORKER = fileURLToPath(new URL('./support/dying-worker.ts', import.meta.url));
const mongoUrl = testEnv.mongodbUrl().replace(/\/[^/]*$/, `/${DATABASE}`);
let bed: WorkflowTestBed | undefined;

test.before(async () => {
  bed = await startWorkflowTestBed(DATABASE, async () => []);
});

test.after.always(() => bed?.close());

test('a workflow task re-run after its commit got through charges the call once', async (t) => {
  t.timeout(90_000);
  const { env, mongo } = bed!;
  const { account } = await createAccounts(mongo.db).open({ credits: 10 });
  const input: ToolCallInput = { accountId: account._id, tool: 'answers', pool: 'cpu', execution: 'local', cost: 3, timeoutMs: 30_000, input: {} };
  const handle = await env.client.workflow.start('toolCall', { taskQueue: TASK_QUEUE, workflowId: `wf-task-retry-${Date.now()}`, args: [input], workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS });

  // The first worker, in a process of its own, commits and exits before its task completes.
  const dying = spawn(process.execPath, ['--import', 'tsx', DYING_WORKER, env.address, mongoUrl, TASK_QUEUE], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(dying, 'exit')) as [number | null];
  t.is(code, 70, 'the worker died right after its commit');
  t.is((await createLedger(mongo.db).balanceOf(account._id)).chargedBalance, 7, 'the first commit charged');

  // The next worker takes the call up once its workflow task timed out, and runs its steps anew.
  const core = createCoreActivities(mongo.db);
  const next = await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, workflowsPath: WORKFLOWS_PATH, activities: { ...core, answers: async () => ({ fine: true }) } });
  const result = (await next.runUntil(handle.result())) as ToolCallResult;
  t.like(result, { ok: true, charged: 3 });
  t.like(await createLedger(mongo.db).balanceOf(account._id), { balance: 7, chargedBalance: 7, holds: {} }, 'charged once, no hold left');
});
