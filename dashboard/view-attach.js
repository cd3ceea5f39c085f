//! Attach yourself (`/dashboard/attach`, an owner-token sign-in only): an account the operator
//! opened has its owner token, which is for scripts; its owner attaches themselves as a person
//! (`POST /api/v1/account/invitations` with the role `owner`), who then signs in with a password
//! or a passkey. The mailed link (view-invitation.js) makes the person, or adds the account to
//! the sign-in they have.
import { focusOn, h, viewSection } from './dom.js';
import { field, formProblems, whenSent } from './forms.js';

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
  const email = field({
    id: 'attach-email',
    label: 'Your email address',
    help: 'We mail it a link, valid for 7 days. Opening it lets you choose a password, or adds this account to the sign-in you have.',
    attrs: { type: 'email', name: 'email', autocomplete: 'email', autocapitalize: 'off', spellcheck: 'false' },
  });
  const problems = formProblems({ fields: { '/email': email } });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Mail me the link');
  const form = h(
    'form',
    { id: 'attach-form', method: 'post', novalidate: true, onsubmit: whenSent(attach) },
    problems.summary,
    email.element,
    submit,
  );
  const sentAddress = h('strong', { id: 'attach-sent-address' });
  const sentTitle = h('h2', { id: 'attach-sent-title', tabindex: '-1' }, 'Check your mail');
  const sent = h(
    'section',
    { id: 'attach-sent', 'aria-labelledby': 'attach-sent-title', hidden: true },
    sentTitle,
    h(
      'p',
      {},
      'A link is on its way to ',
      sentAddress,
      '. Open it to attach yourself to this account as its owner; from then on, sign in with your address.',
    ),
  );
  const element = viewSection(
    'attach',
    'Attach yourself',
    h(
      'p',
      {},
      'You signed in with the account’s owner token. Owner tokens are for scripts; people sign in with a password or a passkey, see their sessions and end them. Attach yourself to this account as its owner to do that. The token keeps working for your scripts.',
    ),
    form,
    sent,
  );

  async function attach() {
    problems.clear();
    if (!problems.requireFilled({ '/email': 'is required' })) return;
    const address = email.input.value.trim();
    try {
      await /** @type {import('./api.js').Client} */ (client).inviteOwner(address);
      sentAddress.textContent = address;
      form.hidden = true;
      sent.hidden = false;
      focusOn(sentTitle);
    } catch (err) {
      problems.show(err, { focus: email.input });
    }
  }

  return {
    element,
    /** Each visit starts at the form (the "check your mail" of the last one is over). */
    load() {
      form.hidden = false;
      sent.hidden = true;
      problems.clear();
    },
  };
}
