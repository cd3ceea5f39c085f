//! The Team page's members: each with their role, when they joined and last signed in (the
//! signed-in person marked "You"); for the owner and admins, a role change per member and removing
//! one after confirmation. The owner's row and one's own are never changed here.
import { announce, dataTable, h, problemText, subSection, time } from './dom.js';
import { postForm } from './forms.js';
import { createHeldList } from './list.js';
import { confirmedRowButton } from './row-action.js';
import { GIVEN, ROLE_NAMES, roleName, who } from './team-roles.js';

/**
 * @param {{ context: import('./app.js').ViewContext, reload: () => Promise<void>, manages: () => boolean, changeable: (m: any) => boolean, myId: () => string | null }} deps
 * `reload` reads the whole team again after a change; `manages` whether the signed-in role changes
 * the team, `changeable(m)` whether it may change member `m`.
 */
export function createMembersSection({ context, reload, manages, changeable, myId }) {
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const body = h('div', { id: 'members-body' });
  const section = subSection('members', 'Members', body);
  const list = createHeldList({ body, loadingWhat: 'members', read: () => client.members(), retry: () => reload() });

  /** Shows the members (or why they could not be read) with the controls the signed-in role has. */
  function render() {
    const actions = manages();
    list.draw({
      emptyText: ['No one is a member yet. ', context.kind() === 'token' ? h('a', { href: '/dashboard/attach' }, 'Attach yourself') : null],
      table: (members) =>
        dataTable({
          name: 'members',
          caption: 'First joined first.',
          columns: ['Member', 'Role', 'Joined', 'Last sign-in', ...(actions ? ['Actions'] : [])],
          rowHeader: 0,
          rows: members.map((m) => row(m, actions)),
        }),
    });
  }

  function row(m, actions) {
    return {
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
        ...(actions ? [changeable(m) ? removeButton(m) : null] : []),
      ],
    };
  }

  function removeButton(m) {
    return confirmedRowButton({
      label: 'Remove',
      name: `Remove ${who(m)}`,
      focusKey: `remove-${m.userId}`,
      small: true,
      confirm: {
        title: `Remove ${who(m)} from the account?`,
        body: 'Their sessions on this account end at once. API keys they made keep working, listed as made by a former member. You can invite them again.',
        confirmLabel: 'Remove member',
      },
      act: () => client.removeMember(m.userId),
      reload,
      announcement: `${who(m)} was removed from the account.`,
    });
  }

  /** A member's role as a choice with its own Change button and error line. */
  function roleForm(m) {
    const id = `role-${m.userId}`;
    const select = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id, name: 'role', 'aria-describedby': `${id}-error`, 'data-focus-key': `role-${m.userId}` },
        GIVEN.map((r) => h('option', { value: r, selected: r === m.role }, ROLE_NAMES[r])),
      )
    );
    const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', hidden: true });
    const save = h(
      'button',
      { type: 'submit', class: 'small-button', 'data-focus-key': `change-role-${m.userId}`, 'aria-label': `Change role of ${who(m)}` },
      'Change role',
    );
    return postForm(
      { class: 'role-form', send: () => changeRole(m, select, error) },
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
      await reload();
      announce(`${who(m)} is now ${roleName(next)}.`);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      error.textContent = problemText(err);
      error.hidden = false;
      select.setAttribute('aria-invalid', 'true');
      select.focus();
    }
  }

  return { section, read: list.read, members: list.items, render, close: list.close };
}
