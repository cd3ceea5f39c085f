//! A call's step cancelled by its worker (a local activity is, when its workflow run is evicted)
//! at each point where a tool may still be on its way: the step ends as cancelled for its retry to
//! decide, and the tool's own late failure cannot end the worker process as an unhandled
//! rejection, as it once did under `npm run chaos`. And an MCP call's step stopped by its client's
//! cancellation, which it looks for itself. Real ledger on the real database; the tools are
//! stand-ins that notice their cancellation late, as a tool awaiting a lookup does.
import test from 'ava';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { CancelledFailure } from '@temporalio/common';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
import { newId } from '../../lib/ids.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { createCallStep } from '../../activities/call-step.js';
import { createCallKeys } from '../../domain/calls/keys.js';
import { createLedger, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createCallCancellations } from '../../domain/calls/cancellations.js';
import { testEnv } from '../helpers/env.js';
import { unhandledDuring } from '../helpers/unhandled.js';

let mongo: Mongo;

test.before(async () => {
  mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, '/call_step_cancel_tests'));
});
test.after.always(() => mongo?.close());

/** Starts its work, and fails a turn later with the abort's reason once it sees the signal aborted. */
const noticesLate: ToolHandler = async (_input, ctx) => {
  await nextTurn();
  ctx.signal.throwIfAborted();
  return { answered: true };
};

/** Waits for the abort, then fails with its reason a turn later. */
const waitsForTheAbort: ToolHandler = (_input, ctx) =>
  new Promise((_, reject) => ctx.signal.addEventListener('abort', () => setImmediate(() => reject(ctx.signal.reason)), { once: true }));

async function stepCancelled(t: import('ava').ExecutionContext, tool: string, handler: ToolHandler, cancelAt: 'reserve' | 'tool') {
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const ledger = createLedger(mongo.db);
  // The cancel arrives while the hold is being taken: the tool then starts with its signal aborted.
  // biome-ignore lint/nursery/noMisusedPromises: the ledger is an object of methods, not a promise (Biome 2.6 infers its type from an inner async function)
  const cancelledAtReserve: Ledger = { ...ledger, reserve: async (call) => ledger.reserve(call).finally(() => env.cancel('CANCELLED')) };
  const handlers = {
    [tool]:
      cancelAt === 'tool' ? (((input, ctx) => (setImmediate(() => env.cancel('CANCELLED')), handler(input, ctx))) as ToolHandler) : handler,
  };
  const { callStep } = createCallStep({
    handlers,
    ledger: cancelAt === 'reserve' ? cancelledAtReserve : ledger,
    callKeys: createCallKeys(mongo.db),
  });
  const { account } = await createAccounts(mongo.db).open({ credits: 10 });
  const call = { accountId: account._id, tool, pool: 'cpu' as const, cost: 3, timeoutMs: 10_000, input: {} };
  const unhandled = await unhandledDuring(async () => {
    const ended = await env.run(callStep, { requestId: newId('req'), call, mayBeSettled: false }).catch((err: unknown) => err);
    t.true(ended instanceof CancelledFailure, `the step ended with ${String(ended)}`);
    // The tool's own rejection comes a turn after the step gave up on it.
    await nextTurn();
  });
  t.deepEqual(unhandled, []);
  t.is((await ledger.balanceOf(account._id)).chargedBalance, 10, 'nothing is charged');
}

test.serial('cancelled while it takes its hold, a step ends cancelled and the tool failing late is not left unhandled', async (t) => {
  await stepCancelled(t, 'notices-late', noticesLate, 'reserve');
});

test.serial('cancelled while its tool runs, a step ends cancelled and the tool failing late is not left unhandled', async (t) => {
  await stepCancelled(t, 'waits-for-the-abort', waitsForTheAbort, 'tool');
});

test.serial(
  "an MCP call's step finds its client's cancellation itself: the tool stops, the hold is refunded, the answer is `cancelled`",
  async (t) => {
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const ledger = createLedger(mongo.db);
    const cancellations = createCallCancellations(mongo.db);
    let toolSawAbort = false;
    const { callStep } = createCallStep({
      handlers: {
        'held-page': (_input, ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener(
              'abort',
              () => {
                toolSawAbort = true;
                reject(ctx.signal.reason);
              },
              { once: true },
            ),
          ),
      },
      ledger,
      callKeys: createCallKeys(mongo.db),
      cancelledByClient: cancellations.isMarked,
    });
    const { account } = await createAccounts(mongo.db).open({ credits: 10 });
    const requestId = newId('req');
    // What the API does on the client's cancellation once the workflow's own was asked.
    await cancellations.mark(requestId);
    const call = {
      accountId: account._id,
      tool: 'held-page',
      pool: 'cpu' as const,
      cost: 3,
      timeoutMs: 60_000,
      input: {},
      via: 'mcp' as const,
    };
    const done = await env.run(callStep, { requestId, call, mayBeSettled: false });
    t.like(done, { outcome: 'refunded', result: { ok: false, error: { code: 'cancelled' } } });
    t.true(toolSawAbort, "the tool's signal was aborted");
    t.is((await ledger.balanceOf(account._id)).chargedBalance, 10, 'nothing is charged');
  },
);

test.serial("a REST call's step never looks for a client's cancellation: it has none to send", async (t) => {
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const ledger = createLedger(mongo.db);
  let looked = 0;
  const { callStep } = createCallStep({
    // Longer than a step waits before it first looks (a second).
    handlers: { slow: () => new Promise((resolve) => setTimeout(() => resolve({ answered: true }), 1_500)) },
    ledger,
    callKeys: createCallKeys(mongo.db),
    cancelledByClient: async () => {
      looked++;
      return true;
    },
  });
  const { account } = await createAccounts(mongo.db).open({ credits: 10 });
  const call = { accountId: account._id, tool: 'slow', pool: 'cpu' as const, cost: 3, timeoutMs: 60_000, input: {} };
  const done = await env.run(callStep, { requestId: newId('req'), call, mayBeSettled: false });
  t.like(done, { outcome: 'charged', result: { ok: true, output: { answered: true } } });
  t.is(looked, 0);
});
