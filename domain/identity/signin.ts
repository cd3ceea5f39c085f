//! Signing in with a password, and the lockout that guards it. One answer for a wrong password,
//! an unknown address and an unverified one (nothing was opened for it), in the same time: an
//! unknown address is verified against a decoy hash. The lock is checked before the password, so
//! a locked address is refused whatever is sent.
import { ServiceError } from '../../contracts/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import { type SignInMethod, policyAllows, providerRequired } from '../membership/index.js';
import type { SessionDoc, UserDoc } from './documents.js';
import { normalizeEmail, emailDomain } from './email-address.js';
import { hashPassword, needsRehash, verifyPassword } from './password-hashing.js';
import { lockedOutMail } from './mail-texts.js';
import { LOCK_MS, throttleKeys } from './throttle.js';
import { userActing, type IdentityContext, type RequestFacts } from './context.js';
import { invalidCredentials, invalidField, tooManyAttempts } from './problems.js';

/** How a person proved who they are: the method, and for `oidc` the provider. */
export interface SignInHow {
  method: SignInMethod;
  provider?: string;
}

export function createSignin(ctx: IdentityContext) {
  const { users, memberships, sessions, throttle, settings } = ctx;

  /**
   * Starts a session of `user` on their first account this way of signing in may act on (the one
   * `preferAccountId` names when it may), ending `replacing`: a sign-in never keeps an id from
   * before it. Refused with 403 `provider_required` when every account of the person requires a
   * provider this sign-in did not go through (domain/membership/sign-in-policy.ts).
   */
  async function startSession(
    user: UserDoc,
    how: SignInHow | SignInMethod,
    facts: RequestFacts,
    replacing?: SessionDoc | null,
    preferAccountId?: string,
  ) {
    const { method, provider } = typeof how === 'string' ? { method: how, provider: undefined } : how;
    const accounts = await memberships.accountsOf(user._id);
    if (!accounts.length)
      throw new ServiceError('forbidden', 'You are not a member of any account. Ask an account owner for an invitation.');
    const open = accounts.filter((a) => policyAllows(a.signInPolicy, { method, provider }));
    const account = open.find((a) => a.id === preferAccountId) ?? open[0];
    if (!account) {
      const refusing = accounts.find((a) => a.id === preferAccountId) ?? accounts[0]!;
      const name =
        ctx.providers.find((p) => p.id === refusing.signInPolicy!.requiredProvider)?.name ?? refusing.signInPolicy!.requiredProvider;
      throw providerRequired(
        ctx.providers,
        refusing.signInPolicy!.requiredProvider,
        `The account "${refusing.name ?? refusing.id}" requires its members to sign in through ${name}: sign in with "${name}" instead.`,
      );
    }
    const audit = userActing(user._id, facts);
    if (replacing && replacing.userId === user._id) await sessions.endOne(user._id, replacing._id, 'signed_in_again', audit);
    else if (replacing) await sessions.endOne(replacing.userId, replacing._id, 'signed_in_as_another', userActing(replacing.userId, facts));
    const session = await sessions.create(
      { userId: user._id, accountId: account.id, role: account.role, method, ...(provider ? { provider } : {}), ...facts },
      audit,
    );
    await users.signedIn(user._id);
    return session;
  }

  /** Counts a failed password for `email`, and tells its owner when this failure locked it. */
  async function failed(email: string, user: UserDoc | null, facts: RequestFacts) {
    const keys = throttleKeys(email, facts.ip);
    const { addressLocked } = await throttle.failed(keys);
    if (addressLocked && user) {
      await users.record(user._id, 'user.locked_out', { lockedForMinutes: [null, LOCK_MS / 60_000] }, userActing(user._id, facts));
      const lockKey = `locked-${sha256Hex(email)}-${Math.floor(Date.now() / LOCK_MS)}`;
      await ctx.mailer.send({ to: user.email, ...lockedOutMail(settings.baseUrl, LOCK_MS / 60_000) }, { idempotencyKey: lockKey });
    }
  }

  return {
    startSession,

    /** Refused with 429 while the address or the client is locked. */
    async ensureNotLocked(email: string, facts: RequestFacts) {
      const retryAfter = await throttle.lockedFor(throttleKeys(email, facts.ip));
      if (retryAfter > 0) throw tooManyAttempts(retryAfter);
    },

    failed,

    /** Checks the password of the person at `rawEmail` and signs them in. */
    async signin(input: { email: string; password: string }, facts: RequestFacts, replacing?: SessionDoc | null, preferAccountId?: string) {
      const email = normalizeEmail(input.email);
      if (!email) throw invalidField('/email', 'is not an email address');
      await this.ensureNotLocked(email, facts);
      const user = await users.byEmail(email);
      if (!(await verifyPassword(user?.passwordHash ?? null, input.password))) {
        await failed(email, user, facts);
        throw invalidCredentials();
      }
      await throttle.succeeded(throttleKeys(email, facts.ip));
      if (needsRehash(user!.passwordHash!)) await users.rehashed(user!._id, await hashPassword(input.password));
      return startSession(user!, 'password', facts, replacing, preferAccountId);
    },

    /** The address's domain only: what a log line may say of who tried. */
    logName: emailDomain,
  };
}

export type Signin = ReturnType<typeof createSignin>;
