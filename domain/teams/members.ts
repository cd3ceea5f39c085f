//! The members of an account as its owner and admins manage them: the list with roles and last
//! sign-in, a role change (their sessions follow at once), a removal (their sessions on the account
//! end at once; their API keys keep working, listed as made by a former member), and the owner
//! handing the account on. An account has exactly one owner: they can be neither demoted nor
//! removed (409 `last_owner`); ownership moves only by a transfer, after which the old owner is an admin.
import { type Static, Type } from '@sinclair/typebox';
import { ServiceError } from '../../contracts/errors.js';
import { Id, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../lib/schema-types.js';
import { collections } from '../../lib/mongo.js';
import type { CredentialDoc } from '../account-documents.js';
import type { MembershipDoc, Role } from '../membership/index.js';
import { type SessionDoc, type UserDoc, type IdentityContext, requireRecentSignIn } from '../identity/index.js';
import { accountDraft, createAuditLog, type AuditContext } from '../audit/index.js';
import { ROLES } from './permissions.js';

const nullableText = (description: string) => Nullable(Type.String({ description }));

/** A member as the account's member list shows them: its type, and the `Member` schema of the OpenAPI document. */
export const Member = Type.Object(
  {
    userId: Id('usr', 'The person.'),
    email: nullableText('Their address.'),
    name: nullableText('Their name.'),
    role: StringEnum(ROLES, { description: 'The role on the account.' }),
    joinedAt: Timestamp('When they joined.'),
    lastSignInAt: NullableTimestamp('Their last sign-in (to any account); null if never.'),
  },
  { description: 'A member of the account.' },
);
export type MemberView = Static<typeof Member>;

export const memberView = (
  m: Pick<MembershipDoc, 'userId' | 'role' | 'joinedAt'>,
  u: Pick<UserDoc, 'email' | 'name' | 'lastSignInAt'> | null,
): MemberView => ({
  userId: m.userId,
  email: u?.email ?? null,
  name: u?.name ?? null,
  role: m.role,
  joinedAt: m.joinedAt,
  lastSignInAt: u?.lastSignInAt ?? null,
});

/** Who made a key, as the key list shows it: its type, and the `KeyMaker` schema of the OpenAPI document. */
export const KeyMaker = Nullable(
  Type.Object(
    {
      type: StringEnum(['user', 'owner_token', 'operator']),
      userId: nullableText('The member (`type` user).'),
      name: nullableText('Their name.'),
      email: nullableText('Their address.'),
      prefix: nullableText("The owner token's prefix (`type` owner_token)."),
      former: Type.Boolean({ description: 'Made by a former member: they are no longer on the account.' }),
    },
    {
      description:
        'Who made the key: a member (`former` once they left the account: the key keeps working, an admin decides), the owner token, or the operator; null for keys made before makers were recorded.',
    },
  ),
);
export type MakerView = NonNullable<Static<typeof KeyMaker>>;

const lastOwner = () =>
  new ServiceError(
    'last_owner',
    'The account needs its owner: transfer ownership to another member first (POST /api/v1/account/transfer-ownership); the owner then becomes an admin.',
  );
const noMember = (userId: string) => new ServiceError('not_found', `There is no member ${userId} on this account.`);

export function createMembers(ctx: IdentityContext) {
  const { memberships, sessions } = ctx;
  const { users, accounts } = collections(ctx.db);
  const auditLog = createAuditLog(ctx.db);
  const people = async (ids: string[]) =>
    new Map(
      (await users.find({ _id: { $in: ids } }, { projection: { email: 1, name: 1, lastSignInAt: 1 } }).toArray()).map((u) => [u._id, u]),
    );

  async function member(accountId: string, userId: string) {
    const m = await memberships.get(accountId, userId);
    if (!m) throw noMember(userId);
    return m;
  }

  /** The member's person, for their events and entries (a person whose record is gone is named by id). */
  const personOf = async (userId: string) =>
    (await users.findOne({ _id: userId }, { projection: { email: 1, name: 1 } })) ?? { _id: userId, email: '', name: null };

  return {
    async list(accountId: string): Promise<MemberView[]> {
      const list = await memberships.list(accountId);
      const byId = await people(list.map((m) => m.userId));
      return list.map((m) => memberView(m, byId.get(m.userId) ?? null));
    },

    /** Gives a member another role (never `owner`: that is a transfer); their sessions on the account take it at once. */
    async changeRole(accountId: string, userId: string, role: Role, audit: AuditContext): Promise<MemberView> {
      if (role === 'owner') {
        throw new ServiceError(
          'validation_failed',
          'The input is invalid: /role owner is given by transferring ownership (POST /api/v1/account/transfer-ownership).',
          { errors: [{ field: '/role', message: 'owner is given by a transfer' }] },
        );
      }
      const m = await member(accountId, userId);
      if (m.role === 'owner') throw lastOwner();
      if (m.role !== role) {
        if (!(await memberships.setRole(accountId, userId, m.role, role, audit)))
          throw new ServiceError('not_found', `The member ${userId} changed or left meanwhile: read the list again.`);
        await sessions.setRole(userId, accountId, role);
      }
      return memberView({ ...m, role }, (await people([userId])).get(userId) ?? null);
    },

    /** Removes a member: their sessions on the account end at once; their keys keep working. */
    async remove(accountId: string, userId: string, audit: AuditContext): Promise<void> {
      const m = await member(accountId, userId);
      if (m.role === 'owner') throw lastOwner();
      if (!(await memberships.remove(accountId, await personOf(userId), m.role, audit))) throw noMember(userId);
      await sessions.endForMember(userId, accountId, 'member_removed', audit);
    },

    /**
     * Makes `toUserId` the owner and the owner before (if a person) an admin. A session must have
     * signed in within the last 10 minutes (403 `reauthentication_required`); an owner token is
     * the owner's own credential and needs no sign-in.
     */
    async transfer(
      accountId: string,
      toUserId: string,
      acting: SessionDoc | undefined,
      audit: AuditContext,
    ): Promise<{ owner: MemberView; previousOwner: MemberView | null }> {
      if (acting) requireRecentSignIn(acting);
      const target = await member(accountId, toUserId);
      if (target.role === 'owner') {
        throw new ServiceError('validation_failed', 'The input is invalid: /userId is the owner already.', {
          errors: [{ field: '/userId', message: 'is the owner already' }],
        });
      }
      const previous = (await memberships.withRole(accountId, 'owner'))[0] ?? null;
      // The new owner first: the account is never without one, whatever happens in between.
      if (!(await memberships.setRole(accountId, toUserId, target.role, 'owner', audit)))
        throw new ServiceError('not_found', `The member ${toUserId} changed or left meanwhile: read the list again.`);
      await sessions.setRole(toUserId, accountId, 'owner');
      if (previous) {
        await memberships.setRole(accountId, previous.userId, 'owner', 'admin', audit);
        await sessions.setRole(previous.userId, accountId, 'admin');
      }
      const draft = accountDraft(audit, accountId, 'account.ownership_transferred', { owner: [previous?.userId ?? null, toUserId] });
      await accounts.updateOne({ _id: accountId }, { $push: { auditDrafts: draft } });
      await auditLog.flush('account', accountId);
      const byId = await people([toUserId, ...(previous ? [previous.userId] : [])]);
      return {
        owner: memberView({ ...target, role: 'owner' }, byId.get(toUserId) ?? null),
        previousOwner: previous ? memberView({ ...previous, role: 'admin' }, byId.get(previous.userId) ?? null) : null,
      };
    },

    /** Who made each of these keys, by key id: a member's name, or `former` when they left the account. */
    async makers(accountId: string, keys: Pick<CredentialDoc, '_id' | 'createdBy'>[]): Promise<Map<string, MakerView | null>> {
      const userIds = [...new Set(keys.flatMap((k) => (k.createdBy?.type === 'user' ? [k.createdBy.userId] : [])))];
      const [byId, current] = userIds.length
        ? await Promise.all([people(userIds), memberships.among(accountId, userIds)])
        : [new Map(), []];
      const members = new Set(current.map((m) => m.userId));
      return new Map(
        keys.map((k): [string, MakerView | null] => {
          const by = k.createdBy;
          if (!by) return [k._id, null];
          if (by.type === 'user') {
            const u = byId.get(by.userId);
            return [
              k._id,
              {
                type: 'user',
                userId: by.userId,
                name: u?.name ?? null,
                email: u?.email ?? null,
                prefix: null,
                former: !members.has(by.userId),
              },
            ];
          }
          if (by.type === 'owner_token')
            return [k._id, { type: 'owner_token', userId: null, name: null, email: null, prefix: by.prefix, former: false }];
          return [k._id, { type: 'operator', userId: null, name: null, email: null, prefix: null, former: false }];
        }),
      );
    },
  };
}

export type Members = ReturnType<typeof createMembers>;
