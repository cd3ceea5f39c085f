//! Members and invitations on the real stack, the mail read back from the real SMTP server:
//! inviting any role (listed pending, revocable, once, 7 days), role changes that sessions follow at
//! once, removals that end the member's sessions at once while their keys keep working under "made
//! by a former member", the account's one owner (409 last_owner), the transfer of ownership after a
//! recent sign-in, `member.joined` / `member.removed` delivered, and the audit log naming the acting member.
import test from 'ava';
import { callTool, isProblem, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { uniqueAddress } from '../helpers/mailbox.js';
import { client, signIn } from '../helpers/people.js';
import { acceptAsNew, invite, teamAccount } from '../helpers/team.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const audit = async (c: ReturnType<typeof client>, token: string, action: string) =>
  (await c.request('GET', `/api/v1/account/audit-log?action=${action}`, { token })).body.items as UncheckedJson[];

test('invitations: any role but a second owner, listed while pending, revoked by id or by a newer one, used once, for 7 days; 409 for a member, 400 for no such role', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'admin'], 'Invites');
  const admin = members.admin!;
  const email = uniqueAddress('dev');
  const first = await invite(c, account.ownerToken, email, 'developer');
  const listed = await c.request('GET', '/api/v1/account/invitations', { cookie: admin.cookie });
  t.is(listed.status, 200);
  t.like(listed.body[0], { email, role: 'developer' });
  t.regex(listed.body[0].id, /^inv_/);

  t.true(
    isProblem(
      await c.request('POST', '/api/v1/account/invitations', {
        cookie: admin.cookie,
        body: { email: members.owner!.email, role: 'viewer' },
      }),
      409,
      'already_member',
    ),
  );
  const noSuchRole = await c.request('POST', '/api/v1/account/invitations', { cookie: admin.cookie, body: { email, role: 'superuser' } });
  t.true(isProblem(noSuchRole, 400, 'validation_failed'));
  t.is(noSuchRole.body.errors[0].field, '/role');
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/account/invitations', { cookie: admin.cookie, body: { email, role: 'owner' } }),
      409,
      'already_exists',
    ),
    'one owner: ownership moves by a transfer',
  );

  // A newer invitation to the address revokes the one before; the admin revokes the newer by its id.
  const second = await invite(c, { cookie: admin.cookie }, email, 'billing');
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token: first, password: 'a long enough password for this' } }),
      400,
      'invalid_token',
    ),
    'the earlier link is revoked',
  );
  const pending = (await c.request('GET', '/api/v1/account/invitations', { cookie: admin.cookie })).body as UncheckedJson[];
  t.is(pending.length, 1);
  t.is((await c.request('DELETE', `/api/v1/account/invitations/${pending[0].id}`, { cookie: admin.cookie })).status, 204);
  t.true(isProblem(await c.request('DELETE', `/api/v1/account/invitations/${pending[0].id}`, { cookie: admin.cookie }), 404, 'not_found'));
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token: second, password: 'a long enough password for this' } }),
      400,
      'invalid_token',
    ),
    'a revoked link',
  );
  t.deepEqual((await c.request('GET', '/api/v1/account/invitations', { cookie: admin.cookie })).body, []);

  // Past its 7 days a link is refused (the clock moved on in the database).
  const third = await invite(c, account.ownerToken, email, 'viewer');
  const invitationId = ((await c.request('GET', '/api/v1/account/invitations', { token: account.ownerToken })).body as UncheckedJson[])[0]
    .id;
  await withServiceDb((db) =>
    db.collection('auth_tokens').updateOne({ publicId: invitationId }, { $set: { expiresAt: new Date(Date.now() - 1000) } }),
  );
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token: third, password: 'a long enough password for this' } }),
      400,
      'invalid_token',
    ),
    'an expired link',
  );

  // A live one signs the new person up and in, once.
  const fourth = await invite(c, account.ownerToken, email, 'viewer');
  const viewer = await acceptAsNew(c, fourth, 'viewer', email);
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: viewer.cookie })).body.account.role, 'viewer');
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token: fourth, password: viewer.password } }),
      400,
      'invalid_token',
    ),
    'a used link',
  );

  // The owner's and the admin's own invitations, then four to the address.
  const created = await audit(c, account.ownerToken, 'invitation.created');
  t.is(created.length, 6);
  t.like(
    created.find((e) => e.changes.role[1] === 'billing'),
    { actor: { type: 'user', userId: admin.userId }, changes: { email: [null, email] } },
  );
  t.like(
    created.find((e) => e.changes.role[1] === 'developer'),
    { actor: { type: 'owner' } },
  );
  const revoked = await audit(c, account.ownerToken, 'invitation.revoked');
  t.is(revoked.length, 2, 'the first by a newer one, the second by its id; the expired one was not pending');
  t.true(
    revoked.every((e) => e.actor.type === 'user' && e.actor.userId === admin.userId),
    'the acting member',
  );
});

