//! Calls of quick tools (hash-text) run on their own queue: the API process that takes the call
//! runs it on its own worker, handed the workflow's first task by eager start, and the cpu pool's
//! workers serve the same queue, so the pool runs such calls without any API.
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { callTool, newAccount, balanceOf } from '../helpers/api.js';
import { stackControl } from '../disruptive/support/stack-control.js';
import { QUICK_CALLS_QUEUE } from '../../lib/temporal-shared.js';
import { testEnv } from '../helpers/env.js';

async function withTemporal<T>(use: (connection: Connection, client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    return await use(connection, new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' }));
  } finally {
    await connection.close();
  }
}

/** The queue a call's workflow ran on and who took its first workflow task. */
async function firstTaskOf(client: Client, workflowId: string): Promise<{ taskQueue?: string | null; identity?: string | null }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    taskQueue: events[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name,
    identity: events.find((e) => e.workflowTaskStartedEventAttributes)?.workflowTaskStartedEventAttributes?.identity,
  };
}

test('a quick call runs in the API process that took it, on the quick-calls queue, and is charged once', async (t) => {
  const account = await newAccount(10);
  const { api } = await stackControl(testEnv.stackControlUrl()).pids();
  const ran: { taskQueue?: string | null; identity?: string | null }[] = [];
  await withTemporal(async (_, client) => {
    // Sequential calls: while another test file's calls fill every slot of the API's worker a
    // start goes through matching instead, so one call alone could not tell.
    for (let i = 0; i < 5; i++) {
      const res = await callTool(account.apiKey, 'hash-text', { text: `quick ${i}`, algorithm: 'sha256' });
      t.is(res.status, 200);
      ran.push(await firstTaskOf(client, res.headers.get('x-request-id')!));
    }
  });
  t.true(ran.every((r) => r.taskQueue === QUICK_CALLS_QUEUE), JSON.stringify(ran));
  t.true(
    ran.some((r) => r.identity?.startsWith(`${api}@`) && r.identity.endsWith(' api')),
    `some call's first task ran in the API process ${api}: ${JSON.stringify(ran)}`,
  );
  t.is(await balanceOf(account), 5);
});

test('the cpu pool serves the quick-calls queue too, so it runs quick calls without an API', async (t) => {
  const { workers, api } = await stackControl(testEnv.stackControlUrl()).pids();
  const pollers = await withTemporal(async (connection) => {
    const { pollers = [] } = await connection.workflowService.describeTaskQueue({
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: { name: QUICK_CALLS_QUEUE, kind: 1 /* NORMAL */ },
      taskQueueType: 1 /* WORKFLOW */,
    });
    return pollers.map((p) => p.identity ?? '');
  });
  t.true(pollers.some((p) => p.startsWith(`${workers}@`)), `the workers process ${workers} polls ${QUICK_CALLS_QUEUE}: ${pollers.join(', ')}`);
  t.true(pollers.some((p) => p.startsWith(`${api}@`)), `the API process ${api} polls ${QUICK_CALLS_QUEUE}: ${pollers.join(', ')}`);
});
