//! Email addresses as people type them: one normal form to find a user by, and the mailbox an
//! address delivers to, so `a+x@host` and `a@host` share one welcome grant.

/** The longest address SMTP carries (RFC 5321's path limit less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * A deliberately plain check: one `@`, something before it, a dotted domain after it, no spaces or
 * controls. Whether the address works is proved by the mail we send, not by a pattern.
 */
const SHAPE = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}.]+$/u;

/** The address as stored and compared: trimmed, lowercased (NFC), or null when it is not one. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().normalize('NFC').toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !SHAPE.test(email) || email.includes('..')) return null;
  return email;
}

/** The mailbox of a normalized address: its `+tag` dropped, so sub-addresses count as one. */
export function mailboxOf(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const plus = local.indexOf('+');
  return `${plus > 0 ? local.slice(0, plus) : local}${email.slice(at)}`;
}

/** The domain of a normalized address, for logs that must not name the person. */
export const emailDomain = (email: string) => email.slice(email.lastIndexOf('@') + 1);
