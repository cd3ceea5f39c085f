//! A mail on its way: what the outbox hands the mail workflow (the mail's id and the message
//! sealed with SECRET_KEY, bound to that id) and what the workflow's activity reports. Mail bodies
//! carry single-use tokens, so the message itself never travels or rests in the clear: not in
//! Temporal history, not in the database a large payload is moved to, not in a log line.
import { createHash } from 'node:crypto';
import { open, seal } from '../../lib/sealed.js';

/** One mail to one recipient, both parts composed (domain/mail/compose.ts). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The mail workflow's input: nothing readable but the id. */
export interface MailWorkflowInput {
  /** `mail-<digest of the idempotency key>`: also the workflow id. */
  mailId: string;
  /** The OutgoingMail, sealed (lib/sealed.ts) with SECRET_KEY and the id as associated data. */
  sealed: string;
}

/**
 * How a mail ended: `sent` (the server took it), `rejected` (the server refused it for good: a 5xx
 * for the recipient or the message; only the reply code is kept), `not_configured` (no SMTP_URL on
 * the worker that ran it: logged, not sent). A mail the server stays away for ends its workflow
 * failed after the retry window (workflows/mail.ts).
 */
export type MailOutcome = { outcome: 'sent' } | { outcome: 'rejected'; responseCode: number } | { outcome: 'not_configured' };

/**
 * The mail id of an idempotency key: the same key always names the same mail (and workflow), so a
 * repeated send finds the first. A digest, not the key: a key built from an address or a token
 * must not show in the Temporal UI.
 */
export function mailIdOf(idempotencyKey: string): string {
  return `mail-${createHash('sha256').update(`mail:${idempotencyKey}`).digest('base64url').slice(0, 32)}`;
}

/** Binds a sealed message to its mail: one mail's ciphertext cannot be replayed as another's. */
const aadOf = (mailId: string) => `mail:${mailId}`;

export function sealMail(secretKey: Buffer, mailId: string, mail: OutgoingMail): MailWorkflowInput {
  return { mailId, sealed: seal(secretKey, mail, aadOf(mailId)) };
}

export function openMail(secretKey: Buffer, input: MailWorkflowInput): OutgoingMail {
  return open<OutgoingMail>(secretKey, input.sealed, aadOf(input.mailId));
}

/** The part of an address after the last `@`, lower-cased: the most a log line says about a recipient. */
export function recipientDomain(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0
    ? ''
    : address
        .slice(at + 1)
        .replace(/>$/, '')
        .trim()
        .toLowerCase();
}

/** Why a message cannot be sent as it is, or undefined. One address (no display name), a one-line subject, both parts. */
export function invalidMailReason(mail: OutgoingMail): string | undefined {
  // Deliberately plain: local@domain, no spaces, angle brackets, commas or line breaks (one recipient, no header tricks).
  if (typeof mail.to !== 'string' || mail.to.length > 254 || !/^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/.test(mail.to))
    return 'the recipient must be one plain address';
  if (typeof mail.subject !== 'string' || mail.subject === '' || /[\r\n]/.test(mail.subject))
    return 'the subject must be one non-empty line';
  if (typeof mail.text !== 'string' || mail.text === '' || typeof mail.html !== 'string' || mail.html === '')
    return 'a mail needs its text and its HTML part';
  return undefined;
}
