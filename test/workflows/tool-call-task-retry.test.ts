//! A call's worker dies after its commit (or reserve) got through but before the workflow task
//! that ran it completed: nothing of that task is in the history, so the next worker runs the
//! call's step again, reserve included. The call must still be charged exactly once, iff it
//! answers 200, and leave no hold, also when the next worker takes it up after its answerBy.
import test, { type ExecutionContext } from 'ava';
import { Worker } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startWorkflowTestBed, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { createLogger } from '../../lib/logger.js';
import { createCallActivities } from '../../activities/call-activities.js';
import { createLedger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { testEnv } from '../helpers/env.js';
import { ANSWERED_TOO_LATE, type ToolCallInput, type ToolCallResult } from '../../contracts/call.js';
import { CALL_WORKFLOW_TASK_TIMEOUT_MS } from '../../contracts/temporal-names.js';

const DATABASE = 'workflow_task_retry_tests';
/** As the service's processes run from source: tsx on the main thread, not in the workflow thread. */
const TSX_MAIN_THREAD = new URL('../../scripts/stack/tsx-main-thread.mjs', import.meta.url).href;
const DYING_WORKER = fileURLToPath(new URL('./support/dying-worker.ts', import.meta.url));
const mongoUrl = testEnv.mongodbUrl().replace(/\/[^/]*$/, `/${DATABASE}`);
let bed: WorkflowTestBed | undefined;
/** The workers' bundle comes from the cache the service's workers use: webpack once, not per worker (these tests start two workers each, and ran past their timeouts when each bundled on a loaded machine). */
const quiet = createLogger({ name: 'test', level: 'warn' });

test.before(async () => {
  bed = await startWorkflowTestBed(DATABASE, async () => []);
});

test.after.always(() => bed?.close());

type Death = { dieAfter: 'commit' | 'reserve'; late?: boolean; afterDeath: Record<string, unknown> };

/**
 * Starts a call of cost 3 on an account of 10 credits and lets a worker in a process of its own
 * die right after `dieAfter` got through. A late call's answerBy is LATE_AFTER_MS away on the
 * server's clock, which is the clock the workflow judges it by.
 */
async function startAndDie(t: ExecutionContext, options: Death) {
  const { env, mongo } = bed!;
  const taskQueue = `task-retry-${options.dieAfter}-${options.late ? 'late' : 'in-time'}`;
  const { account } = await createAccounts(mongo.db).open({ credits: 10 });
  const answerBy = options.late ? (await env.currentTimeMs()) + LATE_AFTER_MS : undefined;
  const input: ToolCallInput = {
    accountId: account._id,
    tool: 'answers',
    pool: 'cpu',
    execution: 'local',
    oneStep: true,
    cost: 3,
    timeoutMs: 30_000,
    input: {},
    answerBy,
  };
  const handle = await env.client.workflow.start('toolCall', {
    taskQueue,
    workflowId: `wf-${taskQueue}-${Date.now()}`,
    args: [input],
    workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
  });

  const dying = spawn(process.execPath, ['--import', TSX_MAIN_THREAD, DYING_WORKER, env.address, mongoUrl, taskQueue, options.dieAfter], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const [code] = (await once(dying, 'exit')) as [number | null];
  t.is(code, 70, `the worker died right after its ${options.dieAfter}`);
  t.like(
    await createLedger(mongo.db).balanceOf(account._id),
    options.afterDeath,
    `what the ${options.dieAfter} did before the worker died`,
  );
  return { taskQueue, handle, accountId: account._id, answerBy };
}

/** The next worker takes the call up once its workflow task timed out, and runs its steps anew. */
async function rerun(call: Awaited<ReturnType<typeof startAndDie>>) {
  const { env, mongo } = bed!;
  const activities = createCallActivities(mongo.db, { answers: async () => ({ fine: true }) });
  const next = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: call.taskQueue,
    workflowBundle: { code: (await workflowBundle(quiet)).code },
    activities,
  });
  const result = (await next.runUntil(call.handle.result())) as ToolCallResult;
  return { result, account: await createLedger(mongo.db).balanceOf(call.accountId) };
}

/**
 * Until the server's clock is past `answerBy`. Real time: a call's pending workflow task keeps the
 * test server from skipping, and nothing here awaits a result (which would let it skip for every
 * call at once, the dying workers' included).
 */
async function untilServerTimePasses(answerBy: number) {
  while ((await bed!.env.currentTimeMs()) <= answerBy) await sleep(250);
}

/**
 * Room for the dying workers to start and commit before their calls' answerBy. Both late calls
 * die first and wait out this one window together, then re-run.
 */
const LATE_AFTER_MS = 30_000;

test.serial('a workflow task re-run after its commit got through charges the call once', async (t) => {
  t.timeout(150_000);
  const { result, account } = await rerun(await startAndDie(t, { dieAfter: 'commit', afterDeath: { chargedBalance: 7 } }));
  t.like(result, { ok: true, charged: 3 });
  t.like(account, { balance: 7, chargedBalance: 7, holds: {} }, 'charged once, no hold left');
});

test.serial(
  're-runs after answerBy: a call whose commit got through answers 200; one whose worker died holding its credits refunds them',
  async (t) => {
    t.timeout(150_000);
    const charged = await startAndDie(t, { dieAfter: 'commit', late: true, afterDeath: { chargedBalance: 7 } });
    const held = await startAndDie(t, { dieAfter: 'reserve', late: true, afterDeath: { balance: 7, chargedBalance: 10 } });
    await untilServerTimePasses(Math.max(charged.answerBy!, held.answerBy!));

    const afterCommit = await rerun(charged);
    t.like(afterCommit.result, { ok: true, charged: 3 }, 'the charge stands, so the call answers what it was charged for');
    t.like(afterCommit.account, { balance: 7, chargedBalance: 7, holds: {} });

    const afterReserve = await rerun(held);
    t.deepEqual(afterReserve.result, { ok: false, error: ANSWERED_TOO_LATE });
    t.like(afterReserve.account, { balance: 10, chargedBalance: 10, holds: {} }, 'nothing charged, no hold left');
  },
);
