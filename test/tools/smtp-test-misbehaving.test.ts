//! smtp-test against raw SMTP servers that misbehave, each on port 25 of its own loopback address
//! (drip, huge lines, refusal, garbage, STARTTLS injection, credential echo, HELO only): answered
//! where the protocol allows, else 502 upstream_error naming why; never a credential echoed.
import test from 'ava';
import { assertNoCredentials, impatient, PASSWORD, RAW, run, stepNames, USER, useSmtpTool } from './support/smtp-test-bed.js';
import { rejectsWith } from '../helpers/tools.js';

useSmtpTool({ raw: true });

test('a server that echoes the credentials in its reply has them redacted', async (t) => {
  const out = await run(t, { host: RAW['echo-auth'], port: 25, encryption: 'none', username: USER, password: PASSWORD });
  const auth = out.steps.find((s) => s.step === 'AUTH PLAIN')!;
  t.is(auth.reply, '535 5.7.8 rejected [redacted]');
  assertNoCredentials(t, out);
});

test('a server without ESMTP is greeted with HELO', async (t) => {
  const out = await run(t, { host: RAW['helo-only'], port: 25 });
  t.deepEqual(stepNames(out), ['CONNECT', 'EHLO', 'HELO', 'QUIT']);
  t.deepEqual(out.extensions, []);
  t.like(out, { encryption: 'none' });
});

test('a server that drips bytes is cut off at the session deadline: 502 timeout', async (t) => {
  // The drip never ends a line: only the deadline can end the session.
  const err = await rejectsWith(t, run(t, { host: RAW.drip, port: 25 }, impatient), 'upstream_error');
  t.is(err.extras.reason, 'timeout');
});

for (const [behaviour, reason, pattern] of [
  ['huge-line', 'protocol', /longer than 4096 bytes/],
  ['garbage', 'protocol', /unexpected line/],
  ['reject', 'smtp_rejected', /refused the session at the greeting: 554 5\.7\.1 no service/],
  ['injection', 'protocol', /STARTTLS injection/],
] as const) {
  test(`a misbehaving server is 502 upstream_error: ${behaviour}`, async (t) => {
    const err = await rejectsWith(t, run(t, { host: RAW[behaviour], port: 25 }), 'upstream_error');
    t.is(err.extras.reason, reason);
    t.regex(err.message, pattern);
  });
}
