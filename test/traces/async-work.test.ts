//! Traces of work that outlives its request, read back from Jaeger (`npm run test:traces`): an
//! asynchronous call continues the trace of its 202, its webhook delivery is a trace of its own
//! linked to the call's, with no signing secret; a batch's items are children of the request that
//! made it.
import test from 'ava';
import { callTool, newAccount, request } from '../helpers/api.js';
import { registerEndpoint } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import {
  ancestry,
  assertOneTree,
  byName,
  callSpans,
  chainOf,
  everything,
  hasAll,
  type JaegerTrace,
  names,
  search,
  tag,
  tagsOf,
  TRACE_WAIT_MS,
  traceIdOf,
  traceOf,
} from './support/jaeger.js';

const receiver = receiverForFile();

test.serial(
  'an asynchronous call continues the trace of its 202; its call.completed delivery is a trace of its own, linked to it, with no signing secret',
  async (t) => {
    const account = await newAccount(100);
    const endpoint = await registerEndpoint(account, receiver.url('/traced'), ['call.completed']);
    const started = await callTool(account.apiKey, 'hash-text', { text: 'traced later', algorithm: 'sha256' }, { prefer: 'respond-async' });
    t.is(started.status, 202);
    const traceId = traceIdOf(started);
    const call = await traceOf(traceId, hasAll([...callSpans('hash-text'), 'ledger commit']));
    assertOneTree(t, call);
    t.is(tag(byName(call, 'POST /api/v1/tools/:tool')!, 'http.response.status_code'), 202);
    t.deepEqual(ancestry(call, 'tool hash-text').slice(1), callSpans('hash-text').slice(0, 5).reverse(), "the tool ran in the 202's trace");

    await receiver.waitFor((all) => all.some((d) => d.path === '/traced'), TRACE_WAIT_MS, 'the call.completed delivery');
    const [delivery] = await search(
      {
        service: 'utility-tools-worker',
        operation: 'webhook delivery',
        tags: JSON.stringify({ 'utility_tools.webhook_endpoint_id': endpoint.id }),
      },
      (ts) => ts.some((x) => byName(x, 'upstream http')),
    );
    const root = byName(delivery!, 'webhook delivery')!;
    t.false(
      root.references.some((r) => r.refType === 'CHILD_OF'),
      'a trace of its own',
    );
    t.like(tagsOf(root), {
      'utility_tools.event': 'call.completed',
      'utility_tools.delivery.outcome': 'delivered',
      'http.response.status_code': 200,
    });
    const link = root.references.find((r) => r.refType === 'FOLLOWS_FROM');
    t.is(link?.traceID, traceId, "linked to the call's trace");
    await traceOf(traceId, (x) => x.spans.some((s) => s.spanID === link?.spanID)); // the linked span is the call's
    t.is(ancestry(delivery!, 'upstream http')[1], 'webhook delivery');
    t.false(everything(delivery!).includes(endpoint.secret.slice(6)), 'no signing secret');
  },
);

test.serial("a batch's items are children of the request that made it", async (t) => {
  const account = await newAccount(100);
  const res = await request('POST', '/api/v1/batches', {
    token: account.apiKey,
    body: { tool: 'hash-text', items: [{ text: 'one' }, { text: 'two' }], defaults: { algorithm: 'sha256' } },
  });
  t.is(res.status, 202, JSON.stringify(res.body));
  const itemsDone = (x: JaegerTrace) => names(x).filter((n) => n === 'ledger commit').length === 2;
  const trace = await traceOf(traceIdOf(res), itemsDone);
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const roots = trace.spans.filter((s) => !s.references.some((r) => r.refType === 'CHILD_OF' && ids.has(r.spanID)));
  t.deepEqual(
    roots.map((s) => s.operationName),
    ['POST /api/v1/batches'],
    "one tree, rooted at the batch's request (the runner, which outlives it, is not in it)",
  );
  const tools = trace.spans.filter((s) => s.operationName === 'tool hash-text');
  t.is(tools.length, 2, "each item's tool");
  for (const tool of tools) {
    const chain = chainOf(trace, tool);
    t.deepEqual(
      chain.slice(-3),
      ['RunWorkflow:toolCall', 'StartWorkflow:toolCall', 'POST /api/v1/batches'],
      `an item: ${chain.join(' < ')}`,
    );
  }
});
