//! Invitations: an address invited to an account with a role, by a mailed single-use link valid
//! for 7 days (only its digest stored), listed while pending and revocable by its public id.
//! Accepting signs the invited address up (a new person chooses a password) or in (a person
//! already signed in as that address) and joins the account. `owner` is only for an account with no
//! owning person yet (one the operator opened): otherwise ownership moves by a transfer.
import { type Static, Type } from '@sinclair/typebox';
import { ServiceError } from '../../contracts/errors.js';
import { derivedId, newId } from '../../lib/ids.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../lib/schema-types.js';
import { collections } from '../../lib/mongo.js';
import {
  type AuthTokenDoc,
  type SessionDoc,
  normalizeEmail,
  hashPassword,
  passwordProblem,
  invitationMail,
  userActing,
  type IdentityContext,
  type RequestFacts,
  invalidField,
  invalidToken,
  unauthenticated,
  type Signin,
} from '../identity/index.js';
import { type Role, policyAllows, providerRequired } from '../membership/index.js';
import { auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';
import { ROLES } from './permissions.js';

/** An invitation as the account API shows it: its type, and the `Invitation` schema of the OpenAPI document. */
export const Invitation = Type.Object(
  {
    id: Id('inv', 'Invitation id: revoke it with DELETE /api/v1/account/invitations/{id}.'),
    email: Type.String({ description: 'The invited address.' }),
    role: StringEnum(ROLES, { description: 'The role on the account.' }),
    invitedBy: Nullable(Type.String({ description: "Who invited: a member's user id, or the prefix of the owner token used." })),
    createdAt: Timestamp('When it was mailed.'),
    expiresAt: Timestamp('Its link works until then (7 days).'),
  },
  { description: 'An invitation, pending until it is accepted, revoked or expires.' },
);
export type InvitationView = Static<typeof Invitation>;

/** An invitation as the pending list shows it. */
export function invitationView(doc: AuthTokenDoc): InvitationView {
  // The token document serves sign-up and password resets too, where these are absent; `invite`
  // issues every invitation with both.
  if (!doc.publicId || !doc.role) throw new Error(`auth token ${doc._id} is no invitation: it has no public id or role`);
  return {
    id: doc.publicId,
    email: doc.email,
    role: doc.role,
    invitedBy: doc.invitedBy ?? null,
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
  };
}

export function createInvitations(ctx: IdentityContext, signin: Signin) {
  const { users, memberships, tokens, sessions, settings } = ctx;
  const { authTokens } = collections(ctx.db);
  const auditLog = createAuditLog(ctx.db);
  const pending = (accountId: string, now: Date) => ({
    purpose: 'invitation' as const,
    accountId,
    completedAt: null,
    revokedAt: null,
    expiresAt: { $gt: now },
  });

  /** Revokes the pending invitations `filter` picks, each with its `invitation.revoked` entry; how many. */
  async function revokeWhere(accountId: string, filter: Record<string, unknown>, audit: AuditContext, now = new Date()): Promise<number> {
    let revoked = 0;
    for (const doc of await authTokens
      .find({ ...pending(accountId, now), ...filter }, { projection: { _id: 1, publicId: 1, email: 1 } })
      .toArray()) {
      const draft = auditDraft(
        audit,
        accountId,
        'invitation.revoked',
        { type: 'invitation', id: doc.publicId ?? doc._id },
        { revokedAt: [null, now] },
        now,
      );
      const { modifiedCount } = await authTokens.updateOne(
        { _id: doc._id, completedAt: null, revokedAt: null },
        { $set: { revokedAt: now }, $push: { auditDrafts: draft } },
      );
      if (modifiedCount) {
        revoked++;
        await auditLog.flush('invitation', doc._id);
      }
    }
    return revoked;
  }

  return {
    /**
     * Mails an invitation to `rawEmail` to join `accountId` as `role`; an earlier pending one to
     * that address is revoked (its link stops working). 409 `already_member` for a member's address.
     */
    async invite(accountId: string, rawEmail: string, role: Role, audit: AuditContext) {
      const email = normalizeEmail(rawEmail);
      if (!email) throw invalidField('/email', 'is not an email address');
      const account = await ctx.accounts.get(accountId);
      if (!account) throw new ServiceError('not_found', 'The account no longer exists.');
      if (role === 'owner' && (await memberships.hasRole(accountId, 'owner'))) {
        throw new ServiceError(
          'already_exists',
          'The account has an owner already: an account has exactly one, and its owner hands it on with POST /api/v1/account/transfer-ownership.',
        );
      }
      const invitee = await users.byEmail(email);
      if (invitee && (await memberships.get(accountId, invitee._id)))
        throw new ServiceError('already_member', `${email} is a member of this account already: change their role instead.`, {
          userId: invitee._id,
        });
      await revokeWhere(accountId, { email }, audit);
      const publicId = newId('inv');
      const invitedBy = audit.actor.userId ?? audit.actor.credential ?? null;
      const now = new Date();
      const { token, doc } = await tokens.issue(
        'invitation',
        email,
        {
          accountId,
          role,
          invitedBy,
          publicId,
          auditDrafts: [
            auditDraft(
              audit,
              accountId,
              'invitation.created',
              { type: 'invitation', id: publicId },
              { email: [null, email], role: [null, role] },
              now,
            ),
          ],
        },
        now,
      );
      await auditLog.flush('invitation', doc._id);
      await ctx.mailer.send(
        { to: email, ...invitationMail(settings.baseUrl, token, account.name ?? account._id, role) },
        { idempotencyKey: `invitation-${doc._id}` },
      );
      return invitationView(doc);
    },

    /** The account's invitations that can still be accepted, newest first. */
    list: (accountId: string) =>
      authTokens
        .find(pending(accountId, new Date()), { projection: { auditDrafts: 0 } })
        .sort({ createdAt: -1 })
        .limit(500)
        .toArray(),

    /** Revokes a pending invitation by its id: its link stops working at once. 404 when there is none pending. */
    async revoke(accountId: string, publicId: string, audit: AuditContext) {
      if (!(await revokeWhere(accountId, { publicId }, audit)))
        throw new ServiceError('not_found', `There is no pending invitation ${publicId} on this account.`);
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
          throw new ServiceError('forbidden', `This invitation is for ${email}: sign in with that address to accept it.`);
        }
        if (!user && !current) {
          if (!input.password) throw invalidField('/password', 'is required: choose a password for your new sign-in');
          const problem = await passwordProblem(input.password, { email, name: input.name });
          if (problem) throw invalidField('/password', problem);
          user = await users.create({
            _id: derivedId('usr', claimed._id),
            email,
            name: input.name ?? null,
            passwordHash: await hashPassword(input.password),
            createdAt: new Date(),
            passwordChangedAt: null,
            lastSignInAt: null,
          });
          if (!user) throw invalidToken('This address has just been given a sign-in: sign in and accept again.');
        } else if (!current) {
          throw unauthenticated(`Sign in as ${email} to accept this invitation.`);
        }
      } catch (err) {
        await tokens.release(claimed); // the link still works once the person can use it
        throw err;
      }
      await memberships.join(accountId, user!, role, userActing(user!._id, facts));
      await tokens.complete(claimed);
      if (current) {
        // Joined either way; the session moves only if the account lets this way of signing in act on it.
        const policy = (await memberships.accountsOf(user!._id)).find((a) => a.id === accountId)?.signInPolicy;
        if (!policyAllows(policy, current)) {
          throw providerRequired(
            ctx.providers,
            policy!.requiredProvider,
            'You joined the account; it requires its members to sign in through its identity provider: sign in that way to act on it.',
          );
        }
        await sessions.switchAccount(current._id, accountId, role);
        return null;
      }
      return signin.startSession(user!, 'invitation', facts, null, accountId);
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;
