//! The scheduled core workflows' test bed (test/workflows/allowances.test.ts, retention.test.ts):
//! the time-skipping test server running the service's core worker (its workflow bundle, the core
//! activities over the bed's own database), and a workflow of that queue run once at the server's time.
import test from 'ava';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createCoreActivities } from '../../../activities/core/index.js';
import { newId } from '../../../lib/ids.js';
import { TASK_QUEUES } from '../../../contracts/temporal-names.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../../helpers/workflow-test-bed.js';

/**
 * Starts the bed on the database `database` before the file's tests and closes it after them (the
 * hooks are registered by this call, made once at the top of the file); the getter gives it to a test.
 */
export function coreBedForFile(database: string): () => WorkflowTestBed {
  let bed: WorkflowTestBed | undefined;
  test.before(async () => {
    bed = await startWorkflowTestBed(database, async (env, mongo) => [
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.core,
        workflowBundle: await serviceWorkflowBundle(),
        activities: createCoreActivities(mongo.db),
      }),
    ]);
  });
  test.after.always(() => bed?.close());
  return () => {
    if (!bed) throw new Error('the bed starts before the tests: use it inside one');
    return bed;
  };
}

/**
 * Runs the core workflow `type` once at the server's current time, its id prefixed `idPrefix`.
 * Through a plain client: the environment's own client lets the server skip time while it waits
 * for a result, and with no timer pending it skipped ten years ahead during the sweep's activity.
 */
export const runOnce = (bed: WorkflowTestBed, type: string, idPrefix: string) =>
  new Client({ connection: bed.env.connection, namespace: bed.env.namespace }).workflow.execute(type, {
    workflowId: newId(idPrefix),
    taskQueue: TASK_QUEUES.core,
  });
