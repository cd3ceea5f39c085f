//! What a trace changes where an operator looks, without a trace backend: `npm test`'s stack traces
//! every call to a port nothing listens on (scripts/stack/test-stack.ts), as a service whose
//! collector is down does, and calls still answer. Every answer carries its W3C `traceparent`, a
//! new trace per request (a caller's is not continued); a problem names its `traceId`; a call's
//! workflow memo names the trace that started it, an asynchronous call's too; a failed call's
//! worker log line carries its `trace_id`. The spans themselves are read back from Jaeger by
//! test/traces/ (`npm run test:traces`).
import test from 'ava';
import { callTool, isProblem, newAccount, request, type Answer } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { stackLogLine } from '../helpers/stack-logs.js';
import { closedPort } from '../fixtures/http-pages.js';

/** The trace id of an answer's sampled `traceparent` (the stack samples every call). */
function traceIdOf(res: Answer): string {
  const header = res.headers.get('traceparent') ?? '';
  const match = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(header);
  if (!match) throw new Error(`no sampled traceparent on the answer: "${header}"`);
  return match[1]!;
}

const memoOf = (workflowId: string) => withTemporalClient(async (client) => (await client.workflow.getHandle(workflowId).describe()).memo);

test('a call answers with its traceparent, and its workflow memo names the same trace', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'traced', algorithm: 'sha256' });
  t.is(res.status, 200);
  const traceId = traceIdOf(res);
  t.deepEqual(await memoOf(res.headers.get('x-request-id')!), { traceId }, 'from the workflow to its trace');
});

test("every answer has a trace of its own, a caller's traceparent not continued", async (t) => {
  const callers = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const [a, b] = await Promise.all([request('GET', '/healthz', { headers: { traceparent: callers } }), request('GET', '/api/v1/tools')]);
  t.is(a.status, 200);
  t.is(b.status, 200);
  t.not(traceIdOf(a), '0af7651916cd43dd8448eb211c80319c', 'the API is the edge: it starts the trace');
  t.not(traceIdOf(a), traceIdOf(b));
});

test('a problem names its trace, before any call (a refused key) and from a failed call', async (t) => {
  const refused = await request('GET', '/api/v1/account', { token: 'sk_live_not-a-key' });
  t.is(refused.status, 401);
  t.is(refused.body.traceId, traceIdOf(refused));

  const account = await newAccount(10);
  const failed = await callTool(account.apiKey, 'http-request', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.true(isProblem(failed, 502, 'upstream_error'), JSON.stringify(failed.body));
  t.is(failed.body.traceId, traceIdOf(failed));
  t.deepEqual(await memoOf(failed.body.requestId), { traceId: failed.body.traceId });
});

test("a failed call's worker log line carries its trace_id", async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'http-request', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  const requestId = res.body.requestId as string;
  const line = await stackLogLine(requestId, 'Activity failed');
  t.is(line.trace_id, res.body.traceId);
});

test('an asynchronous call continues the trace of the request that started it', async (t) => {
  const account = await newAccount(10);
  const started = await callTool(account.apiKey, 'hash-text', { text: 'traced later', algorithm: 'sha256' }, { prefer: 'respond-async' });
  t.is(started.status, 202);
  const traceId = traceIdOf(started);
  t.deepEqual(await memoOf(started.body.requestId), { traceId }, "the workflow runs in the 202's trace");
  const read = await request('GET', started.headers.get('location')!, { token: account.apiKey });
  t.is(read.status, 200);
  t.not(traceIdOf(read), traceId, 'reading it is a request of its own');
});
