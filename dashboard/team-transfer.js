//! The Team page's "Transfer ownership" section, the owner's alone: hand the account to a member
//! after a confirmation, and, for a person's session, after confirming it is them (as the Security
//! page does); an owner token is the owner's own credential and needs no sign-in.
import { confirmAction } from './dialogs.js';
import { announce, empty, h, replace } from './dom.js';
import { formProblems, postForm, selectField } from './forms.js';
import { ReauthenticationCancelled, withReauthentication } from './reauth.js';
import { roleName, who } from './team-roles.js';

/**
 * @param {{ context: import('./app.js').ViewContext, transferred: () => Promise<void> }} deps
 * `transferred` reads the team again once the account has a new owner.
 */
export function createTransferSection({ context, transferred }) {
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const newOwner = selectField({ id: 'transfer-to', label: 'New owner', name: 'userId', placeholder: 'Choose a member', options: [] });
  const problems = formProblems({ fields: { '/userId': newOwner } });
  const submit = h('button', { type: 'submit', class: 'danger' }, 'Transfer ownership');
  const none = empty('Ownership goes to a member: invite someone first.');
  const form = postForm({ id: 'transfer-form', send: transfer }, problems.summary, newOwner.element, submit);
  const section = h(
    'section',
    { id: 'transfer', 'aria-labelledby': 'transfer-title', hidden: true },
    h('h2', { id: 'transfer-title' }, 'Transfer ownership'),
    h(
      'p',
      { class: 'help' },
      'The new owner has every right, closing the account included; the owner before becomes an admin. Only the new owner can hand it back.',
    ),
    none,
    form,
  );

  /** @type {any[] | null} */
  let members = null;

  /** Shows the section with the members it may go to; `null` (not the owner, or no list) hides it. */
  function render(list) {
    members = list;
    section.hidden = !list;
    if (!list) return;
    const others = list.filter((m) => m.role !== 'owner');
    none.hidden = others.length > 0;
    form.hidden = others.length === 0;
    const chosen = newOwner.input.value;
    replace(
      newOwner.input,
      h('option', { value: '' }, 'Choose a member'),
      others.map((m) =>
        h(
          'option',
          { value: m.userId, selected: m.userId === chosen },
          `${who(m)}${m.name && m.email ? ` (${m.email})` : ''}, ${roleName(m.role)}`,
        ),
      ),
    );
  }

  async function transfer() {
    problems.clear();
    if (!problems.requireFilled({ '/userId': 'is not chosen' })) return;
    const target = members?.find((m) => m.userId === newOwner.input.value);
    if (!target) return;
    const confirmed = await confirmAction({
      title: `Make ${who(target)} the owner?`,
      body: 'You become an admin: you can no longer transfer ownership, require an identity provider or close the account. Only the new owner can hand it back.',
      confirmLabel: 'Transfer ownership',
    });
    if (!confirmed) return;
    const hand = () => client.transferOwnership(target.userId);
    try {
      if (context.kind() === 'session') {
        await withReauthentication(
          { client, email: context.me()?.user.email ?? '', signedInAgain: context.signedInAgain, reason: 'Transferring ownership' },
          hand,
        );
      } else await hand();
      newOwner.input.value = '';
      await transferred();
      announce(context.kind() === 'session' ? `${who(target)} is now the owner; you are an admin.` : `${who(target)} is now the owner.`);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      problems.show(err, { focus: err instanceof ReauthenticationCancelled ? submit : newOwner.input });
    }
  }

  return {
    section,
    render,
    close() {
      problems.clear();
    },
  };
}
