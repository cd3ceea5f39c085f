//! A monitor's run still under way when its next runs are due: those are skipped. They never call
//! the tool, are charged nothing and are recorded as no run, whether Temporal skipped them or
//! started them and their step found the monitor held. The fixture holds the tool's answer until
//! the test has seen later runs come due and end; no verdict waits on a time.
import test from 'ava';
import { newAccount } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { startPageServer, send } from '../fixtures/http-pages.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { createMonitor, monitorUsage, pauseAndSettle } from './support.js';

test('a run due while the previous one is under way is skipped: the tool is not called, nothing charged, no run recorded', async (t) => {
  t.timeout(3 * 60_000);
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let open = 0;
  let mostOpen = 0;
  let calls = 0;
  const pages = await startPageServer({
    routes: {
      '/held': async (_req, res) => {
        calls++;
        mostOpen = Math.max(mostOpen, ++open);
        await released;
        open--;
        send(res, 200, 'text/plain', 'answered');
      },
    },
  });
  t.teardown(async () => {
    release();
    await pages.close();
  });
  const account = await newAccount(500);
  const monitor = await createMonitor(account, {
    name: 'Held answer',
    tool: 'http-request',
    input: { url: pages.url('/held') },
    schedule: { every: '1s' },
    assertions: [{ path: '/statusCode', op: 'eq', value: 200 }],
    alert: { notify: [] },
  });
  const runIds = `WorkflowId STARTS_WITH "call-${account.id}-${monitor.id}"`;

  await eventually(
    async () => calls,
    (n) => n >= 1,
    60_000,
    'the first run calling the tool',
  );
  // Later runs come due while the first is held: each either skipped by Temporal or started and
  // ended by its own step. Two of them, before the answer is let go.
  const skippedIds = await withTemporalClient(async (client) => {
    const ended = async () => {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query: `${runIds} AND ExecutionStatus = "Completed"` })) ids.push(w.workflowId);
      const { info } = await client.schedule.getHandle(`monitor-${monitor.id}`).describe();
      return { ids, due: ids.length + info.numActionsSkippedOverlap };
    };
    return (await eventually(ended, (e) => e.due >= 2, 60_000, 'two later runs due and ended while the first is held')).ids;
  });
  t.is(calls, 1, 'no run due meanwhile called the tool');
  release();

  const runs = await pauseAndSettle(account, monitor.id);
  t.is(mostOpen, 1, "no two runs' calls of the tool were ever under way at once");
  t.is(runs.length, calls, 'every run recorded called the tool once');
  t.true(runs.length >= 1);
  const usage = await monitorUsage(account, monitor.id);
  t.deepEqual(usage.map((u) => u.requestId).sort(), runs.map((r) => r.requestId).sort(), 'a charge for each run recorded, no other');
  for (const id of skippedIds) {
    t.false(
      runs.some((r) => r.requestId === id),
      `skipped ${id} recorded no run`,
    );
    t.false(
      usage.some((u) => u.requestId === id),
      `skipped ${id} charged nothing`,
    );
  }
  t.true(
    runs.every((r) => (r.outcome === 'pass') === r.charged > 0),
    'the runs that went ahead were charged iff they answered',
  );
});
