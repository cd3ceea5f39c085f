//! Signing up: an address is proved before anything is opened. `signup` answers alike whether
//! or not the address has an account (a known one gets a "you already have an account" mail),
//! and `verify` opens the account, gives the welcome grant once per mailbox and signs in.
import { DEFAULT_PLAN_ID, joinPlan } from '../plans/index.js';
import { derivedId, sha256Hex } from '../../lib/ids.js';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import { ServiceError } from '../../contracts/errors.js';
import { mailboxOf, normalizeEmail } from './email-address.js';
import { hashPassword } from './password-hashing.js';
import { passwordProblem } from './password-policy.js';
import { alreadyRegisteredMail, verifyAddressMail } from './mail-texts.js';
import { userActing, type IdentityContext, type RequestFacts } from './context.js';
import { invalidField, invalidToken } from './problems.js';

/** Sign-up mails one address receives per hour at most; past it a sign-up is answered alike and mails nothing. */
export const SIGNUP_MAILS_PER_HOUR = 5;
const HOUR_MS = 60 * 60_000;

export function createSignup(ctx: IdentityContext) {
  const { users, memberships, tokens, sessions, settings } = ctx;
  const { welcomeMailboxes } = collections(ctx.db);

  return {
    /** Mails a verification link (or, for a known address, a note saying so). The same answer either way. */
    async signup(input: { email: string; password: string; name?: string | null }): Promise<void> {
      if (settings.signup === 'off')
        throw new ServiceError(
          'signup_closed',
          'Sign-up is closed on this service: ask its operator, or an account owner for an invitation.',
        );
      const email = normalizeEmail(input.email);
      if (!email) throw invalidField('/email', 'is not an email address');
      const problem = await passwordProblem(input.password, { email, name: input.name });
      if (problem) throw invalidField('/password', problem);
      // Hashed whichever way it goes: the answer takes the same time for a known address.
      const passwordHash = await hashPassword(input.password);
      const known = await users.byEmail(email);
      if (known) {
        // At most one such note per address per hour: the key makes repeats the same mail.
        const hour = Math.floor(Date.now() / HOUR_MS);
        await ctx.mailer.send(
          { to: email, ...alreadyRegisteredMail(settings.baseUrl) },
          { idempotencyKey: `already-registered-${sha256Hex(email)}-${hour}` },
        );
        return;
      }
      if ((await tokens.countSince('signup', email, new Date(Date.now() - HOUR_MS))) >= SIGNUP_MAILS_PER_HOUR) return;
      const { token, doc } = await tokens.issue('signup', email, { name: input.name ?? null, passwordHash });
      await ctx.mailer.send({ to: email, ...verifyAddressMail(settings.baseUrl, token) }, { idempotencyKey: `signup-${doc._id}` });
    },

    /**
     * Opens the account of a verified sign-up and signs its person in. Every step is keyed by the
     * token, so a link used again after a crash finishes the same account, never a second one.
     */
    async verify(token: string, facts: RequestFacts) {
      const claimed = await tokens.claim('signup', token);
      if (!claimed) throw invalidToken();
      const { email } = claimed;
      const userId = derivedId('usr', claimed._id);
      const accountId = derivedId('acc', claimed._id);
      const holder = await users.byEmail(email);
      const user =
        holder?._id === userId
          ? holder
          : holder
            ? null
            : await users.create({
                _id: userId,
                email,
                name: claimed.name ?? null,
                passwordHash: claimed.passwordHash ?? null,
                createdAt: new Date(),
                passwordChangedAt: null,
                lastSignInAt: null,
              });
      if (!user) {
        // Another sign-up of the address was verified first: this one has nothing left to open.
        await tokens.complete(claimed);
        throw invalidToken('This address already has an account: sign in instead.');
      }
      const audit = userActing(userId, facts);
      // The welcome grant once per mailbox: the first account to claim it keeps it (a repeat of this sign-up included).
      const mailbox = sha256Hex(mailboxOf(email));
      const first = await insertIfAbsent(welcomeMailboxes, { _id: mailbox, accountId, at: new Date() });
      const granted = first || (await welcomeMailboxes.findOne({ _id: mailbox }))?.accountId === accountId;
      const name = claimed.name || email.slice(0, email.indexOf('@'));
      await ctx.accounts.openOnce(
        { id: accountId, name, email, credits: granted ? settings.freeCredits : 0, plan: joinPlan(DEFAULT_PLAN_ID, new Date()) },
        audit,
      );
      await memberships.join(accountId, user, 'owner', audit);
      const session = await sessions.create({ userId, accountId, role: 'owner', method: 'verification', ...facts }, audit);
      await users.signedIn(userId);
      await tokens.complete(claimed);
      return session;
    },
  };
}
