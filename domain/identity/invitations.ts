//! Invitations: an address invited to an account with a role, by a mailed single-use link valid
//! for 7 days. Accepting signs the invited address up (a new person chooses a password) or in
//! (a person already signed in as that address) and joins the account. This is also how the owner
//! of an account the operator opened attaches themselves as a person.
import { ToolError } from '../../lib/errors.js';
import { derivedId } from '../../lib/ids.js';
import type { Role, SessionDoc } from '../../lib/mongo-documents.js';
import type { AuditContext } from '../audit-log.js';
import { normalizeEmail } from './email-address.js';
import { hashPassword } from './password-hashing.js';
import { passwordProblem } from './password-policy.js';
import { invitationMail } from './mail-texts.js';
import { userActing, type IdentityContext, type RequestFacts } from './context.js';
import { invalidField, invalidToken, unauthenticated } from './problems.js';
import type { Signin } from './signin.js';

export function createInvitations(ctx: IdentityContext, signin: Signin) {
  const { users, tokens, sessions, settings } = ctx;

  return {
    /** Mails an invitation to `rawEmail` to join `accountId` as `role`. */
    async invite(accountId: string, rawEmail: string, role: Role, audit: AuditContext) {
      const email = normalizeEmail(rawEmail);
      if (!email) throw invalidField('/email', 'is not an email address');
      const account = await ctx.accounts.get(accountId);
      if (!account) throw new ToolError('not_found', 'The account no longer exists.');
      const invitee = await users.byEmail(email);
      if (invitee && (await users.membership(accountId, invitee._id))) throw new ToolError('already_exists', `${email} is a member of this account already.`);
      const invitedBy = audit.actor.userId ?? audit.actor.credential ?? null;
      const { token, doc } = await tokens.issue('invitation', email, { accountId, role, invitedBy });
      await ctx.mailer.send({ to: email, ...invitationMail(settings.baseUrl, token, account.name ?? account._id, role) }, { idempotencyKey: `invitation-${doc._id}` });
      return { email, role, expiresAt: doc.expiresAt };
    },

    /**
     * Joins the invited address to its account. Signed in as that address: the session moves to
     * the account. Not signed in and new: a password (and a name) make the person. Not signed in
     * but known: they sign in first and accept again.
     */
    async accept(input: { token: string; password?: string; name?: string | null }, current: SessionDoc | null, facts: RequestFacts) {
      const claimed = await tokens.claim('invitation', input.token);
      if (!claimed?.accountId || !claimed.role) throw invalidToken();
      const { email, accountId, role } = claimed;
      let user = await users.byEmail(email);
      try {
        if (current && current.userId !== user?._id) {
          throw new ToolError('forbidden', `This invitation is for ${email}: sign in with that address to accept it.`);
        }
        if (!user && !current) {
          if (!input.password) throw invalidField('/password', 'is required: choose a password for your new sign-in');
          const problem = passwordProblem(input.password, { email, name: input.name });
          if (problem) throw invalidField('/password', problem);
          user = await users.create({
            _id: derivedId('usr', claimed._id), email, name: input.name ?? null, passwordHash: await hashPassword(input.password), createdAt: new Date(), passwordChangedAt: null, lastSignInAt: null,
          });
          if (!user) throw invalidToken('This address has just been given a sign-in: sign in and accept again.');
        } else if (!current) {
          throw unauthenticated(`Sign in as ${email} to accept this invitation.`);
        }
      } catch (err) {
        await tokens.release(claimed); // the link still works once the person can use it
        throw err;
      }
      const audit = userActing(user!._id, facts);
      await users.join(accountId, user!._id, role, audit);
      await tokens.complete(claimed);
      if (current) {
        await sessions.switchAccount(current._id, accountId, role);
        return null;
      }
      return signin.startSession(user!, 'invitation', facts, null, accountId);
    },
  };
}
