//! A failed activity is logged with what failed: its type, message and code, never as `{}`, and
//! never with what the tool was given.
import test from 'ava';
import { Writable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import { ToolError } from '../../contracts/errors.js';
import { createLogger } from '../../lib/logger.js';
import { sdkLogger } from '../../lib/temporal-runtime.js';
import { callTool, isProblem, newAccount, type UncheckedJson } from '../helpers/api.js';
import { stackLogLine } from '../helpers/stack-logs.js';
import { closedPort } from '../fixtures/http-pages.js';

/** The lines a logger wrote, parsed. */
function capture() {
  const lines: Record<string, UncheckedJson>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, log: createLogger({ name: 'test', destination: stream }) };
}

test('the SDK logger writes out an error under any key, with type, message, code and cause', (t) => {
  const { lines, log } = capture();
  const failure = ApplicationFailure.create({
    type: 'upstream_error',
    message: 'connection refused',
    nonRetryable: true,
    details: ['a detail the tool saw'],
  });
  const cause = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  sdkLogger(log).warn('Activity failed', { error: failure, durationMs: 3 });
  sdkLogger(log).error('Failing workflow task', { failure: new Error('outer', { cause }) });
  t.like(lines[0], {
    msg: 'Activity failed',
    component: 'temporal',
    durationMs: 3,
    error: { type: 'upstream_error', message: 'connection refused' },
  });
  t.false(JSON.stringify(lines[0]).includes('a detail the tool saw'), "a failure's details stay out of the log");
  t.like(lines[1], { failure: { type: 'Error', message: 'outer', cause: { type: 'Error', message: 'write EPIPE', code: 'EPIPE' } } });
  t.regex(lines[1]!.failure.stack, /outer/);
});

test("the service logger writes out errors under err and error; a tool's error keeps its name and code", (t) => {
  const { lines, log } = capture();
  log.warn({ err: new ToolError('upstream_error', 'refused') }, 'one');
  log.warn({ error: new TypeError('bad') }, 'two');
  t.like(lines[0], { err: { type: 'ToolError', message: 'refused', code: 'upstream_error' } });
  t.like(lines[1], { error: { type: 'TypeError', message: 'bad' } });
});

test('stack: a call that fails in its activity leaves a worker log line naming the failure', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'http-request', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  const requestId = res.body.requestId as string;
  const line = await stackLogLine(requestId, 'Activity failed');
  t.like(line, { msg: 'Activity failed', workflowId: requestId, error: { type: 'upstream_error' } });
  t.regex(line!.error.message, /refused|connect/i);
});
