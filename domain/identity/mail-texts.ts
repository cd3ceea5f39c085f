//! The mails of signing up and in. Each names no account to an address that has not proved it
//! owns it, and each link is built on PUBLIC_BASE_URL, never on a request's Host header.
import { composeMail } from '../mail/index.js';

export type Mail = ReturnType<typeof composeMail>;

const link = (baseUrl: string, page: string, token: string) => `${baseUrl}/dashboard/${page}?token=${encodeURIComponent(token)}`;

export const verifyAddressMail = (baseUrl: string, token: string): Mail =>
  composeMail({
    subject: 'Confirm your address for Utility Tools',
    preheader: 'One click opens your account.',
    paragraphs: [
      'Someone, hopefully you, asked to open a Utility Tools account with this address. Confirm it to open the account and sign in.',
      'The link works once, for 24 hours. If it was not you, ignore this mail: nothing is opened without it.',
    ],
    action: { label: 'Confirm my address', url: link(baseUrl, 'verify', token) },
  });

export const alreadyRegisteredMail = (baseUrl: string): Mail =>
  composeMail({
    subject: 'You already have a Utility Tools account',
    paragraphs: [
      'Someone, hopefully you, tried to sign up with this address, which already has an account. Nothing was changed.',
      'Sign in instead; if you forgot your password, reset it from the sign-in page.',
    ],
    action: { label: 'Sign in', url: `${baseUrl}/dashboard/sign-in` },
  });

export const resetPasswordMail = (baseUrl: string, token: string): Mail =>
  composeMail({
    subject: 'Reset your Utility Tools password',
    paragraphs: [
      'Someone, hopefully you, asked to reset the password of the account with this address.',
      'The link works once, for 30 minutes. If it was not you, ignore this mail: your password stays as it is.',
    ],
    action: { label: 'Choose a new password', url: link(baseUrl, 'reset', token) },
  });

export const passwordChangedMail = (baseUrl: string, how: 'changed' | 'reset'): Mail =>
  composeMail({
    subject: 'Your Utility Tools password was changed',
    paragraphs: [
      how === 'reset'
        ? 'The password of your account was reset with a link mailed to this address, and every session was signed out.'
        : 'The password of your account was changed, and your other sessions were signed out.',
      'If this was not you, reset your password now and look at the sessions on your Security page.',
    ],
    action: { label: 'Reset my password', url: `${baseUrl}/dashboard/reset` },
  });

export const lockedOutMail = (baseUrl: string, minutes: number): Mail =>
  composeMail({
    subject: 'Sign-ins to your Utility Tools account are paused',
    paragraphs: [
      `There were too many failed sign-ins with this address, so sign-ins are paused for ${minutes} minutes. Your password was not given to anyone.`,
      'If this was you, wait and try again, or reset your password. If it was not, a new, long password keeps the account safe.',
    ],
    action: { label: 'Reset my password', url: `${baseUrl}/dashboard/reset` },
  });

export const invitationMail = (baseUrl: string, token: string, accountName: string, role: string): Mail =>
  composeMail({
    subject: `You are invited to ${accountName} on Utility Tools`,
    paragraphs: [
      `You are invited to join the account "${accountName}" on Utility Tools as ${role}.`,
      'The link works once, for 7 days. If you did not expect it, ignore this mail.',
    ],
    action: { label: 'Accept the invitation', url: link(baseUrl, 'invitation', token) },
  });
