//! Sign-up (`/dashboard/sign-up`, a signed-out view): an address, a password whose rules are said
//! before anyone types one, and an optional name. The service mails a link that confirms the
//! address (view-verify.js opens the account); the page then says "check your mail" in the same
//! words whatever the address, since the service answers alike whether or not it has an account.
import { anonymousClient } from './api.js';
import { focusOn, h, viewSection } from './dom.js';
import { field, formProblems, newPasswordField, showPasswords, whenSent } from './forms.js';

/** @param {import('./app.js').ViewContext} _context */
export function createSignUpView(_context) {
  const email = field({
    id: 'sign-up-email',
    label: 'Email address',
    help: 'We mail a link to it that opens the account.',
    attrs: { type: 'email', name: 'email', autocomplete: 'email', autocapitalize: 'off', spellcheck: 'false' },
  });
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
  const form = h(
    'form',
    { id: 'sign-up-form', method: 'post', novalidate: true, onsubmit: whenSent(signUp) },
    problems.summary,
    email.element,
    password.element,
    showPasswords('sign-up-show-password', password.input),
    name.element,
    submit,
  );

  const sentAddress = h('strong', { id: 'sign-up-sent-address' });
  const sentTitle = h('h2', { id: 'sign-up-sent-title', tabindex: '-1' }, 'Check your mail');
  const sent = h(
    'section',
    { id: 'sign-up-sent', 'aria-labelledby': 'sign-up-sent-title', hidden: true },
    sentTitle,
    h(
      'p',
      {},
      'We have sent a mail to ',
      sentAddress,
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
  );

  const element = viewSection(
    'sign-up',
    'Create your account',
    h('p', { class: 'lead' }, 'New accounts start with free credits to call the tools with.'),
    form,
    sent,
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
      sentAddress.textContent = address;
      form.hidden = true;
      sent.hidden = false;
      focusOn(sentTitle);
    } catch (err) {
      problems.show(err);
    }
  }

  function showForm() {
    sent.hidden = true;
    form.hidden = false;
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
