//! The Team page's pending invitations, with when they expire, and for the owner and admins the
//! invite form (an address and a role; mailed, valid for 7 days) and revoking one after confirmation.
import { dataTable, h, subSection, time } from './dom.js';
import { emailField, formProblems, postForm, selectField } from './forms.js';
import { createHeldList } from './list.js';
import { confirmedRowButton } from './row-action.js';
import { GIVEN, ROLE_NAMES, roleName } from './team-roles.js';

/** What each role may do, in a line (domain/teams/permissions.ts is the table the service checks). */
const DUTIES =
  'Admin: everything but ownership. Developer: keys, webhooks, destinations, render links and batches. Billing: purchases, auto-recharge and grants. Viewer: reads everything but secrets, changes nothing.';

/**
 * @param {{ client: import('./api.js').Client, reload: () => Promise<void>, manages: () => boolean }} deps
 * `reload` reads the whole team again after a change; `manages` whether the signed-in role invites.
 */
export function createInvitationsSection({ client, reload, manages }) {
  const body = h('div', { id: 'invitations-body' });
  const email = emailField({
    id: 'invite-email',
    help: 'We mail it a link, valid for 7 days and usable once.',
    autocomplete: 'off',
    maxlength: 254,
  });
  const role = selectField({
    id: 'invite-role',
    label: 'Role',
    name: 'role',
    help: DUTIES,
    placeholder: 'Choose a role',
    options: GIVEN.map((r) => ({ value: r, label: ROLE_NAMES[r] })),
  });
  const inviteProblems = formProblems({ fields: { '/email': email, '/role': role } });
  const inviteSubmit = h('button', { type: 'submit', class: 'primary' }, 'Send the invitation');
  const inviteStatus = h('p', { class: 'status-line', id: 'invite-status', role: 'status' });
  const inviteForm = postForm(
    { id: 'invite-form', class: 'panel-form', 'aria-labelledby': 'invite-title', hidden: true, send: invite },
    h('h3', { id: 'invite-title' }, 'Invite a person'),
    inviteProblems.summary,
    email.element,
    role.element,
    inviteSubmit,
    inviteStatus,
  );
  const section = subSection('invitations', 'Pending invitations', body, inviteForm);

  const list = createHeldList({ body, loadingWhat: 'invitations', read: () => client.invitations(), retry: () => reload() });

  /** Shows the invitations (or why they could not be read), and the invite form to those who invite. */
  function render() {
    const actions = manages();
    inviteForm.hidden = !actions;
    list.draw({
      emptyText: 'No invitations are waiting to be accepted.',
      table: (invitations) =>
        dataTable({
          name: 'invitations',
          caption: 'Newest first. An invitation not accepted within 7 days expires.',
          columns: ['Address', 'Role', 'Invited', 'Expires', ...(actions ? ['Actions'] : [])],
          rowHeader: 0,
          rows: invitations.map((i) => ({
            attrs: { dataset: { invitationId: i.id } },
            cells: [i.email, roleName(i.role), time(i.createdAt), time(i.expiresAt), ...(actions ? [revokeButton(i)] : [])],
          })),
        }),
    });
  }

  function revokeButton(invitation) {
    return confirmedRowButton({
      label: 'Revoke',
      name: `Revoke the invitation of ${invitation.email}`,
      focusKey: `revoke-${invitation.id}`,
      small: true,
      confirm: {
        body: 'Its link stops working at once. You can invite the address again.',
        confirmLabel: 'Revoke invitation',
      },
      act: () => client.revokeInvitation(invitation.id),
      reload,
      announcement: `The invitation of ${invitation.email} was revoked.`,
    });
  }

  async function invite() {
    inviteProblems.clear();
    inviteStatus.textContent = '';
    if (!inviteProblems.requireFilled({ '/email': 'is required', '/role': 'is not chosen' })) return;
    const address = email.input.value.trim();
    const given = role.input.value;
    try {
      const sent = await client.invite(address, given);
      email.input.value = '';
      role.input.value = '';
      await reload();
      inviteStatus.textContent = `Invitation mailed to ${sent.email} as ${roleName(sent.role)}.`;
      email.input.focus();
    } catch (err) {
      if (err?.name === 'AbortError') return;
      // A member's address is a problem of the address field; the service's words say what to do.
      if (err?.code === 'already_member') {
        inviteProblems.show({
          detail: err.detail,
          requestId: err.requestId,
          errors: [{ field: '/email', message: 'is a member of this account already: change their role in the list above' }],
        });
      } else inviteProblems.show(err, { focus: email.input });
    }
  }

  return {
    section,
    read: list.read,
    render,
    close() {
      list.close();
      email.input.value = '';
      inviteProblems.clear();
    },
  };
}
