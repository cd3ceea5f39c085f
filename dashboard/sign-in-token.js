//! Sign-in with an owner token, folded away below the page's other ways: for an account an
//! operator opened, until a person is attached to it. The token is checked against its format
//! first (an API key is told apart), then by the service, and kept in this tab's memory only.
import { verifyToken } from './api.js';
import { clearFormError, h, showFormError } from './dom.js';
import { tokenProblem } from './session.js';
import { postForm } from './forms.js';

/**
 * @param {{ signedIn: (token: string, account: any) => void }} deps
 * `signedIn` starts the session with the token the service took, and its account.
 */
export function createTokenSignIn({ signedIn }) {
  const tokenInput = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-help token-error',
  });
  const tokenError = h('p', { class: 'field-error', id: 'token-error', hidden: true });
  const tokenSubmit = h('button', { type: 'submit' }, 'Sign in with the token');
  const tokenPart = h(
    'details',
    { class: 'token-sign-in', id: 'token-sign-in' },
    h('summary', {}, 'Sign in with an owner token'),
    postForm(
      { id: 'token-form', send: tokenSignIn },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'token' }, 'Owner token'),
        tokenInput,
        h(
          'p',
          { class: 'help', id: 'token-help' },
          'For an account an operator opened: the token starts with ',
          h('code', {}, 'uto_'),
          '. It is kept in this tab’s memory only, so a reload or sign-out forgets it. ',
          'Owner tokens are meant for scripts; once signed in, attach yourself to the account to sign in with a password or a passkey.',
        ),
        tokenError,
      ),
      tokenSubmit,
    ),
  );

  async function tokenSignIn() {
    clearFormError(tokenError, tokenInput);
    const token = tokenInput.value.trim();
    const problem = tokenProblem(token);
    if (problem) {
      showFormError(tokenError, tokenInput, { detail: problem });
      tokenInput.focus();
      return;
    }
    try {
      const account = await verifyToken(token);
      tokenInput.value = '';
      signedIn(token, account);
    } catch (err) {
      showFormError(tokenError, tokenInput, err);
      tokenInput.focus();
    }
  }

  return {
    part: tokenPart,
    clear() {
      tokenInput.value = '';
    },
  };
}
