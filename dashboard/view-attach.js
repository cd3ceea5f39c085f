//! Attach yourself (`/dashboard/attach`, an owner-token sign-in only): an account the operator
//! opened has its owner token, which is for scripts; its owner attaches themselves as a person
//! (`POST /api/v1/account/invitations` with the role `owner`), who then signs in with a password
//! or a passkey. The mailed link (view-invitation.js) makes the person, or adds the account to
//! the sign-in they have.
import { h, viewSection } from './dom.js';
import { emailField, formProblems, mailSent, postForm } from './forms.js';

/** @param {import('./app.js').ViewContext} context */
export function createAttachView({ client, kind }) {
  if (kind() !== 'token') {
    return {
      element: viewSection(
        'attach',
        'Attach yourself',
        h(
          'p',
          {},
          'You are signed in as a person already: your password, passkeys and sessions are on the ',
          h('a', { href: '/dashboard/security' }, 'Security'),
          ' page.',
        ),
      ),
    };
  }
  const email = emailField({
    id: 'attach-email',
    label: 'Your email address',
    help: 'We mail it a link, valid for 7 days. Opening it lets you choose a password, or adds this account to the sign-in you have.',
  });
  const problems = formProblems({ fields: { '/email': email } });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Mail me the link');
  const form = postForm({ id: 'attach-form', send: attach }, problems.summary, email.element, submit);
  const sent = mailSent({
    id: 'attach-sent',
    form,
    says: (address) => [
      h(
        'p',
        {},
        'A link is on its way to ',
        address,
        '. Open it to attach yourself to this account as its owner; from then on, sign in with your address.',
      ),
    ],
  });
  const element = viewSection(
    'attach',
    'Attach yourself',
    h(
      'p',
      {},
      'You signed in with the account’s owner token. Owner tokens are for scripts; people sign in with a password or a passkey, see their sessions and end them. Attach yourself to this account as its owner to do that. The token keeps working for your scripts.',
    ),
    form,
    sent.element,
  );

  async function attach() {
    problems.clear();
    if (!problems.requireFilled({ '/email': 'is required' })) return;
    const address = email.input.value.trim();
    try {
      await /** @type {import('./api.js').Client} */ (client).inviteOwner(address);
      sent.show(address);
    } catch (err) {
      problems.show(err, { focus: email.input });
    }
  }

  return {
    element,
    /** Each visit starts at the form (the "check your mail" of the last one is over). */
    load() {
      sent.hide();
      problems.clear();
    },
  };
}
