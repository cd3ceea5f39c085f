//! One mail: sent over SMTP by an activity on the core pool, retried with a growing pause for up
//! to three days, so a mail server that is down delays the mail and loses none. The input is sealed
//! (domain/mail/message.ts): the history holds the mail's id and how it ended, never its body.
import { ActivityFailure, log, proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../activities/core/mail.js';
import type { MailOutcome, MailWorkflowInput } from '../domain/mail/index.js';

/**
 * One attempt is one SMTP conversation (nodemailer's own timeouts end a silent server well within
 * it). Retries wait 5 s, then twice as long each time up to an hour, for three days in all: a
 * mail server restarted, or an outage of a day, delays mail; a reply the server means for good
 * (5xx for the recipient) is the activity's answer, not a failure, and is not retried.
 */
const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '3m',
  scheduleToCloseTimeout: '3 days',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1h' },
});

export async function sendMail(input: MailWorkflowInput): Promise<MailOutcome> {
  try {
    return await deliverMail(input);
  } catch (err) {
    // Only the retry window ends the activity with a failure: every attempt failed.
    if (err instanceof ActivityFailure) log.error('mail not delivered: no attempt got through within three days', { mailId: input.mailId });
    throw err;
  }
}
