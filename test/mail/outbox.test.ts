//! The outbox against the test stack: a mail handed to createMailer is sent by the stack's core
//! workers to its real SMTP server (MailDev) with both parts and its link; one idempotency key is
//! one mail however often it is sent; and neither the workflow's history nor the stack's logs hold
//! the token, the address or the body.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { composeMail } from '../../domain/mail/compose.js';
import { createMailer, InvalidMailError, mailIdOf, type Mailer } from '../../domain/mail/outbox.js';
import { parseSecretKey } from '../../lib/config.js';
import { TEST_MAIL_FROM } from '../../scripts/stack/test-stack.js';
import { testEnv } from '../helpers/env.js';
import { mailsTo, tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { historyText, withTemporalClient } from '../helpers/temporal.js';

/** The stack's SECRET_KEY: the stack's core workers open what the mailer seals with it. */
const secretKey = () => parseSecretKey(process.env.SECRET_KEY!);

/** A verification-like mail to `to` with a fresh token in its link. */
function mailWithToken(to: string) {
  const token = randomBytes(24).toString('base64url');
  const phrase = `paragraph-${randomBytes(6).toString('hex')}`;
  const composed = composeMail({
    subject: `Confirm your address ${randomBytes(3).toString('hex')}`,
    greeting: 'Hello,',
    paragraphs: [`Someone signed up with this address (${phrase}).`],
    action: { label: 'Confirm my address', url: `http://localhost:8080/verify?token=${token}` },
    footer: 'If it was not you, ignore this mail.',
  });
  return { token, phrase, message: { to, ...composed } };
}

/** Runs `fn` with a mailer on the stack's Temporal, as the API builds one. */
function withMailer<T>(fn: (mailer: Mailer, client: Parameters<Parameters<typeof withTemporalClient>[0]>[0]) => Promise<T>): Promise<T> {
  return withTemporalClient((client) => fn(createMailer({ client, secretKey: secretKey() }), client));
}

test('a mail handed to the outbox arrives at the SMTP server with both parts, its link and the configured sender', async (t) => {
  const to = uniqueAddress('arrives');
  const { token, message } = mailWithToken(to);
  const since = new Date(Date.now() - 1000);
  await withMailer((mailer) => mailer.send(message, { idempotencyKey: `test-arrives:${to}` }));

  const mail = await waitForMail(to, { since });
  t.is(mail.subject, message.subject);
  t.deepEqual(mail.to, [to]);
  t.deepEqual(mail.from, [/<(.+)>/.exec(TEST_MAIL_FROM)![1]]);
  t.true(mail.text.includes(`Confirm my address:\nhttp://localhost:8080/verify?token=${token}`), 'the text part carries the link in full');
  t.true(mail.html.includes(`href="http://localhost:8080/verify?token=${token}"`), 'the HTML part links it');
  t.true(mail.html.includes(`>http://localhost:8080/verify?token=${token}</a>`), 'and writes it out as the link text');
  t.is(tokenFrom(mail), token);
  t.is(mail.headers['auto-submitted'], 'auto-generated');
});

test('one idempotency key is one mail: sent twice at once and again after it went out, it arrives once', async (t) => {
  const to = uniqueAddress('once');
  const key = `test-once:${to}`;
  await withMailer(async (mailer, client) => {
    await Promise.all([
      mailer.send(mailWithToken(to).message, { idempotencyKey: key }),
      mailer.send(mailWithToken(to).message, { idempotencyKey: key }),
    ]);
    const handle = client.workflow.getHandle(mailIdOf(key));
    t.deepEqual(await handle.result(), { outcome: 'sent' });
    const { runId } = await handle.describe();
    // After it was sent: nothing starts again.
    await mailer.send(mailWithToken(to).message, { idempotencyKey: key });
    t.is((await client.workflow.getHandle(mailIdOf(key)).describe()).runId, runId, 'still the first workflow');
  });
  // The one workflow ended after its one send: whatever arrives has arrived.
  await waitForMail(to);
  t.is((await mailsTo(to)).length, 1);
});

test("the mail workflow's history and the stack's logs hold neither the token, the address, the subject nor the body", async (t) => {
  const to = uniqueAddress('sealed');
  const { token, phrase, message } = mailWithToken(to);
  const key = `test-sealed:${to}`;
  const history = await withMailer(async (mailer, client) => {
    await mailer.send(message, { idempotencyKey: key });
    const handle = client.workflow.getHandle(mailIdOf(key));
    t.deepEqual(await handle.result(), { outcome: 'sent' });
    return historyText(await handle.fetchHistory());
  });
  t.true(history.includes(mailIdOf(key)), 'the history is readable here: it names the mail');
  t.true(history.includes('"outcome":"sent"'));
  for (const secret of [token, to, to.split('@')[0]!, message.subject, phrase, key])
    t.false(history.includes(secret), `history holds ${secret}`);
  await waitForMail(to);

  const dir = testEnv.stackLogDir();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.log') && !f.startsWith('maildev'))) {
    const text = await readFile(path.join(dir, file), 'utf8');
    for (const secret of [token, to, phrase]) t.false(text.includes(secret), `${file} holds ${secret}`);
  }
});

test('a message the outbox cannot send as it is is refused before anything starts', async (t) => {
  await withMailer(async (mailer) => {
    const good = mailWithToken(uniqueAddress('refused')).message;
    await t.throwsAsync(mailer.send({ ...good, to: `${good.to}, other@mail.test` }, { idempotencyKey: 'x' }), {
      instanceOf: InvalidMailError,
      message: /one plain address/,
    });
    await t.throwsAsync(mailer.send({ ...good, subject: 'a\nBcc: x@mail.test' }, { idempotencyKey: 'x' }), {
      instanceOf: InvalidMailError,
      message: /one non-empty line/,
    });
    await t.throwsAsync(mailer.send({ ...good, html: '' }, { idempotencyKey: 'x' }), {
      instanceOf: InvalidMailError,
      message: /text and its HTML/,
    });
    await t.throwsAsync(mailer.send(good, { idempotencyKey: '' }), { instanceOf: InvalidMailError, message: /idempotency key/ });
  });
});
