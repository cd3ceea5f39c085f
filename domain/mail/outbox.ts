//! The outbox every product area sends mail through: `send` seals the message and starts its
//! mail workflow (workflows/mail.ts), named after the idempotency key, and returns once Temporal
//! holds it. It never waits for the mail server: the workflow's activity sends, and retries while
//! the server is away. A repeated key finds the first mail and sends nothing more.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Logger } from '../../lib/logger.js';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import { invalidMailReason, mailIdOf, recipientDomain, sealMail, type OutgoingMail } from './message.js';

export { mailIdOf, type OutgoingMail } from './message.js';

export interface MailerDeps {
  /** A Temporal client of the service (the API's), with its data converter. */
  client: Client;
  /** SECRET_KEY: seals each message; the core workers open it with the same key. */
  secretKey: Buffer;
  /** Where "mail handed over" lines go (the mail's id and recipient domain only). Default: none. */
  log?: Logger;
  /** The task queue of the mail workflows. Default `core`; tests run theirs on a worker of their own. */
  taskQueue?: string;
}

export interface SendOptions {
  /**
   * Names the mail: a second send with the same key while the first is on its way, or after it was
   * sent (as long as Temporal keeps finished workflows: the namespace's retention), sends nothing.
   * Only a digest of it is visible (domain/mail/message.ts `mailIdOf`), so it may contain an
   * address. Make it say what the mail is for, e.g. `verify:<userId>:<token digest>`.
   */
  idempotencyKey: string;
}

export interface Mailer {
  /**
   * Resolves once the mail is durably handed over (its workflow started, or found started); it
   * rejects only when Temporal cannot be reached or the message is malformed (one plain recipient
   * address, a one-line subject, both parts).
   */
  send(message: OutgoingMail, opts: SendOptions): Promise<void>;
}

/** Why a message was refused before it was handed over: a programming error, not the recipient's. */
export class InvalidMailError extends Error {}

export function createMailer(deps: MailerDeps): Mailer {
  const taskQueue = deps.taskQueue ?? TASK_QUEUES.core;
  return {
    async send(message, opts) {
      const invalid = invalidMailReason(message);
      if (invalid) throw new InvalidMailError(`mail not sent: ${invalid}`);
      if (!opts.idempotencyKey) throw new InvalidMailError('mail not sent: an idempotency key is required');
      const mailId = mailIdOf(opts.idempotencyKey);
      // Only the fields a mail has: nothing else a caller's object carries is sealed and sent along.
      const { to, subject, text, html } = message;
      try {
        await deps.client.workflow.start(WORKFLOW_TYPES.sendMail, {
          taskQueue,
          workflowId: mailId,
          args: [sealMail(deps.secretKey, mailId, { to, subject, text, html })],
          // Running: the same mail. Ended: sent, or rejected for good, so not again; a mail whose
          // three days of retries ran out (failed) may be sent anew.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      deps.log?.info({ mailId, domain: recipientDomain(to) }, 'mail handed over');
    },
  };
}
