//! Who a monitor's notices are mailed to and what the mail says: the members its alert names
//! (`owners`: every owner of the account; else user ids), or the account's contact address when
//! the account has no owner among its members (one the operator opened). Links are built on
//! PUBLIC_BASE_URL.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import { composeMail } from '../mail/index.js';
import type { MonitorEventKind } from './documents.js';

/** The people `notify` names, with their addresses; members who left are nobody. */
export async function monitorRecipients(db: Db, accountId: string, notify: readonly string[]): Promise<{ id: string; email: string }[]> {
  const { memberships, users, accounts } = collections(db);
  const ids = notify.filter((n) => n !== 'owners');
  const or: Record<string, unknown>[] = [];
  if (notify.includes('owners')) or.push({ role: 'owner' });
  if (ids.length) or.push({ userId: { $in: ids } });
  if (!or.length) return [];
  const members = await memberships.find({ accountId, $or: or }, { projection: { userId: 1 } }).toArray();
  const people = members.length
    ? await users.find({ _id: { $in: members.map((m) => m.userId) } }, { projection: { email: 1 } }).toArray()
    : [];
  if (people.length || !notify.includes('owners')) return people.map((u) => ({ id: u._id, email: u.email }));
  const account = await accounts.findOne({ _id: accountId }, { projection: { email: 1 } });
  return account?.email ? [{ id: 'account', email: account.email }] : [];
}

/** Which of `userIds` are not members of the account: a monitor may name only its own people. */
export async function notMembers(db: Db, accountId: string, userIds: readonly string[]): Promise<string[]> {
  if (!userIds.length) return [];
  const found = await collections(db)
    .memberships.find({ accountId, userId: { $in: [...userIds] } }, { projection: { userId: 1 } })
    .toArray();
  const known = new Set(found.map((m) => m.userId));
  return userIds.filter((id) => !known.has(id));
}

const HEADLINES: Record<MonitorEventKind, (name: string) => string> = {
  'monitor.down': (name) => `Monitor ${name} is down`,
  'monitor.degraded': (name) => `Monitor ${name} is degraded`,
  'monitor.up': (name) => `Monitor ${name} is up again`,
  'monitor.changed': (name) => `Monitor ${name} saw a change`,
  'monitor.paused': (name) => `Monitor ${name} is paused`,
};

/** A notice as a mail: what happened, why, and a link to the monitor's page. */
export function monitorMail(
  baseUrl: string,
  notice: { kind: MonitorEventKind; reason: string | null; reminder?: boolean },
  monitor: { id: string; name: string },
) {
  const headline = HEADLINES[notice.kind](monitor.name.replace(/[\r\n]+/g, ' '));
  const why =
    notice.kind === 'monitor.paused'
      ? notice.reason === 'insufficient_credits'
        ? 'The account is out of credits, so its runs stopped; nothing was charged for the refused run. Add credits, then resume the monitor.'
        : "The monitor's monthly credit cap is reached, so its runs stopped. Raise the cap or wait for next month, then resume it."
      : notice.reason
        ? `Reason: ${notice.reason}`
        : 'Its checks pass again.';
  return composeMail({
    subject: notice.reminder ? `Reminder: ${headline}` : headline,
    preheader: why,
    paragraphs: [notice.reminder ? `${headline}, still.` : `${headline}.`, why],
    action: { label: 'Open the monitor', url: `${baseUrl}/dashboard/monitors?id=${encodeURIComponent(monitor.id)}` },
    footer: 'You receive this because the monitor names you (or the account owners) in its alert policy.',
  });
}
