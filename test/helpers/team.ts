//! Teams in integration tests: an account the operator opens, with a member of each role asked
//! for, each invited and joined through the real mail, each with their own signed-in session.
import type { Role } from '../../domain/membership/documents.js';
import { newAccount, type TestAccount } from './api.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { mailsTo, tokenFrom, uniqueAddress } from './mailbox.js';
import { goodPassword, sessionCookieOf, type Client } from './people.js';

export interface Member {
  role: Role;
  email: string;
  password: string;
  userId: string;
  cookie: string;
}

/** Invites `email` as `role` (by the owner token, or a member's `{ cookie }`) and answers the mailed link's token. */
export async function invite(c: Client, by: string | { cookie: string }, email: string, role: Role): Promise<string> {
  // The same address may be invited again, within the second (MailDev's clock): the mail is the one that comes after those there already.
  const before = (await mailsTo(email)).length;
  const res = await c.request('POST', '/api/v1/account/invitations', {
    ...(typeof by === 'string' ? { token: by } : by),
    body: { email, role },
  });
  if (res.status !== 201) throw new Error(`inviting ${role} answered ${res.status}: ${JSON.stringify(res.body)}`);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    const mails = await mailsTo(email);
    if (mails.length > before) return tokenFrom(mails.at(-1)!);
  }
  throw new Error(`no invitation mail to ${email} within 60 s`);
}

/** A new person accepts an invitation with a password: they are made, join and are signed in. */
export async function acceptAsNew(c: Client, token: string, role: Role, email: string): Promise<Member> {
  const password = goodPassword();
  const res = await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token, password, name: `The ${role}` } });
  const cookie = sessionCookieOf(res.setCookie);
  if (res.status !== 200 || !cookie) throw new Error(`accepting as ${role} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { role, email, password, userId: res.body.user.id, cookie };
}

/** An account opened by the operator (with its owner token) and one member per role asked for, joined at once. */
export async function teamAccount(
  c: Client,
  roles: readonly Role[],
  name = 'Team',
): Promise<{ account: TestAccount; members: Record<string, Member> }> {
  const account = await newAccount(100, name);
  // The owner first: an operator's account takes an owner by invitation only while it has none.
  const ordered = [...roles].sort((a, b) => Number(b === 'owner') - Number(a === 'owner'));
  const members: Record<string, Member> = {};
  if (ordered[0] === 'owner') {
    const email = uniqueAddress('owner');
    members.owner = await acceptAsNew(c, await invite(c, account.ownerToken, email, 'owner'), 'owner', email);
  }
  await Promise.all(
    ordered
      .filter((r) => r !== 'owner')
      .map(async (role) => {
        const email = uniqueAddress(role);
        members[role] = await acceptAsNew(c, await invite(c, account.ownerToken, email, role), role, email);
      }),
  );
  return { account, members };
}
