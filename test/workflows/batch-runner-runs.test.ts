//! The batch runner (workflows/batch-runner.ts) on the stack's Temporal, in a namespace of this
//! file's own: it continues as new past its history threshold (lowered here through its input)
//! without losing, repeating or charging twice any item; and a `wait` batch that no grant rescues
//! gives up once its wait for credits (shortened here through the activities' setting) has passed,
//! as `stop` would: the rest skipped with `insufficient_credits`, exact counts and charges.
import test from 'ava';
import { createLedger } from '../../domain/ledger/ledger.js';
import { collections } from '../../lib/mongo.js';
import {
  batchOf,
  client,
  CREDIT_WAIT_MS,
  HASH_TEXT,
  mongo,
  runnerEnded,
  runs,
  startRunner,
  useBatchRunnerBed,
} from './support/batch-runner-bed.js';

useBatchRunnerBed('batch-runner-tests', { workers: true });

/** The runs of a workflow, first to last, following each continue-as-new. */
async function runsOf(workflowId: string, firstRunId: string): Promise<string[]> {
  const ids = [firstRunId];
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, ids.at(-1)).fetchHistory();
    const next = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (!next) return ids;
    ids.push(next);
  }
}

test.serial('the runner continues as new past its history threshold, and every item runs once and is charged once', async (t) => {
  const size = 40;
  const { accountId, batchId, texts } = await batchOf(100, size, 'stop');
  // Past a single event: the runner continues as new after every fill (items hand their slots on
  // without it, so it fills only at the start, when its items stop handing on, and on its recheck).
  const handle = await startRunner({ accountId, maxHistoryEvents: 1 });
  // The runner ends once nothing is left to run.
  await runnerEnded(handle.workflowId);

  const chain = await runsOf(handle.workflowId, handle.signaledRunId);
  t.true(chain.length >= 2, `continued as new (runs: ${chain.length})`);
  const { batches, batchItems } = collections(mongo.db);
  const batch = await batches.findOne({ _id: batchId });
  t.like(batch, {
    status: 'completed',
    charged: size * HASH_TEXT.cost,
    counts: { pending: 0, running: 0, succeeded: size, failed: 0, skipped: 0 },
  });
  t.deepEqual(
    texts.map((text) => runs.get(text)),
    texts.map(() => 1),
    "each item's tool ran once",
  );
  const items = await batchItems.find({ batchId }).sort({ index: 1 }).toArray();
  t.deepEqual(
    items.map((i) => i.status),
    texts.map(() => 'succeeded'),
  );
  t.deepEqual(
    items.map((i) => i.attempt),
    texts.map(() => 0),
    'no item started again',
  );
  t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 100 - size * HASH_TEXT.cost, 'each item charged once');
});

test.serial(
  'a wait batch that no grant rescues gives up after its wait, as stop: the rest skipped with insufficient_credits, exact counts and charges',
  async (t) => {
    const credits = 2 * HASH_TEXT.cost;
    const { accountId, batchId, texts } = await batchOf(credits, 7, 'wait');
    const handle = await startRunner({ accountId });
    await runnerEnded(handle.workflowId);

    const { batches, batchItems, events } = collections(mongo.db);
    const batch = await batches.findOne({ _id: batchId });
    t.like(batch, { status: 'completed', charged: credits, counts: { pending: 0, running: 0, succeeded: 2, failed: 0, skipped: 5 } });
    const paused = await events.find({ accountId, event: 'batch.paused' }).toArray();
    t.is(paused.length, 1, 'it paused for credits first');
    t.true(batch!.completedAt!.getTime() - paused[0]!.createdAt.getTime() >= CREDIT_WAIT_MS, 'and gave up only once its wait had passed');
    const skipped = await batchItems.find({ batchId, status: 'skipped' }).toArray();
    t.is(skipped.length, 5);
    t.true(
      skipped.every((i) => i.problem?.code === 'insufficient_credits' && i.charged === 0),
      JSON.stringify(skipped.map((i) => i.problem)),
    );
    t.is(texts.filter((text) => runs.get(text) === 1).length, 2, 'only the items the balance covered ran their tool');
    t.is(texts.filter((text) => (runs.get(text) ?? 0) > 1).length, 0);
    const completed = await events.find({ accountId, event: 'batch.completed' }).toArray();
    t.is(completed.length, 1);
    t.like(completed[0]!.data, { batchId, status: 'completed', counts: { succeeded: 2, skipped: 5 }, charged: credits });
    t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 0, 'exactly the items that ran are charged');
  },
);
