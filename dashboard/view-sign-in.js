//! Sign-in (`/dashboard/sign-in`, a signed-out view): an address and a password, or a passkey of
//! this site without typing anything (discoverable credentials), or a company's identity provider
//! (a link per provider the service offers; a failed sign-in there comes back with `?problem=`);
//! links to sign up and to reset the password. Below, folded away, the owner token of an account an
//! operator opened (sign-in-token.js): checked against the format first, then by the service, and
//! kept in memory only. A good sign-in starts the session (app.js), which returns to the view that
//! sent the visitor here. Why the last session ended is shown above.
import { anonymousClient } from './api.js';
import { busy, h, viewSection } from './dom.js';
import { emailField, field, formProblems, postForm } from './forms.js';
import { ceremonyProblem, passkeysSupported, signInWithPasskey } from './passkeys.js';
import { createTokenSignIn } from './sign-in-token.js';

/** What a sign-in through a provider that failed comes back saying, by the problem's code (only a code travels in the URL). */
const PROVIDER_PROBLEMS = {
  oidc_failed: 'The sign-in through your identity provider did not complete. Start it again from this page.',
  address_not_verified: 'Your identity provider has not verified your email address. Verify it there, then sign in again.',
  forbidden: 'No account here has the address your identity provider gave. Sign up, or ask an account’s owner to invite you.',
  provider_required: 'Your account requires signing in through another identity provider.',
  not_found: 'That identity provider is not offered here.',
  rate_limited: 'Too many sign-ins from here just now. Wait a minute, then try again.',
  unavailable: 'Your identity provider could not be reached. Try again in a moment.',
};

/** @param {import('./app.js').ViewContext} context */
export function createSignInView({ notice, signedInWith, signedInAsPerson }) {
  const noticeEl = h('p', { class: 'notice', id: 'sign-in-notice', hidden: true });

  // Address and password.
  const email = emailField({ id: 'sign-in-email' });
  const password = field({
    id: 'sign-in-password',
    label: 'Password',
    attrs: { type: 'password', name: 'password', autocomplete: 'current-password' },
  });
  const problems = formProblems({ fields: { '/email': email, '/password': password } });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = postForm(
    { id: 'sign-in-form', send: signIn },
    problems.summary,
    email.element,
    password.element,
    h('div', { class: 'form-actions' }, submit, h('a', { href: '/dashboard/reset', id: 'forgot-link' }, 'Forgot your password?')),
  );

  // A passkey: the browser offers the ones it holds for this site.
  const passkeyError = h('div', { class: 'form-problem', id: 'passkey-error', role: 'alert', hidden: true });
  const passkeyButton = h('button', { type: 'button', id: 'passkey-sign-in', onclick: passkeySignIn }, 'Sign in with a passkey');
  const passkeyPart = h(
    'div',
    { class: 'alternative', hidden: !passkeysSupported() },
    h('p', { class: 'or' }, 'or'),
    passkeyButton,
    h('p', { class: 'help' }, 'No address needed: your device shows the passkeys it holds for this site.'),
    passkeyError,
  );

  // The identity providers (OIDC_PROVIDERS): each a plain link, as the sign-in leaves the page.
  const providerList = h('ul', { class: 'providers', 'aria-label': 'Identity providers' });
  const providerPart = h(
    'div',
    { class: 'alternative', id: 'provider-sign-in', hidden: true },
    h('p', { class: 'or' }, 'or'),
    providerList,
  );

  // An owner token: accounts an operator opened, until a person is attached to them (sign-in-token.js).
  const token = createTokenSignIn({
    signedIn: (value, account) => {
      forgetNotice();
      signedInWith(value, account);
    },
  });

  const element = viewSection(
    'sign-in',
    'Sign in to your account',
    noticeEl,
    form,
    passkeyPart,
    providerPart,
    h(
      'p',
      { class: 'sign-up-link' },
      'New to Utility Tools? ',
      h('a', { href: '/dashboard/sign-up', id: 'sign-up-link' }, 'Create an account'),
    ),
    token.part,
  );
  element.classList.add('sign-in');

  const forgetNotice = () => {
    noticeEl.hidden = true;
  };

  async function signIn() {
    problems.clear();
    if (!problems.requireFilled({ '/email': 'is required', '/password': 'is required' })) return;
    try {
      const answer = await anonymousClient().signIn(email.input.value.trim(), password.input.value);
      password.input.value = '';
      forgetNotice();
      signedInAsPerson(answer);
    } catch (err) {
      // A wrong password or address: the password is what to type again.
      problems.show(err, { focus: password.input });
    }
  }

  async function passkeySignIn() {
    await busy(passkeyButton, async () => {
      passkeyError.hidden = true;
      try {
        const answer = await signInWithPasskey(anonymousClient());
        forgetNotice();
        signedInAsPerson(answer);
      } catch (err) {
        const problem = ceremonyProblem(err) ?? err;
        passkeyError.replaceChildren(h('p', {}, problem.detail || problem.message));
        passkeyError.hidden = false;
        passkeyButton.focus();
      }
    });
  }

  /** The providers, read once per page (they change only when the service restarts); read again after a failure. */
  let providersRead = null;
  async function loadProviders() {
    try {
      providersRead ??= anonymousClient()
        .identityProviders()
        .catch((err) => {
          providersRead = null;
          throw err;
        });
      const providers = await providersRead;
      providerList.replaceChildren(
        ...providers.map((p) =>
          h('li', {}, h('a', { class: 'button', href: p.signInPath, dataset: { provider: p.id } }, `Sign in with ${p.name}`)),
        ),
      );
      providerPart.hidden = providers.length === 0;
    } catch {
      // Without the list the other ways still work: nothing to show.
      providerPart.hidden = true;
    }
  }

  return {
    element,
    async load(route) {
      const code = route?.query?.get('problem');
      const text = (code && (PROVIDER_PROBLEMS[code] ?? PROVIDER_PROBLEMS.oidc_failed)) || notice();
      noticeEl.textContent = text ?? '';
      noticeEl.hidden = !text;
      await loadProviders();
    },
    close() {
      password.input.value = '';
      token.clear();
    },
  };
}
