//! Sign-in with the owner token (`/dashboard/sign-in`, a signed-out view): the token is checked
//! against the format first, then by the service; a good one starts the session (app.js), which
//! returns to the view that sent the visitor here. Why the last session ended is shown above.
import { verifyToken } from './api.js';
import { busy, clearFormError, h, showFormError, viewSection } from './dom.js';
import { tokenProblem } from './session.js';

/** @param {import('./app.js').ViewContext} context */
export function createSignInView({ notice, signedInWith }) {
  const noticeEl = h('p', { class: 'notice', id: 'sign-in-notice', hidden: true });
  const input = h('input', {
    id: 'token', name: 'token', type: 'password', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', required: true,
    'aria-describedby': 'token-help token-error',
  });
  const error = h('p', { class: 'field-error', id: 'token-error', hidden: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  // method=post and the CSP's form-action 'none': the token can never end up in a URL.
  const form = h(
    'form',
    { id: 'sign-in-form', method: 'post', novalidate: true, onsubmit: signIn },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'token' }, 'Owner token'),
      input,
      h('p', { class: 'help', id: 'token-help' }, 'Starts with ', h('code', {}, 'uto_'), '. Your operator gave it to you with the account. It is kept only in this browser tab and forgotten when you sign out or close the tab.'),
      error,
    ),
    submit,
  );
  const element = viewSection('sign-in', 'Sign in to your account', noticeEl, form);
  element.classList.add('sign-in');

  async function signIn(event) {
    event.preventDefault();
    await busy(submit, async () => {
      clearFormError(error, input);
      const token = input.value.trim();
      const problem = tokenProblem(token);
      if (problem) {
        showFormError(error, input, { detail: problem });
        input.focus();
        return;
      }
      try {
        const account = await verifyToken(token);
        input.value = '';
        noticeEl.hidden = true;
        signedInWith(token, account);
      } catch (err) {
        showFormError(error, input, err);
        input.focus();
      }
    });
  }

  return {
    element,
    load() {
      const text = notice();
      noticeEl.textContent = text ?? '';
      noticeEl.hidden = !text;
    },
    close() {
      input.value = '';
    },
  };
}
