//! Team (`/dashboard/team`): the account's members with their role, when they joined and last
//! signed in (the signed-in person marked "You"); the invitations still pending, with when they
//! expire; and, for those whose role may change the team (owner, admin), a role change per member,
//! removing a member and revoking an invitation after confirmation, and the invite form. The
//! owner alone hands the account on (team-transfer.js) and sets the company sign-in
//! (team-sign-in-policy.js).
//! What a role may do is domain/teams/permissions.ts's table, which the service checks on every
//! request: this page only hides what the signed-in role cannot do, and shows any refusal.
import { confirmAction } from './dialogs.js';
import { announce, busy, dataTable, empty, errorBox, focusOn, h, loading, problemText, replace, time, viewSection } from './dom.js';
import { field, formProblems, selectField } from './forms.js';
import { createSignInPolicySection } from './team-sign-in-policy.js';
import { ROLE_NAMES, roleName, who } from './team-roles.js';
import { createTransferSection } from './team-transfer.js';

/** The roles a member is given here; `owner` moves only by a transfer. */
const GIVEN = ['admin', 'developer', 'billing', 'viewer'];
/** What each role may do, in a line (the roles table of docs/API.md, "Teams"). */
const DUTIES = 'Admin: everything but ownership. Developer: keys, webhooks, destinations, render links and batches. Billing: purchases, auto-recharge and grants. Viewer: reads everything but secrets, changes nothing.';
/** The roles that change the team (GROUPS.team); only the owner transfers ownership (GROUPS.ownership). */
const MANAGERS = new Set(['owner', 'admin']);


