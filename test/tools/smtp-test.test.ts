//! smtp-test: nodemailer's smtp-server with STARTTLS, implicit TLS and AUTH on 127.0.0.2 (the mail
//! ports the tool accepts), raw servers that misbehave (drip, huge lines, refusal, STARTTLS
//! injection, credential echo), refused targets and ports, the reply parsers; then the same
//! through HTTP against the running stack.
import { getEventListeners } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import {
  capabilities,
  chooseMechanism,
  formatReply,
  parseReplyLine,
  plainResponse,
  redact,
} from '../../activities/network/smtp-replies.js';
import { createSmtpTest } from '../../activities/network/smtp-test.js';
import type { SmtpTestInput, SmtpTestOutput } from '../../domain/tools/smtp-test.js';
import { createGuardedSockets } from '../../lib/guarded-sockets.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard } from '../../lib/target-guard.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';
import {
  FIXTURE_USERS,
  startRawSmtp,
  startSmtpServer,
  type RawBehaviour,
  type RawFixture,
  type SmtpFixture,
} from '../fixtures/smtp-server.js';
import { caFromEnv, createCa, issueLeaf, selfSigned } from '../fixtures/tls-certs.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, against real SMTP servers (no stack) =====

const schemas = compileToolSchemas('smtp-test');
const ctx = standaloneContext();
const [USER, PASSWORD] = Object.entries(FIXTURE_USERS)[0]!;

/** Raw misbehaving servers, each on port 25 of its own loopback address (only 4 ports are allowed). */
const RAW: Record<RawBehaviour, string> = {
  drip: '127.0.0.4',
  'huge-line': '127.0.0.5',
  reject: '127.0.0.6',
  garbage: '127.0.0.7',
  injection: '127.0.0.8',
  'helo-only': '127.0.0.9',
  'echo-auth': '127.0.0.10',
};

let dns: DnsServer;
let smtp: ReturnType<typeof createSmtpTest>;
/** A tool with a short session deadline, for the dripping server. */
let impatient: ReturnType<typeof createSmtpTest>;
const fixtures: Record<string, SmtpFixture> = {};
const raws: RawFixture[] = [];

test.before(async () => {
  const ca = process.env.TEST_CA_CERT ? await caFromEnv() : await createCa(await mkdtemp(path.join(os.tmpdir(), 'smtp-test-ca-')));
  const [cert, self] = await Promise.all([issueLeaf(ca, { names: [N.fixture, '127.0.0.2', '127.0.0.3'] }), selfSigned([N.fixture])]);
  // 127.0.0.2: the address the test stack allowlists, on every port smtp-test accepts but 25 (kept closed).
  fixtures.starttls = await startSmtpServer({ port: 2525, tls: cert });
  fixtures.implicit = await startSmtpServer({ port: 465, tls: cert, implicitTls: true });
  fixtures.plain = await startSmtpServer({ port: 587, allowInsecureAuth: true });
  fixtures.loginOnly = await startSmtpServer({ host: '127.0.0.3', port: 587, tls: cert, authMethods: ['LOGIN'] });
  fixtures.selfSigned = await startSmtpServer({ host: '127.0.0.3', port: 465, tls: self, implicitTls: true });
  for (const [behaviour, host] of Object.entries(RAW)) raws.push(await startRawSmtp(behaviour as RawBehaviour, { host, port: 25 }));

  dns = await startDnsServer();
  const allowlist = ['127.0.0.2/32', '127.0.0.3/32', ...Object.values(RAW).map((ip) => `${ip}/32`)];
  const guard = createTargetGuard({ allowlist, resolver: createResolver({ servers: [dns.address] }) });
  const net = { sockets: createGuardedSockets({ guard, ca: ca.cert }) };
  smtp = createSmtpTest({ net });
  impatient = createSmtpTest({ net, deadlineMs: 1_500 });
});
test.after.always(async () => {
  await Promise.allSettled([...Object.values(fixtures).map((f) => f.close()), ...raws.map((r) => r.close()), dns?.close()]);
});

