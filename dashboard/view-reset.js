//! Password reset (`/dashboard/reset`): without a token, ask for a link (the page says the same
//! whatever the address, as the service answers alike); with the mail's `?token=`, choose a new
//! password, after which every session of the person has ended and they sign in with it.
import { anonymousClient } from './api.js';
import { h, viewSection } from './dom.js';
import { emailField, formProblems, mailSent, newPasswordField, postForm, showPasswords } from './forms.js';

/** @param {import('./app.js').ViewContext} context */
export function createResetView({ toSignIn }) {
  // Ask for a link.
  const email = emailField({ id: 'reset-email' });
  const askProblems = formProblems({ fields: { '/email': email } });
  const askSubmit = h('button', { type: 'submit', class: 'primary' }, 'Mail me a link');
  const askForm = postForm(
    { id: 'reset-request-form', send: ask },
    h('p', {}, 'Enter the address you signed up with: we mail it a link to choose a new password.'),
    askProblems.summary,
    email.element,
    askSubmit,
  );
  const sent = mailSent({
    id: 'reset-sent',
    form: askForm,
    says: (address) => [
      h('p', {}, 'If ', address, ' has an account, a link to choose a new password is on its way. It works once, for 30 minutes.'),
      h(
        'p',
        {},
        'No mail after a few minutes? Look in your spam folder, or check the address and ',
        h('a', { href: '/dashboard/reset', id: 'reset-again' }, 'ask again'),
        '.',
      ),
    ],
  });
  const askPart = h('div', { id: 'reset-ask' }, askForm, sent.element);

  // Choose the new password.
  const password = newPasswordField({ id: 'reset-password', label: 'New password' });
  const chooseProblems = formProblems({ fields: { '/password': password } });
  const chooseSubmit = h('button', { type: 'submit', class: 'primary' }, 'Set the new password');
  const choosePart = postForm(
    { id: 'reset-form', send: choose },
    h(
      'p',
      {},
      'Choose a new password. Every session of your sign-in ends, here and on other devices; then you sign in with the new password.',
    ),
    chooseProblems.summary,
    password.element,
    showPasswords('reset-show-password', password.input),
    chooseSubmit,
  );

  const element = viewSection(
    'reset',
    'Reset your password',
    askPart,
    choosePart,
    h('p', { class: 'sign-up-link' }, 'Remembered it? ', h('a', { href: '/dashboard/sign-in' }, 'Sign in')),
  );
  element.classList.add('sign-in');
  let token = '';

  async function ask() {
    askProblems.clear();
    if (!askProblems.requireFilled({ '/email': 'is required' })) return;
    const address = email.input.value.trim();
    try {
      await anonymousClient().requestReset(address);
      sent.show(address);
    } catch (err) {
      askProblems.show(err);
    }
  }

  async function choose() {
    chooseProblems.clear();
    if (!chooseProblems.requireFilled({ '/password': 'is required' })) return;
    try {
      await anonymousClient().confirmReset(token, password.input.value);
      password.input.value = '';
      await toSignIn('Your password is changed, and every session of your sign-in has ended. Sign in with your new password.');
    } catch (err) {
      if (err?.code === 'invalid_token') {
        chooseProblems.show(
          {
            ...err,
            detail: 'This link does not work: it is mistyped, was used already, or is more than 30 minutes old. Ask for a new one below.',
            errors: [],
          },
          { focus: chooseSubmit },
        );
        askPart.hidden = false;
        sent.hide();
      } else chooseProblems.show(err);
    }
  }

  return {
    element,
    load(route) {
      token = route.query.get('token') ?? '';
      askPart.hidden = !!token;
      choosePart.hidden = !token;
      sent.hide();
      askProblems.clear();
      chooseProblems.clear();
    },
    close() {
      password.input.value = '';
    },
  };
}