/** @param {import('./app.js').ViewContext} context */
export function createTeamView(context) {
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const myId = () => context.me()?.user.id ?? null;

  const roleNote = h('p', { id: 'team-role' });

  const membersBody = h('div', { id: 'members-body' });
  const membersSection = h('section', { id: 'members', 'aria-labelledby': 'members-title' }, h('h2', { id: 'members-title', tabindex: '-1' }, 'Members'), membersBody);

  const invitationsBody = h('div', { id: 'invitations-body' });
  const email = field({
    id: 'invite-email', label: 'Email address', help: 'We mail it a link, valid for 7 days and usable once.',
    attrs: { type: 'email', name: 'email', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', maxlength: 254 },
  });
  const role = selectField({ id: 'invite-role', label: 'Role', name: 'role', help: DUTIES, placeholder: 'Choose a role', options: GIVEN.map((r) => ({ value: r, label: ROLE_NAMES[r] })) });
  const inviteProblems = formProblems({ fields: { '/email': email, '/role': role } });
  const inviteSubmit = h('button', { type: 'submit', class: 'primary' }, 'Send the invitation');
  const inviteStatus = h('p', { class: 'status-line', id: 'invite-status', role: 'status' });
  const inviteForm = h(
    'form',
    { id: 'invite-form', class: 'panel-form', method: 'post', novalidate: true, 'aria-labelledby': 'invite-title', onsubmit: invite, hidden: true },
    h('h3', { id: 'invite-title' }, 'Invite a person'),
    inviteProblems.summary,
    email.element,
    role.element,
    inviteSubmit,
    inviteStatus,
  );
  const invitationsSection = h(
    'section',
    { id: 'invitations', 'aria-labelledby': 'invitations-title' },
    h('h2', { id: 'invitations-title', tabindex: '-1' }, 'Pending invitations'),
    invitationsBody,
    inviteForm,
  );

  const transfer = createTransferSection({
    context,
    transferred: async () => {
      await load();
      focusOn(membersSection.querySelector('h2'));
    },
  });
  const policy = createSignInPolicySection({ client });
  const element = viewSection('team', 'Team', roleNote, membersSection, invitationsSection, transfer.section, policy.section);

  /** @type {any[] | null} */
  let members = null;
  /** @type {any[] | null} */
  let invitations = null;
  /** Why a list could not be read, to show in its place. */
  let membersError = null;
  let invitationsError = null;

  /** The signed-in role: the owner token's is the owner's; a person's is their row's (fresher than the sign-in's). */
  function myRole() {
    if (context.kind() === 'token') return 'owner';
    return members?.find((m) => m.userId === myId())?.role ?? context.me()?.account.role ?? null;
  }
  const manages = () => MANAGERS.has(myRole() ?? '');
  /** Whether the signed-in role may change `m`: never the owner (transfer instead), nor oneself. */
  const changeable = (m) => manages() && m.role !== 'owner' && m.userId !== myId();

  async function readMembers() {
    if (members === null) replace(membersBody, loading('members'));
    try {
      members = await client.members();
      membersError = null;
    } catch (err) {
      if (err?.name === 'AbortError') return;
      members = null;
      membersError = err;
    }
  }

  async function readInvitations() {
    if (invitations === null) replace(invitationsBody, loading('invitations'));
    try {
      invitations = await client.invitations();
      invitationsError = null;
    } catch (err) {
      if (err?.name === 'AbortError') return;
      invitations = null;
      invitationsError = err;
    }
  }

  /** Reads both lists and shows them with the controls the role has. */
  async function load() {
    await Promise.all([readMembers(), readInvitations()]);
    render();
    await policy.load(myRole() === 'owner');
  }

  function render() {
    const mine = myRole();
    roleNote.textContent =
      context.kind() === 'token' ? 'You signed in with the owner token: it has the owner’s rights.'
        : !mine ? ''
          : MANAGERS.has(mine) ? `Your role here is ${roleName(mine)}: you invite people and change their roles.`
            : `Your role here is ${roleName(mine)}. The owner and admins invite people and change roles.`;
    renderMembers();
    renderInvitations();
    inviteForm.hidden = !manages();
    transfer.render(mine === 'owner' ? members : null);
  }

  function renderMembers() {
    if (membersError) {
      replace(membersBody, errorBox(membersError, { what: 'the members', retry: () => load() }));
      return;
    }
    if (!members) return;
    if (!members.length) {
      replace(membersBody, empty('No one is a member yet. ', context.kind() === 'token' ? h('a', { href: '/dashboard/attach' }, 'Attach yourself') : null));
      return;
    }
    const actions = manages();
    replace(
      membersBody,
      dataTable({
        attrs: { class: 'members-table', 'aria-labelledby': 'members-title' },
        caption: 'First joined first.',
        columns: ['Member', 'Role', 'Joined', 'Last sign-in', ...(actions ? ['Actions'] : [])],
        rowHeader: 0,
        rows: members.map((m) => ({
          attrs: { dataset: { userId: m.userId } },
          cells: [
            [
              h('span', { class: 'member-name' }, who(m)),
              m.userId === myId() ? [' ', h('span', { class: 'badge active' }, 'You')] : null,
              m.name && m.email ? h('span', { class: 'member-email muted small' }, m.email) : null,
            ],
            changeable(m) ? roleForm(m) : h('span', { class: 'member-role' }, roleName(m.role)),
            time(m.joinedAt),
            time(m.lastSignInAt, 'Never'),
            ...(actions
              ? [changeable(m) ? h('button', { type: 'button', class: 'small-button danger', 'data-focus-key': `remove-${m.userId}`, 'aria-label': `Remove ${who(m)}`, onclick: (e) => remove(m, e.currentTarget) }, 'Remove') : null]
              : []),
          ],
        })),
      }),
    );
  }

  /** A member's role as a choice with its own Change button and error line. */
  function roleForm(m) {
    const id = `role-${m.userId}`;
    const select = /** @type {HTMLSelectElement} */ (
      h('select', { id, name: 'role', 'aria-describedby': `${id}-error`, 'data-focus-key': `role-${m.userId}` }, GIVEN.map((r) => h('option', { value: r, selected: r === m.role }, ROLE_NAMES[r])))
    );
    const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', hidden: true });
    const save = h('button', { type: 'submit', class: 'small-button', 'data-focus-key': `change-role-${m.userId}`, 'aria-label': `Change role of ${who(m)}` }, 'Change role');
    return h(
      'form',
      {
        class: 'role-form', method: 'post', novalidate: true,
        onsubmit: (event) => {
          event.preventDefault();
          void busy(save, () => changeRole(m, select, error));
        },
      },
      h('label', { for: id, class: 'visually-hidden' }, `Role of ${who(m)}`),
      h('div', { class: 'role-row' }, select, save),
      error,
    );
  }

  async function changeRole(m, select, error) {
    error.hidden = true;
    select.removeAttribute('aria-invalid');
    const next = select.value;
    if (next === m.role) {
      announce(`${who(m)} is ${roleName(next)} already.`);
      return;
    }
    try {
      await client.changeMemberRole(m.userId, next);
      await load();
      announce(`${who(m)} is now ${roleName(next)}.`);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      error.textContent = problemText(err);
      error.hidden = false;
      select.setAttribute('aria-invalid', 'true');
      select.focus();
    }
  }

  async function remove(m, button) {
    const confirmed = await confirmAction({
      title: `Remove ${who(m)} from the account?`,
      body: 'Their sessions on this account end at once. API keys they made keep working, listed as made by a former member. You can invite them again.',
      confirmLabel: 'Remove member',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.removeMember(m.userId);
        await load();
        // Focus first (the row is gone), then the result.
        focusOn(membersSection.querySelector('h2'));
        announce(`${who(m)} was removed from the account.`);
      } catch (err) {
        if (err?.name === 'AbortError') return;
        button.closest('td')?.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  function renderInvitations() {
    if (invitationsError) {
      replace(invitationsBody, errorBox(invitationsError, { what: 'the invitations', retry: () => load() }));
      return;
    }
    if (!invitations) return;
    if (!invitations.length) {
      replace(invitationsBody, empty('No invitations are waiting to be accepted.'));
      return;
    }
    const actions = manages();
    replace(
      invitationsBody,
      dataTable({
        attrs: { class: 'invitations-table', 'aria-labelledby': 'invitations-title' },
        caption: 'Newest first. An invitation not accepted within 7 days expires.',
        columns: ['Address', 'Role', 'Invited', 'Expires', ...(actions ? ['Actions'] : [])],
        rowHeader: 0,
        rows: invitations.map((i) => ({
          attrs: { dataset: { invitationId: i.id } },
          cells: [
            i.email,
            roleName(i.role),
            time(i.createdAt),
            time(i.expiresAt),
            ...(actions ? [h('button', { type: 'button', class: 'small-button danger', 'data-focus-key': `revoke-${i.id}`, 'aria-label': `Revoke the invitation of ${i.email}`, onclick: (e) => revoke(i, e.currentTarget) }, 'Revoke')] : []),
          ],
        })),
      }),
    );
  }

  async function revoke(invitation, button) {
    const confirmed = await confirmAction({
      title: `Revoke the invitation of ${invitation.email}?`,
      body: 'Its link stops working at once. You can invite the address again.',
      confirmLabel: 'Revoke invitation',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.revokeInvitation(invitation.id);
        await load();
        focusOn(invitationsSection.querySelector('h2'));
        announce(`The invitation of ${invitation.email} was revoked.`);
      } catch (err) {
        if (err?.name === 'AbortError') return;
        button.closest('td')?.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  async function invite(event) {
    event.preventDefault();
    await busy(inviteSubmit, async () => {
      inviteProblems.clear();
      inviteStatus.textContent = '';
      if (!inviteProblems.requireFilled({ '/email': 'is required', '/role': 'is not chosen' })) return;
      const address = email.input.value.trim();
      const given = role.input.value;
      try {
        const sent = await client.invite(address, given);
        email.input.value = '';
        role.input.value = '';
        await load();
        inviteStatus.textContent = `Invitation mailed to ${sent.email} as ${roleName(sent.role)}.`;
        email.input.focus();
      } catch (err) {
        if (err?.name === 'AbortError') return;
        // A member's address is a problem of the address field; the service's words say what to do.
        if (err?.code === 'already_member') {
          inviteProblems.show({ detail: err.detail, requestId: err.requestId, errors: [{ field: '/email', message: 'is a member of this account already: change their role in the list above' }] });
        } else inviteProblems.show(err, { focus: email.input });
      }
    });
  }

  return {
    element,
    load,
    close() {
      members = null;
      invitations = null;
      email.input.value = '';
      inviteProblems.clear();
      transfer.close();
      policy.close();
    },
  };
}