async function run(t: ExecutionContext, fields: Partial<SmtpTestInput>, tool = smtp): Promise<SmtpTestOutput> {
  const out = await tool(validInput<SmtpTestInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

const stepNames = (out: SmtpTestOutput) => out.steps.map((s) => s.step);

/** No trace of the credentials in anything the tool answers. */
function assertNoCredentials(t: ExecutionContext, out: unknown) {
  const text = JSON.stringify(out);
  for (const secret of [PASSWORD, USER, Buffer.from(PASSWORD).toString('base64'), plainResponse(USER, PASSWORD)])
    t.false(text.includes(secret), `leaked ${secret}`);
}

test('STARTTLS: banner, EHLO before and after TLS, the certificate, extensions and mechanisms', async (t) => {
  const out = await run(t, { host: N.fixture, port: 2525 });
  t.like(out, {
    host: 'fixture.test',
    port: 2525,
    encryption: 'starttls',
    authAttempted: false,
    authSucceeded: false,
    certificateSubject: 'CN=fixture.test',
    certificateValid: true,
    banner: 'mx.fixture.test ESMTP fixture ESMTP ready',
  });
  t.regex(out.certificateIssuer!, /^CN=Utility Tools Test CA/);
  t.true(Date.parse(out.certificateExpiresUtc!) > Date.now());
  t.deepEqual(stepNames(out), ['CONNECT', 'EHLO', 'STARTTLS', 'TLS', 'EHLO', 'QUIT']);
  t.regex(out.steps[0]!.reply, /^220 /);
  t.regex(out.steps[3]!.reply, /^TLSv1\.[23] /);
  t.true(out.steps.every((s) => Number.isInteger(s.ms) && s.ms >= 0));
  t.deepEqual(out.authMechanisms, ['PLAIN', 'LOGIN']);
  t.true(out.extensions.includes('AUTH PLAIN LOGIN'));
  t.true(out.extensions.some((e) => e.startsWith('SIZE')));
  t.is(fixtures.starttls!.mailFromCount, 0);
});

test('AUTH with good credentials succeeds over STARTTLS; no reply carries them; no mail is sent', async (t) => {
  const out = await run(t, { host: N.fixture, port: 2525, username: USER, password: PASSWORD });
  t.like(out, { authAttempted: true, authSucceeded: true, encryption: 'starttls' });
  t.deepEqual(stepNames(out), ['CONNECT', 'EHLO', 'STARTTLS', 'TLS', 'EHLO', 'AUTH PLAIN', 'QUIT']);
  t.regex(out.steps[5]!.reply, /^235 /);
  assertNoCredentials(t, out);
  // Tests of a file run concurrently: look for this test's attempt among the fixture's.
  t.true(fixtures.starttls!.auths.some((a) => a.username === USER && a.method === 'PLAIN' && a.accepted && a.secure));
  t.is(fixtures.starttls!.mailFromCount, 0);
});

test("AUTH with a wrong password is an answer: authSucceeded false with the server's refusal", async (t) => {
  const out = await run(t, { host: N.fixture, port: 2525, username: USER, password: 'wrong password' });
  t.like(out, { authAttempted: true, authSucceeded: false });
  t.regex(out.steps.find((s) => s.step === 'AUTH PLAIN')!.reply, /^535 /);
  t.false(JSON.stringify(out).includes('wrong password'));
});

test('AUTH LOGIN where PLAIN is not offered', async (t) => {
  const out = await run(t, { host: '127.0.0.3', port: 587, username: USER, password: PASSWORD });
  t.deepEqual(out.authMechanisms, ['LOGIN']);
  t.like(out, { authSucceeded: true, encryption: 'starttls' });
  t.true(stepNames(out).includes('AUTH LOGIN'));
  assertNoCredentials(t, out);
});

test('port 465 always speaks implicit TLS', async (t) => {
  for (const encryption of ['starttls', 'none', 'ssl'] as const) {
    const out = await run(t, { host: N.fixture, port: 465, encryption, username: USER, password: PASSWORD });
    t.like(
      out,
      { encryption: 'implicit-tls', certificateSubject: 'CN=fixture.test', certificateValid: true, authSucceeded: true },
      encryption,
    );
    t.deepEqual(stepNames(out), ['CONNECT', 'EHLO', 'AUTH PLAIN', 'QUIT']);
  }
});

test('an invalid certificate is reported, not refused', async (t) => {
  const out = await run(t, { host: '127.0.0.3', port: 465 });
  t.like(out, {
    encryption: 'implicit-tls',
    certificateValid: false,
    certificateError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    certificateSubject: 'CN=fixture.test',
  });
});

test('encryption none stays in plain text although STARTTLS is offered', async (t) => {
  const out = await run(t, { host: N.fixture, port: 2525, encryption: 'none' });
  t.like(out, {
    encryption: 'none',
    certificateSubject: null,
    certificateIssuer: null,
    certificateExpiresUtc: null,
    certificateValid: null,
  });
  t.true(out.extensions.includes('STARTTLS'));
  t.deepEqual(stepNames(out), ['CONNECT', 'EHLO', 'QUIT']);
});

test('encryption ssl against a STARTTLS port fails the handshake: 502', async (t) => {
  const err = await rejectsWith(t, run(t, { host: N.fixture, port: 2525, encryption: 'ssl' }), 'upstream_error');
  t.is(err.extras.reason, 'tls');
});

test('credentials are not sent unencrypted when STARTTLS was asked for but not offered', async (t) => {
  const out = await run(t, { host: N.fixture, port: 587, username: 'carol', password: PASSWORD });
  t.like(out, { encryption: 'none', authAttempted: true, authSucceeded: false });
  t.regex(out.steps.find((s) => s.step === 'AUTH')!.reply, /^not sent: the session is not encrypted/);
  t.false(fixtures.plain!.auths.some((a) => a.username === 'carol'));
});

test('with encryption none chosen explicitly, credentials are sent in plain text', async (t) => {
  const out = await run(t, { host: N.fixture, port: 587, encryption: 'none', username: USER, password: PASSWORD });
  t.like(out, { encryption: 'none', authSucceeded: true });
  t.true(fixtures.plain!.auths.some((a) => a.accepted && !a.secure));
  assertNoCredentials(t, out);
});

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

// ===== Integration: through HTTP against the running stack (npm test) =====

test('HTTP: STARTTLS with good credentials answers 200, costs 3 credits, and never echoes them', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, port: 2525, username: USER, password: PASSWORD });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, {
    encryption: 'starttls',
    authAttempted: true,
    authSucceeded: true,
    certificateSubject: 'CN=fixture.test',
    certificateValid: true,
  });
  assertNoCredentials(t, res.body);
  t.is(res.headers.get('x-credits-charged'), '3');
  t.is(await balanceOf(account), 7);
});

