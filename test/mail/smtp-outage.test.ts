//! What the mail server does to a mail, with a worker of this file's own on the stack's Temporal
//! (the SMTP address is the activity's dependency, so each case points it at its own server): a
//! server that is down when the mail is sent gets it once it comes up, once; a server that refuses
//! the recipient for good (550) ends the mail after one attempt, not retried for three days.
import test from 'ava';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, type Connection } from '@temporalio/client';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { SMTPServer } from 'smtp-server';
import { createMailActivities } from '../../activities/core/mail.js';
import { composeMail } from '../../domain/mail/compose.js';
import { createMailer, mailIdOf } from '../../domain/mail/outbox.js';
import { createLogger } from '../../lib/logger.js';
import { freePort } from '../../scripts/stack/net.js';
import { startMailDev } from '../../scripts/stack/maildev.js';
import { Supervisor } from '../../scripts/stack/supervisor.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { testEnv } from '../helpers/env.js';
import { connectTemporal, connectTemporalWorker, historyText } from '../helpers/temporal.js';
import { mailsTo, tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { installQuietRuntime } from '../helpers/workflow-test-bed.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const secretKey = randomBytes(32);
const log = createLogger({ name: 'mail-test', level: 'silent' });
const supervisor = new Supervisor({ logDir: path.join(testEnv.outputDir(), 'mail-outage') });

let connection: Connection;
let native: NativeConnection;
let client: Client;
const workers: Array<{ worker: Worker; running: Promise<void> }> = [];

test.before(async () => {
  installQuietRuntime();
  connection = await connectTemporal();
  native = await connectTemporalWorker();
  client = new Client({ connection, namespace: testEnv.temporalNamespace() });
});

test.after.always(async () => {
  for (const w of workers) w.worker.shutdown();
  await Promise.all(workers.map((w) => w.running.catch(() => {})));
  await native?.close();
  await connection?.close();
  await supervisor.stopAll();
});

let bundle: Promise<string> | undefined;
/** The bundle the stack's workers built (cached on disk), read once for both workers: no webpack run here. */
const bundleCode = () => (bundle ??= workflowBundle(log).then((b) => b.code));

/** A worker of this file's on a task queue of its own whose mail activity sends to `smtpUrl`; a mailer that starts mail there. */
async function mailWorker(smtpUrl: string) {
  const taskQueue = `mail-test-${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: native,
    namespace: testEnv.temporalNamespace(),
    taskQueue,
    workflowBundle: { code: await bundleCode() },
    activities: createMailActivities({ secretKey, smtpUrl, from: 'Test <sender@mail.test>', log }),
  });
  workers.push({ worker, running: worker.run() });
  return createMailer({ client, secretKey, taskQueue });
}

function message(to: string) {
  const token = randomBytes(16).toString('base64url');
  return {
    token,
    message: {
      to,
      ...composeMail({
        subject: 'Reset your password',
        paragraphs: ['Use the link within 30 minutes.'],
        action: { label: 'Reset', url: `http://localhost:8080/reset?token=${token}` },
      }),
    },
  };
}

/** The mail's pending SMTP attempt as Temporal describes it: its attempt number and last failure. */
async function pendingAttempt(mailId: string) {
  const { raw } = await client.workflow.getHandle(mailId).describe();
  return raw.pendingActivities?.[0];
}

test('a mail sent while the mail server is down waits, and arrives once when the server comes up', async (t) => {
  const smtpPort = await freePort(); // nothing listens on it yet
  const mailer = await mailWorker(`smtp://127.0.0.1:${smtpPort}`);
  const to = uniqueAddress('outage');
  const { token, message: mail } = message(to);
  const mailId = mailIdOf(`outage:${to}`);
  await mailer.send(mail, { idempotencyKey: `outage:${to}` });

  // Until a refused attempt is behind it: the mail then waits for its next try.
  let pending: Awaited<ReturnType<typeof pendingAttempt>>;
  for (;;) {
    pending = await pendingAttempt(mailId);
    if (pending && (pending.attempt ?? 0) >= 2) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.regex(pending!.lastFailure?.message ?? '', /^The mail server did not take the mail \(E[A-Z]+\)\.$/, "a code, not the server's words");
  for (const secret of [to, token])
    t.false(JSON.stringify(pending).includes(secret), 'the failure Temporal keeps names no address or token');

  const mailDev = await startMailDev(supervisor, { root: ROOT, smtpPort, webPort: await freePort(), name: 'maildev-outage' });
  const received = await waitForMail(to, { mailApiUrl: mailDev.apiUrl, timeoutMs: 120_000 });
  t.is(tokenFrom(received), token);
  t.deepEqual(await client.workflow.getHandle(mailId).result(), { outcome: 'sent' });
  t.is((await mailsTo(to, mailDev.apiUrl)).length, 1, 'delivered once');
  t.false(historyText(await client.workflow.getHandle(mailId).fetchHistory()).includes(token));
});

test('a recipient the server refuses for good (550) ends the mail after one attempt', async (t) => {
  let rcptAttempts = 0;
  const server = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    logger: false,
    disableReverseLookup: true,
    onRcptTo(_address, _session, callback) {
      rcptAttempts++;
      callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const mailer = await mailWorker(`smtp://127.0.0.1:${port}`);
  const to = uniqueAddress('refused');
  await mailer.send(message(to).message, { idempotencyKey: `refused:${to}` });
  const handle = client.workflow.getHandle(mailIdOf(`refused:${to}`));
  t.deepEqual(await handle.result(), { outcome: 'rejected', responseCode: 550 });
  t.is(rcptAttempts, 1, 'asked once, not retried');
  const history = await handle.fetchHistory();
  t.is(history.events?.filter((e) => e.activityTaskStartedEventAttributes).length, 1);
  t.is(history.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes?.attempt, 1);
});
