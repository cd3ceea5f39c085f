//! Sign-up (`/dashboard/sign-up`, a signed-out view): an address, a password whose rules are said
//! before anyone types one, and an optional name. The service mails a link that confirms the
//! address (view-verify.js opens the account); the page then says "check your mail" in the same
//! words whatever the address, since the service answers alike whether or not it has an account.
import { anonymousClient } from './api.js';
import { h, viewSection } from './dom.js';
import { emailField, field, formProblems, mailSent, newPasswordField, postForm, showPasswords } from './forms.js';

/** @param {import('./app.js').ViewContext} _context */
export function createSignUpView(_context) {
  const email = emailField({ id: 'sign-up-email', help: 'We mail a link to it that opens the account.' });
  const password = newPasswordField({ id: 'sign-up-password' });
  const name = field({
    id: 'sign-up-name',
    label: 'Your name',
    optional: true,
    help: 'How the dashboard greets you; it also names your account.',
    attrs: { type: 'text', name: 'name', autocomplete: 'name', maxlength: 100 },
  });
  const problems = formProblems({ fields: { '/email': email, '/password': password, '/name': name } });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create account');
  const form = postForm(
    { id: 'sign-up-form', send: signUp },
    problems.summary,
    email.element,
    password.element,
    showPasswords('sign-up-show-password', password.input),
    name.element,
    submit,
  );
  const sent = mailSent({
    id: 'sign-up-sent',
    form,
    says: (address) => [
      h(
        'p',
        {},
        'We have sent a mail to ',
        address,
        '. Open the link in it to confirm the address: that opens your account and signs you in. The link works once, for 24 hours.',
      ),
      h('p', {}, 'If the address has an account already, the mail says so instead, and you can sign in or reset your password.'),
      h(
        'p',
        {},
        'No mail after a few minutes? Look in your spam folder, or ',
        h('button', { type: 'button', class: 'link-button', id: 'sign-up-again', onclick: again }, 'sign up again'),
        '.',
      ),
    ],
  });

  const element = viewSection(
    'sign-up',
    'Create your account',
    h('p', { class: 'lead' }, 'New accounts start with free credits to call the tools with.'),
    form,
    sent.element,
    h('p', {}, 'Already have an account? ', h('a', { href: '/dashboard/sign-in' }, 'Sign in')),
  );
  element.classList.add('sign-in');

  async function signUp() {
    problems.clear();
    if (!problems.requireFilled({ '/email': 'is required', '/password': 'is required' })) return;
    const address = email.input.value.trim();
    const body = {
      email: address,
      password: password.input.value,
      ...(name.input.value.trim() ? { name: name.input.value.trim() } : {}),
    };
    try {
      await anonymousClient().signUp(body);
      password.input.value = '';
      sent.show(address);
    } catch (err) {
      problems.show(err);
    }
  }

  function showForm() {
    sent.hide();
    problems.clear();
  }

  function again() {
    showForm();
    email.input.focus();
  }

  return {
    element,
    /** Each visit starts at the form (the "check your mail" of the last one is over). */
    load: showForm,
    close() {
      password.input.value = '';
    },
  };
}
