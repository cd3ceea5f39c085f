//! Security (`/dashboard/security`, a person's session only): change the password, add, rename and
//! remove passkeys, see the sessions of the sign-in (browser, address, when) and end one or all
//! others, and sign out. Password and passkey changes need a sign-in within 10 minutes: when the
//! service asks for one, reauth.js's dialog confirms it is the person and the change goes through.
import { confirmAction } from './dialogs.js';
import { announce, busy, dataTable, empty, errorBox, focusOn, h, loading, problemText, replace, time, viewSection } from './dom.js';
import { PASSWORD_RULES, field, formProblems, showPasswords } from './forms.js';
import { ceremonyProblem, createPasskey, passkeysSupported } from './passkeys.js';
import { ReauthenticationCancelled, withReauthentication } from './reauth.js';

const METHODS = { password: 'with a password', passkey: 'with a passkey', verification: 'by confirming the address', invitation: 'by accepting an invitation' };

/** "Chrome on Linux" from a user agent: enough to tell one's devices apart. */
export function deviceName(userAgent) {
  const ua = userAgent ?? '';
  if (!ua) return 'Unknown device';
  const browser =
    /Edg\//.test(ua) ? 'Edge'
      : /OPR\//.test(ua) ? 'Opera'
        : /Firefox\//.test(ua) ? 'Firefox'
          : /(HeadlessChrome|Chrome|Chromium)\//.test(ua) ? 'Chrome'
            : /Safari\//.test(ua) ? 'Safari'
              : /curl|node|undici|python|Go-http|okhttp/i.test(ua) ? 'A program' : 'A browser';
  const os =
    /Windows/.test(ua) ? 'Windows'
      : /Android/.test(ua) ? 'Android'
        : /iPhone|iPad/.test(ua) ? 'iOS'
          : /Mac OS X/.test(ua) ? 'macOS'
            : /CrOS/.test(ua) ? 'ChromeOS'
              : /Linux/.test(ua) ? 'Linux' : null;
  return os ? `${browser} on ${os}` : browser;
}

/** An IPv4 address as people write it (the service may give it IPv4-mapped: `::ffff:127.0.0.1`). */
const address = (ip) => (ip ? ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : null);