test('roles change at once; a removed member is signed out of the account at once, their key keeps working under "made by a former member"; member events delivered', async (t) => {
  const c = client();
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { account, members } = await teamAccount(c, ['owner', 'admin', 'developer'], 'Roles');
  const { owner, admin, developer } = members as Required<typeof members>;
  const hook = await c.request('POST', '/api/v1/account/webhooks', {
    cookie: admin!.cookie,
    body: { url: receiver.url(), eventTypes: ['member.joined', 'member.removed'] },
  });
  t.is(hook.status, 201, JSON.stringify(hook.body));

  // Keys have makers.
  const devKey = await c.request('POST', '/api/v1/account/keys', { cookie: developer!.cookie, body: { name: 'dev' } });
  t.is(devKey.status, 201);
  const listed = await c.request('GET', '/api/v1/account/keys', { cookie: developer!.cookie });
  const makerOf = (keys: UncheckedJson[], id: string) => keys.find((k) => k.id === id).maker;
  t.deepEqual(makerOf(listed.body, devKey.body.id), {
    type: 'user',
    userId: developer!.userId,
    name: 'The developer',
    email: developer!.email,
    prefix: null,
    former: false,
  });
  t.like(makerOf(listed.body, account.apiKeyId), { type: 'operator', former: false });

  // A member joins: the event names them.
  const viewerEmail = uniqueAddress('viewer');
  const viewer = await acceptAsNew(c, await invite(c, account.ownerToken, viewerEmail, 'viewer'), 'viewer', viewerEmail);
  await receiver.waitFor(
    (all) => all.some((d) => d.body?.event === 'member.joined' && d.body.data.userId === viewer.userId),
    60_000,
    'member.joined',
  );

  // The admin makes the developer a viewer: their session takes it at once.
  const changed = await c.request('PATCH', `/api/v1/account/members/${developer!.userId}`, {
    cookie: admin!.cookie,
    body: { role: 'viewer' },
  });
  t.like(changed.body, { userId: developer!.userId, role: 'viewer', email: developer!.email });
  const refused = await c.request('POST', '/api/v1/account/keys', { cookie: developer!.cookie, body: {} });
  t.true(isProblem(refused, 403, 'forbidden_for_role'));
  t.like(refused.body, { requiredRole: 'developer', role: 'viewer' });
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: developer!.cookie })).body.account.role, 'viewer');
  const back = await c.request('PATCH', `/api/v1/account/members/${developer!.userId}`, {
    cookie: admin!.cookie,
    body: { role: 'developer' },
  });
  t.is(back.body.role, 'developer');
  t.true(
    isProblem(
      await c.request('PATCH', `/api/v1/account/members/${developer!.userId}`, { cookie: developer!.cookie, body: { role: 'admin' } }),
      403,
      'forbidden_for_role',
    ),
    'no one raises themselves',
  );

  // The account's one owner stays.
  t.true(
    isProblem(
      await c.request('PATCH', `/api/v1/account/members/${owner!.userId}`, { cookie: admin!.cookie, body: { role: 'admin' } }),
      409,
      'last_owner',
    ),
  );
  t.true(isProblem(await c.request('DELETE', `/api/v1/account/members/${owner!.userId}`, { cookie: admin!.cookie }), 409, 'last_owner'));
  t.true(
    isProblem(await c.request('DELETE', `/api/v1/account/members/${owner!.userId}`, { cookie: owner!.cookie }), 409, 'last_owner'),
    'nor leaves',
  );
  t.true(
    isProblem(
      await c.request('PATCH', `/api/v1/account/members/${admin!.userId}`, { cookie: owner!.cookie, body: { role: 'owner' } }),
      400,
      'validation_failed',
    ),
    'ownership is a transfer',
  );
  t.true(
    isProblem(
      await c.request('PATCH', '/api/v1/account/members/usr_nobody', { cookie: owner!.cookie, body: { role: 'viewer' } }),
      404,
      'not_found',
    ),
  );

  // Removed: the session is refused at once; the key works on, listed as a former member's.
  t.is((await c.request('GET', '/api/v1/account', { cookie: developer!.cookie })).status, 200);
  t.is((await c.request('DELETE', `/api/v1/account/members/${developer!.userId}`, { cookie: admin!.cookie })).status, 204);
  t.true(isProblem(await c.request('GET', '/api/v1/account', { cookie: developer!.cookie }), 401, 'unauthenticated'));
  t.true(isProblem(await c.request('DELETE', `/api/v1/account/members/${developer!.userId}`, { cookie: admin!.cookie }), 404, 'not_found'));
  t.is((await callTool(devKey.body.key, 'hash-text', { text: 'still works', algorithm: 'sha256' })).status, 200);
  const after = await c.request('GET', '/api/v1/account/keys', { cookie: viewer.cookie });
  t.like(makerOf(after.body, devKey.body.id), { type: 'user', userId: developer!.userId, former: true });
  const team = (await c.request('GET', '/api/v1/account/members', { cookie: viewer.cookie })).body as UncheckedJson[];
  t.deepEqual(team.map((m) => m.role).sort(), ['admin', 'owner', 'viewer']);
  t.like(
    team.find((m) => m.role === 'owner'),
    { userId: owner!.userId, email: owner!.email, name: 'The owner' },
  );
  t.truthy(team.find((m) => m.role === 'owner').lastSignInAt);
  t.false((await signIn(c, developer!.email, developer!.password)).res.status === 200, 'no account left to sign in to');

  const removed = await receiver.waitFor((all) => all.some((d) => d.body?.event === 'member.removed'), 60_000, 'member.removed');
  t.like(removed.find((d) => d.body.event === 'member.removed')!.body.data, {
    userId: developer!.userId,
    email: developer!.email,
    role: 'developer',
  });
  const entries = await audit(c, account.ownerToken, 'member.removed');
  t.like(entries[0], {
    actor: { type: 'user', userId: admin!.userId },
    target: { type: 'membership' },
    changes: { userId: [developer!.userId, null], role: ['developer', null] },
  });
  const roleChanges = await audit(c, account.ownerToken, 'member.role_changed');
  t.like(roleChanges.at(-1), {
    actor: { type: 'user', userId: admin!.userId },
    target: { id: developer!.userId },
    changes: { role: ['developer', 'viewer'] },
  });
});

