//! Team (`/dashboard/team`): the account's members with their role, when they joined and last
//! signed in (the signed-in person marked "You"); the invitations still pending, with when they
//! expire; and, for those whose role may change the team (owner, admin), a role change per member,
//! removing a member and revoking an invitation after confirmation, and the invite form (its parts:
//! team-members.js, team-invitations.js). The owner alone hands the account on (team-transfer.js)
//! and sets the company sign-in (team-sign-in-policy.js).
//! What a role may do is domain/teams/permissions.ts's table, which the service checks on every
//! request: this page only hides what the signed-in role cannot do, and shows any refusal.
import { focusOn, h, viewSection } from './dom.js';
import { createInvitationsSection } from './team-invitations.js';
import { createMembersSection } from './team-members.js';
import { createSignInPolicySection } from './team-sign-in-policy.js';
import { roleName } from './team-roles.js';
import { createTransferSection } from './team-transfer.js';

/** The roles that change the team (GROUPS.team); only the owner transfers ownership (GROUPS.ownership). */
const MANAGERS = new Set(['owner', 'admin']);

/** @param {import('./app.js').ViewContext} context */
export function createTeamView(context) {
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const myId = () => context.me()?.user.id ?? null;

  const roleNote = h('p', { id: 'team-role' });
  const membersPart = createMembersSection({
    context,
    reload: () => load(),
    manages: () => manages(),
    changeable: (m) => changeable(m),
    myId,
  });
  const invitationsPart = createInvitationsSection({ client, reload: () => load(), manages: () => manages() });
  const transfer = createTransferSection({
    context,
    transferred: async () => {
      await load();
      focusOn(membersPart.section.querySelector('h2'));
    },
  });
  const policy = createSignInPolicySection({ client });
  const element = viewSection('team', 'Team', roleNote, membersPart.section, invitationsPart.section, transfer.section, policy.section);

  /** The signed-in role: the owner token's is the owner's; a person's is their row's (fresher than the sign-in's). */
  function myRole() {
    if (context.kind() === 'token') return 'owner';
    return membersPart.members()?.find((m) => m.userId === myId())?.role ?? context.me()?.account.role ?? null;
  }
  const manages = () => MANAGERS.has(myRole() ?? '');
  /** Whether the signed-in role may change `m`: never the owner (transfer instead), nor oneself. */
  const changeable = (m) => manages() && m.role !== 'owner' && m.userId !== myId();

  /** Reads both lists and shows them with the controls the role has. */
  async function load() {
    await Promise.all([membersPart.read(), invitationsPart.read()]);
    render();
    await policy.load(myRole() === 'owner');
  }

  function render() {
    const mine = myRole();
    roleNote.textContent =
      context.kind() === 'token'
        ? 'You signed in with the owner token: it has the owner’s rights.'
        : !mine
          ? ''
          : MANAGERS.has(mine)
            ? `Your role here is ${roleName(mine)}: you invite people and change their roles.`
            : `Your role here is ${roleName(mine)}. The owner and admins invite people and change roles.`;
    membersPart.render();
    invitationsPart.render();
    transfer.render(mine === 'owner' ? membersPart.members() : null);
  }

  return {
    element,
    load,
    close() {
      membersPart.close();
      invitationsPart.close();
      transfer.close();
      policy.close();
    },
  };
}