test('HTTP: wrong credentials and implicit TLS are charged 200 answers', async (t) => {
  const account = await newAccount(10);
  const wrong = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, port: 2525, username: USER, password: 'nope' });
  t.like(wrong.body, { authAttempted: true, authSucceeded: false });
  const implicit = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, port: 465 });
  t.like(implicit.body, { encryption: 'implicit-tls', authAttempted: false });
  t.is(await balanceOf(account), 4);
});

test('HTTP: a private mail server is 422 target_not_allowed and not charged', async (t) => {
  const account = await newAccount(10);
  for (const host of ['10.0.0.1', '127.0.0.1', N.private10]) {
    const res = await callTool(account.apiKey, 'smtp-test', { host, port: 587 });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${host}: ${JSON.stringify(res.body)}`);
  }
  t.is(await balanceOf(account), 10);
});

test('HTTP: a port outside the list is 422 port_not_allowed; a lone password is 400; neither is charged', async (t) => {
  const account = await newAccount(10);
  const port = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, port: 2526 });
  t.true(isProblem(port, 422, 'port_not_allowed'));
  t.deepEqual(port.body.allowedPorts, [25, 465, 587, 2525]);
  const lone = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, password: PASSWORD });
  t.true(isProblem(lone, 400, 'validation_failed'));
  t.deepEqual(
    lone.body.errors.map((e: { field: string }) => e.field),
    ['/username'],
  );
  t.false(JSON.stringify(lone.body).includes(PASSWORD));
  t.is(await balanceOf(account), 10);
});

test('HTTP: an unreachable mail server is 502 and refunded', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'smtp-test', { host: N.fixture, port: 25 });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  t.is(res.body.reason, 'connection_refused');
  t.is(await balanceOf(account), 10);
});
