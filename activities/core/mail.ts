//! The mail workflow's activity: opens the sealed message in memory and hands it to the SMTP
//! server (nodemailer). A failure that may pass (the server away, a 4xx, a timeout) is thrown for
//! Temporal to retry; a 5xx for the recipient or the message is the mail's end. What a log line or
//! a failure says is the mail's id, the recipient's domain and SMTP codes: never the address, the
//! subject, the body or the server's reply text, which may echo them.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { createTransport } from 'nodemailer';
import { openMail, recipientDomain, type MailOutcome, type MailWorkflowInput } from '../../domain/mail/index.js';
import type { Logger } from '../../lib/logger.js';

export interface MailActivityDeps {
  /** SECRET_KEY: opens the sealed messages (the API sealed them with the same key). */
  secretKey: Buffer;
  /**
   * SMTP_URL (`smtp://host:port`, `smtps://user:pass@host:465`). Unset: mail is not configured, and
   * each mail is logged as not sent and ends `not_configured`.
   */
  smtpUrl?: string;
  /** MAIL_FROM, e.g. `Utility Tools <no-reply@example.com>`. */
  from: string;
  log: Logger;
}

/** What an SMTP failure means for the mail: `permanent` ends it, anything else is retried. */
export interface SendFailure {
  permanent: boolean;
  /** nodemailer's code (`ECONNECTION`, `EENVELOPE`...) or the socket's (`ECONNREFUSED`). */
  code?: string;
  /** The server's reply code, when it answered. */
  responseCode?: number;
}

/**
 * Permanent: the server refused the recipient or the message with a 5xx (RFC 5321: do not repeat
 * it as it is), or nodemailer found the envelope unusable before asking. Everything else may pass:
 * a connection refused or cut, a timeout, a 4xx (greylisting, a full queue), and a refused login
 * (`EAUTH`, a 5xx too, but the operator's settings, fixed by a restart, not the mail's fault).
 */
export function classifySendError(err: unknown): SendFailure {
  const e = (err ?? {}) as { code?: unknown; responseCode?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const aboutTheMail = code === 'EENVELOPE' || code === 'EMESSAGE';
  const permanent = aboutTheMail && (responseCode === undefined ? code === 'EENVELOPE' : responseCode >= 500 && responseCode <= 599);
  return { permanent, ...(code && { code }), ...(responseCode !== undefined && { responseCode }) };
}

/** How long one attempt may wait on the server: a silent server ends well within the activity's 3 minutes. */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000, dnsTimeout: 30_000 };

export function createMailActivities(deps: MailActivityDeps) {
  const transport = deps.smtpUrl ? createTransport({ url: deps.smtpUrl, ...SMTP_TIMEOUTS, logger: false, debug: false }) : undefined;

  async function deliverMail(input: MailWorkflowInput): Promise<MailOutcome> {
    const { mailId } = input;
    const attempt = Context.current().info.attempt;
    let mail;
    try {
      mail = openMail(deps.secretKey, input);
    } catch {
      // Retried: a worker with the API's SECRET_KEY (after a fixed deployment) can still send it.
      deps.log.error({ mailId, attempt }, "mail cannot be opened: this worker's SECRET_KEY is not the one the API sealed it with");
      throw ApplicationFailure.retryable("The mail could not be opened with this worker's SECRET_KEY.", 'MailSealed');
    }
    const domain = recipientDomain(mail.to);
    if (!transport) {
      deps.log.warn({ mailId, domain }, 'mail not configured (SMTP_URL unset), not sent');
      return { outcome: 'not_configured' };
    }
    try {
      await transport.sendMail({
        from: deps.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // RFC 3834: sent by a program, so auto-responders stay quiet.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    } catch (err) {
      const failure = classifySendError(err);
      if (failure.permanent) {
        deps.log.warn(
          { mailId, domain, attempt, code: failure.code, responseCode: failure.responseCode },
          'mail rejected by the mail server for good, not retried',
        );
        return { outcome: 'rejected', responseCode: failure.responseCode ?? 550 };
      }
      deps.log.warn({ mailId, domain, attempt, code: failure.code, responseCode: failure.responseCode }, 'mail not sent yet: retrying');
      // Codes only: the server's reply text and nodemailer's message may quote the address.
      const why = [failure.code ?? 'error', failure.responseCode].filter(Boolean).join(' ');
      throw ApplicationFailure.retryable(`The mail server did not take the mail (${why}).`, 'MailNotSent');
    }
    deps.log.info({ mailId, domain, attempt }, 'mail sent');
    return { outcome: 'sent' };
  }

  return { deliverMail };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
