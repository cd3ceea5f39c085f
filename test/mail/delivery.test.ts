//! The mail activity on its own (Temporal's activity test environment, no server): which SMTP
//! failures end a mail and which are retried, a worker without SMTP_URL that logs the mail as not
//! sent, and a sealed message that only the right key and the right mail id open; and how
//! SMTP_URL and MAIL_FROM are read.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { classifySendError, createMailActivities } from '../../activities/core/mail.js';
import { mailIdOf, sealMail } from '../../domain/mail/message.js';
import { createLogger } from '../../lib/logger.js';
import { ConfigError, loadConfig } from '../../lib/config.js';

const TOKEN = 'tok_secret_value_123';
const mail = {
  to: 'grace@example.org',
  subject: 'Reset your password',
  text: `http://x.test/r?token=${TOKEN}\n`,
  html: `<a href="http://x.test/r?token=${TOKEN}">reset</a>`,
};

/** The SDK's own line about a failed attempt is not what these tests read. */
const activityEnv = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

/** A logger whose lines land in `lines`. */
function capturedLog() {
  const lines: string[] = [];
  return {
    lines,
    log: createLogger({ name: 'mail-test', level: 'debug', destination: { write: (line: string) => void lines.push(line) } }),
  };
}

test('a 5xx for the recipient or the message ends the mail; a refused connection, a timeout, a 4xx or a refused login are retried', (t) => {
  const permanent = (err: unknown) => classifySendError(err).permanent;
  t.true(permanent({ code: 'EENVELOPE', responseCode: 550 }));
  t.true(permanent({ code: 'EMESSAGE', responseCode: 552 }));
  t.true(permanent({ code: 'EENVELOPE' }), 'an envelope nodemailer cannot use at all');
  t.false(permanent({ code: 'EENVELOPE', responseCode: 450 }), 'greylisting');
  t.false(permanent({ code: 'EMESSAGE', responseCode: 451 }));
  t.false(permanent({ code: 'EMESSAGE' }));
  t.false(permanent({ code: 'EAUTH', responseCode: 535 }), "the operator's settings, not the mail");
  t.false(permanent({ code: 'ECONNECTION' }));
  t.false(permanent({ code: 'ESOCKET', errno: -111 }));
  t.false(permanent({ code: 'ETIMEDOUT' }));
  t.false(permanent(new Error('anything else')));
  t.false(permanent(undefined));
  t.deepEqual(classifySendError({ code: 'EENVELOPE', responseCode: 550, response: '550 <grace@example.org> unknown' }), {
    permanent: true,
    code: 'EENVELOPE',
    responseCode: 550,
  });
});

test('without SMTP_URL a mail ends not_configured, logged with its id and domain only', async (t) => {
  const secretKey = randomBytes(32);
  const { lines, log } = capturedLog();
  const { deliverMail } = createMailActivities({ secretKey, from: 'T <t@mail.test>', log });
  const mailId = mailIdOf('not-configured');
  t.deepEqual(await activityEnv().run(deliverMail, sealMail(secretKey, mailId, mail)), { outcome: 'not_configured' });
  t.is(lines.length, 1);
  t.like(JSON.parse(lines[0]!), { level: 40, mailId, domain: 'example.org', msg: 'mail not configured (SMTP_URL unset), not sent' });
  for (const secret of [TOKEN, 'grace', mail.subject]) t.false(lines[0]!.includes(secret));
});

test('a message sealed with another key, or for another mail, is not opened: retried, saying nothing of it', async (t) => {
  const secretKey = randomBytes(32);
  const { lines, log } = capturedLog();
  const { deliverMail } = createMailActivities({ secretKey, from: 'T <t@mail.test>', log });
  const mailId = mailIdOf('sealed');
  const otherKey = sealMail(randomBytes(32), mailId, mail);
  const otherMail = { ...sealMail(secretKey, mailIdOf('another'), mail), mailId };
  for (const input of [otherKey, otherMail]) {
    const err = await t.throwsAsync(activityEnv().run(deliverMail, input), { instanceOf: ApplicationFailure });
    t.is(err!.type, 'MailSealed');
    t.false(err!.nonRetryable);
  }
  t.true(lines.every((l) => !l.includes(TOKEN) && !l.includes('grace')));
});

test('SMTP_URL and MAIL_FROM are checked at start; the sender defaults to the public host; a refused SMTP_URL is not repeated with its password', (t) => {
  const base = { MONGODB_URL: 'mongodb://127.0.0.1:1/x', SECRET_KEY: '0'.repeat(64) };
  t.is(loadConfig(base).smtpUrl, undefined);
  t.is(loadConfig(base).mailFrom, 'Utility Tools <no-reply@localhost>');
  t.is(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://tools.example.com' }).mailFrom, 'Utility Tools <no-reply@tools.example.com>');
  t.is(
    loadConfig({ ...base, SMTP_URL: 'smtps://apikey:s3cret@smtp.example.com:465' }).smtpUrl,
    'smtps://apikey:s3cret@smtp.example.com:465',
  );
  t.is(loadConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:1025' }).smtpUrl, 'smtp://127.0.0.1:1025');
  t.is(loadConfig({ ...base, MAIL_FROM: 'ops@example.com' }).mailFrom, 'ops@example.com');
  t.is(loadConfig({ ...base, MAIL_FROM: 'Example Tools <no-reply@example.com>' }).mailFrom, 'Example Tools <no-reply@example.com>');
  const refused = t.throws(() => loadConfig({ ...base, SMTP_URL: 'https://apikey:hunter2@smtp.example.com' }), {
    instanceOf: ConfigError,
    message: /SMTP_URL must be/,
  });
  t.false(refused!.message.includes('hunter2'));
  t.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://' }), { instanceOf: ConfigError });
  for (const from of ['not an address', 'Name <not-an-address>', 'a@b.c\r\nBcc: x@y.z'])
    t.throws(() => loadConfig({ ...base, MAIL_FROM: from }), { instanceOf: ConfigError, message: /MAIL_FROM/ }, from);
});
