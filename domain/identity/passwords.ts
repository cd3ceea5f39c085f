//! Changing a password (the current one required, in a recent sign-in) and resetting a forgotten
//! one by mail (the same answer for any address, a link for 30 minutes, used once). Either ends
//! the person's other sessions and tells them by mail; a reset ends every session, and the person
//! then signs in with the new password (OWASP's forgot-password guidance).
import type { SessionDoc } from './documents.js';
import { normalizeEmail } from './email-address.js';
import { hashPassword, verifyPassword } from './password-hashing.js';
import { passwordProblem } from './password-policy.js';
import { passwordChangedMail, resetPasswordMail } from './mail-texts.js';
import { REAUTHENTICATE_AFTER_MS } from './sessions.js';
import { throttleKeys } from './throttle.js';
import { userActing, type IdentityContext, type RequestFacts } from './context.js';
import { invalidField, invalidToken, reauthenticationRequired, unauthenticated } from './problems.js';
import type { Signin } from './signin.js';

/** Reset mails one address receives per hour at most. */
export const RESET_MAILS_PER_HOUR = 5;
const HOUR_MS = 60 * 60_000;

/** A sensitive change needs the session's last sign-in to be this recent: else 403 reauthentication_required. */
export function requireRecentSignIn(session: Pick<SessionDoc, 'authenticatedAt'>, now = Date.now()) {
  if (now - session.authenticatedAt.getTime() > REAUTHENTICATE_AFTER_MS) throw reauthenticationRequired();
}

export function createPasswords(ctx: IdentityContext, signin: Signin) {
  const { users, sessions, tokens, throttle, settings } = ctx;

  async function tellChanged(email: string, userId: string, how: 'changed' | 'reset', at: Date) {
    await ctx.mailer.send(
      { to: email, ...passwordChangedMail(settings.baseUrl, how) },
      { idempotencyKey: `password-${how}-${userId}-${at.getTime()}` },
    );
  }

  return {
    async change(session: SessionDoc, input: { currentPassword: string; newPassword: string }, facts: RequestFacts) {
      requireRecentSignIn(session);
      const user = await users.get(session.userId);
      if (!user) throw unauthenticated();
      await signin.ensureNotLocked(user.email, facts);
      if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
        await signin.failed(user.email, user, facts);
        throw invalidField('/currentPassword', 'is not your current password');
      }
      const problem = await passwordProblem(input.newPassword, { email: user.email, name: user.name });
      if (problem) throw invalidField('/newPassword', problem);
      const now = new Date();
      const audit = userActing(user._id, facts);
      await users.setPassword(user._id, await hashPassword(input.newPassword), 'changed', audit, now);
      const ended = await sessions.endAllBut(user._id, session._id, 'password_changed', audit);
      await tellChanged(user.email, user._id, 'changed', now);
      return { sessionsEnded: ended };
    },

    /** Mails a reset link when the address has an account; answers alike when it has none. */
    async requestReset(rawEmail: string) {
      const email = normalizeEmail(rawEmail);
      if (!email) throw invalidField('/email', 'is not an email address');
      const user = await users.byEmail(email);
      if (!user) return;
      if ((await tokens.countSince('password_reset', email, new Date(Date.now() - HOUR_MS))) >= RESET_MAILS_PER_HOUR) return;
      const { token, doc } = await tokens.issue('password_reset', email, { userId: user._id });
      await ctx.mailer.send({ to: email, ...resetPasswordMail(settings.baseUrl, token) }, { idempotencyKey: `reset-${doc._id}` });
    },

    async confirmReset(input: { token: string; password: string }, facts: RequestFacts) {
      const claimed = await tokens.claim('password_reset', input.token);
      if (!claimed?.userId) throw invalidToken();
      const user = await users.get(claimed.userId);
      if (!user) {
        await tokens.complete(claimed);
        throw invalidToken();
      }
      const problem = await passwordProblem(input.password, { email: user.email, name: user.name });
      if (problem) {
        await tokens.release(claimed); // the link still works for a better password
        throw invalidField('/password', problem);
      }
      const now = new Date();
      const audit = userActing(user._id, facts);
      await users.setPassword(user._id, await hashPassword(input.password), 'reset', audit, now);
      await sessions.endAllBut(user._id, null, 'password_reset', audit);
      await tokens.complete(claimed);
      await tokens.revokeAll('password_reset', user.email);
      // The mailbox is proved: its lock (if any) has no more reason to hold.
      await throttle.clear(throttleKeys(user.email, facts.ip).address);
      await tellChanged(user.email, user._id, 'reset', now);
    },
  };
}