test('ownership moves only by a transfer from the owner after a recent sign-in; the owner before becomes an admin', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'admin'], 'Transfer');
  const { owner, admin } = members as Required<typeof members>;
  const refused = await c.request('POST', '/api/v1/account/transfer-ownership', { cookie: admin!.cookie, body: { userId: admin!.userId } });
  t.true(isProblem(refused, 403, 'forbidden_for_role'));
  t.is(refused.body.requiredRole, 'owner');

  await withServiceDb((db) =>
    db.collection('sessions').updateMany({ userId: owner!.userId }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
  );
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/account/transfer-ownership', { cookie: owner!.cookie, body: { userId: admin!.userId } }),
      403,
      'reauthentication_required',
    ),
  );
  const again = await signIn(c, owner!.email, owner!.password);
  t.is(again.res.status, 200);
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/account/transfer-ownership', { cookie: again.cookie, body: { userId: 'usr_nobody' } }),
      404,
      'not_found',
    ),
  );
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/account/transfer-ownership', { cookie: again.cookie, body: { userId: owner!.userId } }),
      400,
      'validation_failed',
    ),
  );
  const moved = await c.request('POST', '/api/v1/account/transfer-ownership', { cookie: again.cookie, body: { userId: admin!.userId } });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  t.like(moved.body, { owner: { userId: admin!.userId, role: 'owner' }, previousOwner: { userId: owner!.userId, role: 'admin' } });
  // Both sessions act with their new roles at once.
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: admin!.cookie })).body.account.role, 'owner');
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: again.cookie })).body.account.role, 'admin');
  t.true(
    isProblem(
      await c.request('PUT', '/api/v1/account/sign-in-policy', { cookie: again.cookie, body: { requiredProvider: null } }),
      403,
      'forbidden_for_role',
    ),
    "the owner's rights went with it",
  );
  // The new owner may now remove the one before, who is an admin.
  t.is((await c.request('DELETE', `/api/v1/account/members/${owner!.userId}`, { cookie: admin!.cookie })).status, 204);
  const [entry] = await audit(c, account.ownerToken, 'account.ownership_transferred');
  t.like(entry, { actor: { type: 'user', userId: owner!.userId }, changes: { owner: [owner!.userId, admin!.userId] } });
});
