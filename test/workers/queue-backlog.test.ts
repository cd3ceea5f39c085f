//! A worker's `/metrics` carries the backlog of the queues it polls, as Temporal counts it: the
//! signal KEDA scales a pool on, visible to an operator without KEDA. Against a Temporal dev server
//! of this file's own, with calls waiting on a queue nobody polls.
import test from 'ava';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { sample } from '../../bench/prom-text.js';
import { queueBacklogRegistry } from '../../workers/queue-backlog.js';
import { testEnv } from '../helpers/env.js';

test('task_queue_backlog counts the workflow tasks waiting in each queue the process polls', async (t) => {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: testEnv.temporalCliPath() }, log: { format: 'pretty', level: 'error' } },
  });
  const connection = await NativeConnection.connect({ address: env.address });
  t.teardown(async () => {
    await connection.close();
    await env.teardown();
  });
  const waiting = `backlog-${Date.now()}`;
  const empty = `${waiting}-empty`;
  let queues: string[] = [];
  const registry = queueBacklogRegistry({ connection: () => connection, namespace: env.namespace ?? 'default', taskQueues: () => queues });

  // Before the workers start, the process polls nothing and reports nothing.
  t.notRegex(await registry.metrics(), /^task_queue_backlog\{/m);

  queues = [waiting, empty];
  for (let i = 0; i < 3; i++) await env.client.workflow.start('neverRuns', { taskQueue: waiting, workflowId: `${waiting}-${i}` });
  // Temporal's count is approximate and catches up within moments: read until it shows all three.
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await registry.metrics();
    if (sample(text, 'task_queue_backlog', { task_queue: waiting, type: 'workflow' }) === 3) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.is(sample(text, 'task_queue_backlog', { task_queue: waiting, type: 'workflow' }), 3, text);
  t.is(sample(text, 'task_queue_backlog', { task_queue: waiting, type: 'activity' }), 0);
  t.is(sample(text, 'task_queue_backlog', { task_queue: empty, type: 'workflow' }), 0);
});
