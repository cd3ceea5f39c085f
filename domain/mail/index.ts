//! Mail (domain/mail/): a mail's parts, the durable outbox every area sends through, and the sealed
//! message its workflow carries.
export { composeMail, escapeHtml } from './compose.js';
export { openMail, recipientDomain, type MailOutcome, type MailWorkflowInput } from './message.js';
export { createMailer, type Mailer } from './outbox.js';
