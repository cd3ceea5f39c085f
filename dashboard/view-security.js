//! Security (`/dashboard/security`, a person's session only): change the password, add, rename and
//! remove passkeys, see the sessions of the sign-in (browser, address, when) and end one or all
//! others, and sign out. Password and passkey changes need a sign-in within 10 minutes: when the
//! service asks for one, reauth.js's dialog confirms it is the person and the change goes through.
//! The passkeys and the sessions are parts of their own (security-passkeys.js, security-sessions.js).
import { busy, h, viewSection } from './dom.js';
import { field, formProblems, newPasswordField, postForm, showPasswords } from './forms.js';
import { ReauthenticationCancelled, withReauthentication } from './reauth.js';
import { createPasskeysSection } from './security-passkeys.js';
import { createSessionsSection } from './security-sessions.js';

/** @param {import('./app.js').ViewContext} context */
export function createSecurityView(context) {
  if (context.kind() !== 'session') return tokenView();
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const email = () => context.me()?.user.email ?? '';
  /** A change that may need the person to confirm it is them first. */
  const sensitive = (change) => withReauthentication({ client, email: email(), signedInAgain: context.signedInAgain }, change);
  const cancelled = (err) => err instanceof ReauthenticationCancelled;

  const who = h('p', { id: 'security-who' });

  // Password
  const current = field({
    id: 'current-password',
    label: 'Current password',
    attrs: { type: 'password', name: 'currentPassword', autocomplete: 'current-password' },
  });
  const next = newPasswordField({ id: 'new-password', label: 'New password', name: 'newPassword' });
  const passwordProblems = formProblems({ fields: { '/currentPassword': current, '/newPassword': next } });
  const passwordStatus = h('p', { class: 'status-line', id: 'password-status', role: 'status' });
  const passwordSubmit = h('button', { type: 'submit', class: 'primary' }, 'Change password');
  // The address for password managers, which pair a new password with its sign-in.
  const username = h('input', { type: 'email', name: 'username', autocomplete: 'username', hidden: true });
  const passwordForm = postForm(
    { id: 'password-form', send: changePassword },
    h('h2', { id: 'password-title' }, 'Password'),
    h('p', { class: 'help' }, 'Changing it signs out your other sessions and mails you a note.'),
    passwordProblems.summary,
    username,
    current.element,
    next.element,
    showPasswords('security-show-passwords', current.input, next.input),
    passwordSubmit,
    passwordStatus,
  );

  const passkeys = createPasskeysSection({ client, sensitive, cancelled });
  const sessions = createSessionsSection({ client });

  const signOutSection = h(
    'section',
    { 'aria-labelledby': 'sign-out-title' },
    h('h2', { id: 'sign-out-title' }, 'Sign out'),
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', id: 'security-sign-out', onclick: (e) => busy(e.currentTarget, () => context.signOut()) },
        'Sign out of this device',
      ),
    ),
  );

  const element = viewSection('security', 'Security', who, passwordForm, passkeys.section, sessions.section, signOutSection);

  async function changePassword() {
    passwordProblems.clear();
    passwordStatus.textContent = '';
    if (!passwordProblems.requireFilled({ '/currentPassword': 'is required', '/newPassword': 'is required' })) return;
    try {
      const { sessionsEnded } = await sensitive(() => client.changePassword(current.input.value, next.input.value));
      current.input.value = '';
      next.input.value = '';
      passwordStatus.textContent = `Password changed.${sessionsEnded ? ` ${sessionsEnded === 1 ? 'Your other session was' : `Your ${sessionsEnded} other sessions were`} signed out.` : ''}`;
      void sessions.load();
    } catch (err) {
      passwordProblems.show(err, { focus: cancelled(err) ? passwordSubmit : current.input });
    }
  }

  return {
    element,
    load() {
      const me = context.me();
      who.textContent = me ? `Signed in as ${me.user.email}${me.user.name ? ` (${me.user.name})` : ''}.` : '';
      username.value = me?.user.email ?? '';
      return Promise.all([passkeys.load(), sessions.load()]);
    },
    close() {
      current.input.value = '';
      next.input.value = '';
    },
  };
}

/** Signed in with an owner token: security settings belong to a person. */
function tokenView() {
  const element = viewSection(
    'security',
    'Security',
    h(
      'p',
      {},
      'You signed in with an owner token, which belongs to the account, not to a person: it has no password, passkeys or sessions to manage.',
    ),
    h(
      'p',
      {},
      h('a', { href: '/dashboard/attach' }, 'Attach yourself to the account'),
      ' to sign in with a password or a passkey; this page then shows your security settings.',
    ),
  );
  return { element };
}
