//! smtp-test's refusals and parsers: a closed port, a non-public server, a port outside the list
//! and a lone credential are refused before any session (the call left with nothing behind); the
//! reply parsers, the redaction and the input schema.
import { getEventListeners } from 'node:events';
import test from 'ava';
import {
  capabilities,
  chooseMechanism,
  formatReply,
  parseReplyLine,
  plainResponse,
  redact,
} from '../../activities/network/smtp-replies.js';
import type { SmtpTestInput } from '../../domain/tools/smtp-test.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import { rejectsWith, validInput } from '../helpers/tools.js';
import { ctx, PASSWORD, run, schemas, smtp, USER, useSmtpTool } from './support/smtp-test-bed.js';

useSmtpTool({});

test('a closed mail port is 502 connection_refused', async (t) => {
  const err = await rejectsWith(t, run(t, { host: N.fixture, port: 25 }), 'upstream_error');
  t.is(err.extras.reason, 'connection_refused');
});

test('a session that never connected leaves nothing behind on the call: its deadline is cleared with it', async (t) => {
  const caller = new AbortController();
  const input = validInput<SmtpTestInput>(t, schemas.input, { host: N.fixture, port: 25 });
  await rejectsWith(t, smtp(input, standaloneContext('smtp-test', caller.signal)), 'upstream_error');
  t.is(getEventListeners(caller.signal, 'abort').length, 0);
});

for (const [host, reason] of [
  ['10.0.0.1', 'private'],
  ['127.0.0.1', 'loopback'],
  [N.private10, 'private'],
  [N.metadata, 'metadata'],
  [N.nat64, 'private'],
] as const) {
  test(`a non-public mail server is refused: ${host}`, async (t) => {
    const err = await rejectsWith(t, run(t, { host, port: 587 }), 'target_not_allowed');
    t.is(err.extras.reason, reason);
  });
}

test('a port outside 25, 465, 587, 2525 is 422 port_not_allowed, before any connection', async (t) => {
  for (const port of [22, 26, 80, 443, 2526]) {
    const err = await rejectsWith(t, smtp({ host: N.fixture, port, encryption: 'starttls' }, ctx), 'port_not_allowed');
    t.deepEqual(err.extras.allowedPorts, [25, 465, 587, 2525]);
  }
});

test('a password without a username is 400 on /username, and the reverse on /password', async (t) => {
  await rejectsWith(t, run(t, { host: N.fixture, password: 'pw' }), 'validation_failed', '/username');
  await rejectsWith(t, run(t, { host: N.fixture, username: 'bob' }), 'validation_failed', '/password');
});

test('reply parsing: single and multi-line replies, capabilities and mechanisms', (t) => {
  t.deepEqual(parseReplyLine('250-PIPELINING'), { code: 250, last: false, text: 'PIPELINING' });
  t.deepEqual(parseReplyLine('250 OK'), { code: 250, last: true, text: 'OK' });
  t.deepEqual(parseReplyLine('221'), { code: 221, last: true, text: '' });
  t.is(parseReplyLine('HTTP/1.1 200 OK'), null);
  t.is(parseReplyLine('2500 x'), null);
  const ehlo = {
    code: 250,
    lines: ['mx.example', 'pipelining', 'SIZE 35882577', 'AUTH LOGIN PLAIN XOAUTH2', 'AUTH=LOGIN', 'STARTTLS', '8BITMIME'],
  };
  t.deepEqual(capabilities(ehlo), {
    extensions: ['PIPELINING', 'SIZE 35882577', 'AUTH LOGIN PLAIN XOAUTH2', 'AUTH=LOGIN', 'STARTTLS', '8BITMIME'],
    authMechanisms: ['LOGIN', 'PLAIN', 'XOAUTH2'],
    startTls: true,
  });
  t.is(formatReply(ehlo).split('\n')[0], '250-mx.example');
  t.is(formatReply(ehlo).split('\n').at(-1), '250 8BITMIME');
  t.is(chooseMechanism(['LOGIN', 'PLAIN']), 'PLAIN');
  t.is(chooseMechanism(['CRAM-MD5', 'LOGIN']), 'LOGIN');
  t.is(chooseMechanism(['XOAUTH2']), null);
});

test('redaction removes the credentials and every encoding of them this client sends', (t) => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const text = `535 ${USER} ${PASSWORD} ${b64(USER)} ${b64(PASSWORD)} ${plainResponse(USER, PASSWORD)}`;
  t.is(redact(text, USER, PASSWORD), '535 [redacted] [redacted] [redacted] [redacted] [redacted]');
  t.is(redact('250 ok', 'ab', 'x9!'), '250 ok');
});

test('input schema: host required, port 587 and starttls by default, example valid', (t) => {
  const input: Record<string, unknown> = { host: 'smtp.example.com' };
  t.true(schemas.input(input));
  t.like(input, { port: 587, encryption: 'starttls' });
  t.false(schemas.input({ host: 'x', encryption: 'tls' }));
  t.false(schemas.input({ host: 'x', from: 'a@b' }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output(structuredClone((schemas.output.schema as { examples: unknown[] }).examples[0])));
});