/** @param {import('./app.js').ViewContext} context */
export function createSecurityView(context) {
  if (context.kind() !== 'session') return tokenView();
  const client = /** @type {import('./api.js').Client} */ (context.client);
  const email = () => context.me()?.user.email ?? '';
  /** A change that may need the person to confirm it is them first. */
  const sensitive = (change) => withReauthentication({ client, email: email(), signedInAgain: context.signedInAgain }, change);

  const who = h('p', { id: 'security-who' });

  // Password
  const current = field({ id: 'current-password', label: 'Current password', attrs: { type: 'password', name: 'currentPassword', autocomplete: 'current-password' } });
  const next = field({ id: 'new-password', label: 'New password', help: PASSWORD_RULES, attrs: { type: 'password', name: 'newPassword', autocomplete: 'new-password' } });
  const passwordProblems = formProblems({ fields: { '/currentPassword': current, '/newPassword': next } });
  const passwordStatus = h('p', { class: 'status-line', id: 'password-status', role: 'status' });
  const passwordSubmit = h('button', { type: 'submit', class: 'primary' }, 'Change password');
  // The address for password managers, which pair a new password with its sign-in.
  const username = h('input', { type: 'email', name: 'username', autocomplete: 'username', hidden: true });
  const passwordForm = h(
    'form',
    { id: 'password-form', method: 'post', novalidate: true, onsubmit: changePassword },
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

  // Passkeys
  const passkeysBody = h('div', { id: 'passkeys-body' });
  const passkeyName = field({ id: 'passkey-name', label: 'Name of the new passkey', optional: true, help: 'Where it lives, such as “Work laptop” or “Phone”.', attrs: { type: 'text', name: 'name', maxlength: 100, autocomplete: 'off' } });
  const passkeyProblems = formProblems({ fields: { '/name': passkeyName } });
  const addButton = h('button', { type: 'submit' }, 'Add a passkey');
  const passkeyForm = h(
    'form',
    { id: 'passkey-form', class: 'inline-form', method: 'post', novalidate: true, onsubmit: addPasskey, hidden: !passkeysSupported() },
    passkeyProblems.summary,
    passkeyName.element,
    addButton,
  );
  const passkeysSection = h(
    'section',
    { id: 'passkeys', 'aria-labelledby': 'passkeys-title' },
    h('h2', { id: 'passkeys-title', tabindex: '-1' }, 'Passkeys'),
    h('p', { class: 'help' }, 'A passkey signs you in with this device’s screen lock or a security key, without typing your address or password.'),
    passkeysSupported() ? null : h('p', { class: 'notice' }, 'This browser cannot make or use passkeys.'),
    passkeysBody,
    passkeyForm,
  );

  // Sessions
  const sessionsBody = h('div', { id: 'sessions-body' });
  const endOthers = h('button', { type: 'button', class: 'danger', id: 'end-other-sessions', onclick: endOtherSessions }, 'End all other sessions');
  const sessionsSection = h(
    'section',
    { id: 'sessions', 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title', tabindex: '-1' }, 'Sessions'),
    h('p', { class: 'help' }, 'Where your sign-in is in use. End a session you do not recognise, then change your password.'),
    sessionsBody,
    h('div', { class: 'actions' }, endOthers),
  );

  const signOutSection = h(
    'section',
    { 'aria-labelledby': 'sign-out-title' },
    h('h2', { id: 'sign-out-title' }, 'Sign out'),
    h('p', {}, h('button', { type: 'button', id: 'security-sign-out', onclick: (e) => busy(e.currentTarget, () => context.signOut()) }, 'Sign out of this device')),
  );

  const element = viewSection('security', 'Security', who, passwordForm, passkeysSection, sessionsSection, signOutSection);

  /** @type {any[] | null} */
  let passkeys = null;
  /** @type {any[] | null} */
  let sessions = null;
  /** The passkey whose name is being edited. */
  let renaming = null;

  const cancelled = (err) => err instanceof ReauthenticationCancelled;

  async function changePassword(event) {
    event.preventDefault();
    await busy(passwordSubmit, async () => {
      passwordProblems.clear();
      passwordStatus.textContent = '';
      if (!passwordProblems.requireFilled({ '/currentPassword': 'is required', '/newPassword': 'is required' })) return;
      try {
        const { sessionsEnded } = await sensitive(() => client.changePassword(current.input.value, next.input.value));
        current.input.value = '';
        next.input.value = '';
        passwordStatus.textContent = `Password changed.${sessionsEnded ? ` ${sessionsEnded === 1 ? 'Your other session was' : `Your ${sessionsEnded} other sessions were`} signed out.` : ''}`;
        void readSessions();
      } catch (err) {
        passwordProblems.show(err, { focus: cancelled(err) ? passwordSubmit : current.input });
      }
    });
  }

  async function addPasskey(event) {
    event.preventDefault();
    await busy(addButton, async () => {
      passkeyProblems.clear();
      try {
        const added = await sensitive(() => createPasskey(client, passkeyName.input.value.trim()));
        passkeyName.input.value = '';
        await readPasskeys();
        announce(`Passkey “${added.name}” added.`);
        focusOn(passkeysSection.querySelector('h2'));
      } catch (err) {
        passkeyProblems.show(ceremonyProblem(err) ?? err, { focus: addButton });
      }
    });
  }

  async function removePasskey(passkey, button) {
    const confirmed = await confirmAction({
      title: `Remove the passkey “${passkey.name}”?`,
      body: 'It no longer signs you in. The device may still list it; you can delete it there too.',
      confirmLabel: 'Remove passkey',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await sensitive(() => client.removePasskey(passkey.id));
        await readPasskeys();
        announce(`Passkey “${passkey.name}” removed.`);
        focusOn(passkeysSection.querySelector('h2'));
      } catch (err) {
        if (err?.name !== 'AbortError') announce(cancelled(err) ? err.message : `Could not remove the passkey: ${problemText(err)}`);
      }
    });
  }

  async function savePasskeyName(passkey, input, error) {
    const name = input.value.trim();
    if (!name) {
      error.textContent = 'Enter a name.';
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    try {
      await client.renamePasskey(passkey.id, name);
      renaming = null;
      await readPasskeys();
      announce(`Passkey renamed “${name}”.`);
      passkeysBody.querySelector(`[data-focus-key="rename-${CSS.escape(passkey.id)}"]`)?.focus();
    } catch (err) {
      error.textContent = problemText(err);
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    }
  }

  function nameCell(p) {
    if (renaming !== p.id) return h('span', { class: 'passkey-name' }, p.name);
    const inputId = `rename-${p.id}`;
    const input = h('input', { id: inputId, type: 'text', value: p.name, maxlength: 100, required: true, 'aria-describedby': `${inputId}-error`, autocomplete: 'off' });
    const error = h('p', { class: 'field-error', id: `${inputId}-error`, hidden: true });
    const save = h('button', { type: 'submit', class: 'small-button primary' }, 'Save');
    return h(
      'form',
      {
        class: 'rename-form', method: 'post', novalidate: true,
        onsubmit: (event) => {
          event.preventDefault();
          void busy(save, () => savePasskeyName(p, input, error));
        },
        onkeydown: (event) => {
          if (event.key === 'Escape') stopRenaming(p);
        },
      },
      h('label', { for: inputId, class: 'visually-hidden' }, `New name for the passkey “${p.name}”`),
      input,
      error,
      h('div', { class: 'actions' }, save, h('button', { type: 'button', class: 'small-button', onclick: () => stopRenaming(p) }, 'Cancel')),
    );
  }

  function stopRenaming(p) {
    renaming = null;
    renderPasskeys();
    passkeysBody.querySelector(`[data-focus-key="rename-${CSS.escape(p.id)}"]`)?.focus();
  }

  function renderPasskeys() {
    if (!passkeys) return;
    if (!passkeys.length) {
      replace(passkeysBody, empty('No passkeys yet. Add one to sign in without your password.'));
      return;
    }
    replace(
      passkeysBody,
      dataTable({
        attrs: { class: 'passkeys-table', 'aria-labelledby': 'passkeys-title' },
        columns: ['Name', 'Added', 'Last used', 'Actions'],
        rowHeader: 0,
        rows: passkeys.map((p) => ({
          attrs: { dataset: { passkeyId: p.id } },
          cells: [
            nameCell(p),
            time(p.createdAt),
            time(p.lastUsedAt, 'Not yet'),
            renaming === p.id
              ? null
              : h(
                'div',
                { class: 'actions' },
                h('button', {
                  type: 'button', class: 'small-button', 'data-focus-key': `rename-${p.id}`, 'aria-label': `Rename passkey ${p.name}`,
                  onclick: () => {
                    renaming = p.id;
                    renderPasskeys();
                    /** @type {HTMLInputElement | null} */ (passkeysBody.querySelector(`#rename-${CSS.escape(p.id)}`))?.select();
                  },
                }, 'Rename'),
                h('button', { type: 'button', class: 'small-button danger', 'data-focus-key': `remove-${p.id}`, 'aria-label': `Remove passkey ${p.name}`, onclick: (e) => removePasskey(p, e.currentTarget) }, 'Remove'),
              ),
          ],
        })),
      }),
    );
  }

  async function readPasskeys() {
    if (passkeys === null) replace(passkeysBody, loading('passkeys'));
    try {
      passkeys = await client.passkeys();
      renderPasskeys();
    } catch (err) {
      if (err?.name !== 'AbortError') replace(passkeysBody, errorBox(err, { what: 'your passkeys', retry: readPasskeys }));
    }
  }

  async function endOne(s, button) {
    await busy(button, async () => {
      try {
        await client.endSession(s.id);
        await readSessions();
        announce(`The session of ${deviceName(s.userAgent)} has ended.`);
        focusOn(sessionsSection.querySelector('h2'));
      } catch (err) {
        if (err?.name !== 'AbortError') announce(`Could not end the session: ${problemText(err)}`);
      }
    });
  }

  async function endOtherSessions() {
    const confirmed = await confirmAction({
      title: 'End all other sessions?',
      body: 'Every device but this one is signed out at once. This one stays signed in.',
      confirmLabel: 'End other sessions',
    });
    if (!confirmed) return;
    await busy(endOthers, async () => {
      try {
        const { ended } = await client.endOtherSessions();
        await readSessions();
        announce(ended === 1 ? 'One other session has ended.' : `${ended} other sessions have ended.`);
        focusOn(sessionsSection.querySelector('h2'));
      } catch (err) {
        if (err?.name !== 'AbortError') announce(`Could not end the sessions: ${problemText(err)}`);
      }
    });
  }

  function renderSessions() {
    if (!sessions) return;
    endOthers.hidden = !sessions.some((s) => !s.current);
    replace(
      sessionsBody,
      dataTable({
        attrs: { class: 'sessions-table', 'aria-labelledby': 'sessions-title' },
        caption: 'Newest sign-in first.',
        columns: ['Device', 'Address', 'Signed in', 'Last seen', 'Actions'],
        rowHeader: 0,
        rows: sessions.map((s) => ({
          attrs: { dataset: { sessionId: s.id }, class: s.current ? 'current-session' : null },
          cells: [
            [deviceName(s.userAgent), s.current ? [' ', h('span', { class: 'badge active' }, 'This device')] : null],
            s.ip ? h('code', {}, address(s.ip)) : h('span', { class: 'muted' }, 'Unknown'),
            [time(s.createdAt), METHODS[s.method] ? h('span', { class: 'muted small' }, ` ${METHODS[s.method]}`) : null],
            time(s.lastSeenAt),
            s.current
              ? h('span', { class: 'muted' }, 'Sign out below')
              : h('button', { type: 'button', class: 'small-button danger', 'aria-label': `End the session of ${deviceName(s.userAgent)} at ${address(s.ip) ?? 'an unknown address'}`, onclick: (e) => endOne(s, e.currentTarget) }, 'End'),
          ],
        })),
      }),
    );
  }

  async function readSessions() {
    if (sessions === null) replace(sessionsBody, loading('sessions'));
    try {
      sessions = await client.sessions();
      renderSessions();
    } catch (err) {
      if (err?.name !== 'AbortError') replace(sessionsBody, errorBox(err, { what: 'your sessions', retry: readSessions }));
    }
  }

  return {
    element,
    load() {
      const me = context.me();
      who.textContent = me ? `Signed in as ${me.user.email}${me.user.name ? ` (${me.user.name})` : ''}.` : '';
      username.value = me?.user.email ?? '';
      return Promise.all([readPasskeys(), readSessions()]);
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
    h('p', {}, 'You signed in with an owner token, which belongs to the account, not to a person: it has no password, passkeys or sessions to manage.'),
    h('p', {}, h('a', { href: '/dashboard/attach' }, 'Attach yourself to the account'), ' to sign in with a password or a passkey; this page then shows your security settings.'),
  );
  return { element };
}
