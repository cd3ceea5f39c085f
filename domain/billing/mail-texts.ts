//! Billing's mails: a failed automatic recharge, to the account's billing contacts. Links are built
//! on PUBLIC_BASE_URL; nothing of the card but what the owner sees on the Billing page.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import { composeMail } from '../mail/index.js';

/** Why a recharge failed, in the owner's words, from Stripe's code. */
function failureWords(reason: string): string {
  switch (reason) {
    case 'authentication_required':
      return 'the card needs you to confirm the payment, which cannot be done while you are away';
    case 'expired_card':
      return 'the card has expired';
    case 'insufficient_funds':
      return 'the card has insufficient funds';
    case 'card_declined':
      return 'the card was declined';
    default:
      return `the payment failed (${reason})`;
  }
}

export const rechargeFailedMail = (
  baseUrl: string,
  failure: { reason: string; credits: number; consecutiveFailures: number; stillOn: boolean },
) =>
  composeMail({
    subject: failure.stillOn
      ? 'An automatic recharge of your Utility Tools credits failed'
      : 'Automatic recharges of your Utility Tools credits are off',
    preheader: `No credits were added: ${failureWords(failure.reason)}.`,
    paragraphs: [
      `An automatic recharge of ${failure.credits} credits failed: ${failureWords(failure.reason)}. Nothing was charged and no credits were added.`,
      failure.stillOn
        ? `This is failure ${failure.consecutiveFailures} in a row; after three, automatic recharges are turned off. Calls go on while credits last.`
        : `That was the third failure in a row, so automatic recharges are now off. Calls go on while credits last; buy credits or turn recharges on again with another card.`,
    ],
    action: { label: 'Open Billing', url: `${baseUrl}/dashboard/billing` },
    footer: 'You receive this because you are an owner or a billing contact of the account.',
  });

/**
 * Who is told of billing: the account's members with the owner or billing role, else (an account the
 * operator opened, with no members yet) its contact address.
 */
export async function billingContacts(db: Db, accountId: string): Promise<{ id: string; email: string }[]> {
  const { memberships, users, accounts } = collections(db);
  const members = await memberships.find({ accountId, role: { $in: ['owner', 'billing'] } }).toArray();
  const people = members.length
    ? await users.find({ _id: { $in: members.map((m) => m.userId) } }, { projection: { email: 1 } }).toArray()
    : [];
  if (people.length) return people.map((u) => ({ id: u._id, email: u.email }));
  const account = await accounts.findOne({ _id: accountId }, { projection: { email: 1 } });
  return account?.email ? [{ id: 'account', email: account.email }] : [];
}
