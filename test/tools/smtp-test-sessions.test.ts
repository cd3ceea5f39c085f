//! smtp-test against real SMTP servers (nodemailer's smtp-server with STARTTLS, implicit TLS and
//! AUTH on 127.0.0.2 and 127.0.0.3, the mail ports the tool accepts): the session's steps, the
//! certificate, the mechanisms, credentials sent only encrypted unless asked and never echoed, no mail
//! sent; then the same servers through HTTP against the running stack.
import test from 'ava';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { rejectsWith } from '../helpers/tools.js';
import { assertNoCredentials, fixtures, PASSWORD, run, schemas, stepNames, USER, useSmtpTool } from './support/smtp-test-bed.js';

// The fixed ports on 127.0.0.2 the stack reaches too: this file alone starts these servers.
useSmtpTool({ servers: true });

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
