//! An invitation's link (`/dashboard/invitation?token=...`), signed in or not. A person signed in
//! (as the invited address) accepts with one button: the account joins theirs and the session moves
//! to it. Anyone else: someone new to the service chooses a password (and a name), which makes
//! their sign-in and accepts; someone with a sign-in already signs in first and comes back here.
import { anonymousClient } from './api.js';
import { h, replace, viewSection } from './dom.js';
import { field, formProblems, newPasswordField, postForm, showPasswords } from './forms.js';
import { APP_ROOT } from './router.js';

/** @param {import('./app.js').ViewContext} context */
export function createInvitationView({ kind, me, client, signedInAsPerson, accountChanged, signOut }) {
  const body = h('div', { id: 'invitation-body' });
  const element = viewSection('invitation', 'Accept the invitation', body);
  element.classList.add('sign-in');
  let token = '';

  /** Sign-in, coming back here after. A token sign-in is not a person: it is ended first. */
  const signInFirst = (text) => {
    const next = `/dashboard/invitation?token=${encodeURIComponent(token)}`;
    const href = `/dashboard/sign-in?next=${encodeURIComponent(next)}`;
    return h(
      'a',
      {
        href,
        id: 'invitation-sign-in',
        onclick:
          kind() === 'token'
            ? (event) => {
                event.preventDefault();
                void signOut({ to: href });
              }
            : null,
      },
      text,
    );
  };

  /** Signed in as a person: accept as them. */
  function asPerson() {
    const problems = formProblems({ fields: {} });
    const accept = h('button', { type: 'submit', class: 'primary' }, 'Accept the invitation');
    const form = postForm(
      {
        id: 'invitation-accept-form',
        send: async () => {
          problems.clear();
          try {
            accountChanged(await /** @type {import('./api.js').Client} */ (client).acceptInvitation({ token }), { to: APP_ROOT });
          } catch (err) {
            problems.show(err, { focus: accept });
          }
        },
      },
      h(
        'p',
        {},
        'You are signed in as ',
        h('strong', {}, me()?.user.email ?? 'yourself'),
        '. Accepting adds the inviting account to your sign-in; the header then switches between your accounts.',
      ),
      h(
        'p',
        { class: 'help' },
        'The invitation is for one address: if it is not this one, sign out and sign in with the invited address (or accept as someone new).',
      ),
      problems.summary,
      accept,
    );
    replace(body, form);
  }

  /** Not signed in as a person: a new person chooses a password; a known one signs in first. */
  function asNewcomer() {
    const password = newPasswordField({ id: 'invitation-password' });
    const name = field({
      id: 'invitation-name',
      label: 'Your name',
      optional: true,
      attrs: { type: 'text', name: 'name', autocomplete: 'name', maxlength: 100 },
    });
    const problems = formProblems({ fields: { '/password': password, '/name': name } });
    const accept = h('button', { type: 'submit', class: 'primary' }, 'Accept and sign in');
    const known = h('div', { id: 'invitation-known', class: 'notice', role: 'alert', hidden: true });
    const form = postForm(
      {
        id: 'invitation-new-form',
        send: async () => {
          problems.clear();
          known.hidden = true;
          if (!problems.requireFilled({ '/password': 'is required' })) return;
          const input = { token, password: password.input.value, ...(name.input.value.trim() ? { name: name.input.value.trim() } : {}) };
          try {
            const answer = await anonymousClient().acceptInvitation(input);
            password.input.value = '';
            signedInAsPerson(answer, {
              to: APP_ROOT,
              message: `Invitation accepted: signed in as ${answer.user.email}, to ${answer.account.name || answer.account.id}.`,
            });
          } catch (err) {
            if (err?.code === 'unauthenticated') {
              // The invited address has a sign-in already: theirs, not a new one, takes the invitation.
              password.input.value = '';
              const link = signInFirst('Sign in');
              replace(
                known,
                h('p', {}, 'The invited address has a sign-in already. ', link, ' with it, and you come back here to accept.'),
              );
              known.hidden = false;
              link.focus();
            } else problems.show(err);
          }
        },
      },
      h('h2', { id: 'invitation-new-title' }, 'New to Utility Tools?'),
      h('p', {}, 'Choose a password for the invited address; accepting makes your sign-in and opens the account.'),
      problems.summary,
      password.element,
      showPasswords('invitation-show-password', password.input),
      name.element,
      accept,
    );
    replace(
      body,
      form,
      known,
      h(
        'section',
        { 'aria-labelledby': 'invitation-known-title' },
        h('h2', { id: 'invitation-known-title' }, 'Already have a sign-in?'),
        h('p', {}, signInFirst('Sign in first'), ' with the invited address: you come back here to accept.'),
      ),
    );
  }

  return {
    element,
    load(route) {
      token = route.query.get('token') ?? '';
      if (!token) {
        replace(
          body,
          h('p', { id: 'invitation-problem' }, 'This page accepts an invitation with the link of its mail; open the link from the mail.'),
        );
        return;
      }
      if (kind() === 'session') asPerson();
      else asNewcomer();
    },
  };
}
