//! Confirming it is you before a security change. The service takes a password or passkey change,
//! or a transfer of ownership, only within 10 minutes of the session's last sign-in (403
//! `reauthentication_required`); then
//! this modal dialog asks for the password (or a passkey), which signs in again in this session
//! (the cookie is replaced, the account kept), and the change is tried once more. Cancel or Escape
//! gives up and returns the focus to where it was.
import { busy, h } from './dom.js';
import { field, formProblems } from './forms.js';
import { ceremonyProblem, passkeysSupported, signInWithPasskey } from './passkeys.js';

/** @type {ReturnType<typeof build> | null} */
let dialog = null;

function build() {
  const password = field({
    id: 'reauth-password',
    label: 'Password',
    attrs: { type: 'password', name: 'password', autocomplete: 'current-password' },
  });
  const problems = formProblems({ fields: { '/password': password } });
  const who = h('p', { id: 'reauth-body' });
  const confirm = h('button', { type: 'submit', class: 'primary' }, 'Confirm');
  const passkey = h('button', { type: 'button', id: 'reauth-passkey' }, 'Use a passkey instead');
  const cancel = h('button', { type: 'button', id: 'reauth-cancel' }, 'Cancel');
  // The address, hidden, for password managers: they fill the password of that sign-in.
  const username = h('input', { type: 'email', name: 'username', autocomplete: 'username', hidden: true });
  const form = h(
    'form',
    { id: 'reauth-form', method: 'post', novalidate: true },
    problems.summary,
    username,
    password.element,
    h('div', { class: 'actions' }, cancel, passkey, confirm),
  );
  const element = /** @type {HTMLDialogElement} */ (
    h(
      'dialog',
      { id: 'reauth-dialog', 'aria-labelledby': 'reauth-title', 'aria-describedby': 'reauth-body' },
      h('h2', { id: 'reauth-title' }, 'Confirm it’s you'),
      who,
      form,
    )
  );
  document.body.append(element);
  return { element, form, username, password, problems, who, confirm, passkey, cancel };
}

/** What needs the recent sign-in, when the caller does not say (the Security page's changes). */
const DEFAULT_REASON = 'Changing your password or passkeys';

/**
 * Asks the person to sign in again. Resolves with the service's signed-in answer, or null when
 * they cancel.
 * @param {{ client: import('./api.js').Client, email: string, reason?: string }} options
 */
function ask({ client, email, reason = DEFAULT_REASON }) {
  dialog ??= build();
  const d = dialog;
  const opener = document.activeElement;
  d.who.textContent = `${reason} needs a sign-in within the last 10 minutes. Enter the password of ${email}${passkeysSupported() ? ', or use a passkey' : ''}.`;
  d.passkey.hidden = !passkeysSupported();
  d.username.value = email;
  d.password.input.value = '';
  d.problems.clear();

  return new Promise((resolve) => {
    const finish = (answer) => {
      d.form.removeEventListener('submit', onSubmit);
      d.passkey.removeEventListener('click', onPasskey);
      d.cancel.removeEventListener('click', onCancel);
      d.element.removeEventListener('cancel', onCancel);
      d.password.input.value = '';
      if (d.element.open) d.element.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(answer);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      void busy(d.confirm, async () => {
        if (!d.problems.requireFilled({ '/password': 'is required' })) return;
        try {
          finish(await client.signIn(email, d.password.input.value));
        } catch (err) {
          d.problems.show(err, { focus: d.password.input });
        }
      });
    };
    const onPasskey = () =>
      void busy(d.passkey, async () => {
        d.problems.clear();
        try {
          finish(await signInWithPasskey(client));
        } catch (err) {
          d.problems.show(ceremonyProblem(err) ?? err, { focus: d.passkey });
        }
      });
    const onCancel = (event) => {
      event.preventDefault();
      finish(null);
    };
    d.form.addEventListener('submit', onSubmit);
    d.passkey.addEventListener('click', onPasskey);
    d.cancel.addEventListener('click', onCancel);
    d.element.addEventListener('cancel', onCancel);
    d.element.showModal();
    d.password.input.focus();
  });
}

/** Closes the dialog if it is open (the view it belongs to is being left). */
export function dismissReauthentication() {
  if (dialog?.element.open) dialog.cancel.click();
}

/** Why a change did not happen when the person cancelled the confirmation. */
export class ReauthenticationCancelled extends Error {
  constructor() {
    super('Nothing was changed: confirming it is you was cancelled.');
    this.name = 'ReauthenticationCancelled';
    this.detail = this.message;
  }
}

/**
 * Runs `change`; when the service wants a fresh sign-in first, asks for it and runs `change` once
 * more. `signedInAgain` gets the new sign-in's answer (the header shows it; another person's
 * passkey signs that person in, which the caller handles).
 * @template T
 * @param {{ client: import('./api.js').Client, email: string, signedInAgain: (answer: any) => boolean, reason?: string }} options
 * `signedInAgain` answers false when the change must not be retried (someone else signed in);
 * `reason`: what needs the sign-in, as the dialog says it ("Transferring ownership").
 * @param {() => Promise<T>} change
 * @returns {Promise<T>}
 */
export async function withReauthentication({ client, email, signedInAgain, reason }, change) {
  try {
    return await change();
  } catch (err) {
    if (err?.code !== 'reauthentication_required') throw err;
    const answer = await ask({ client, email, reason });
    if (!answer) throw new ReauthenticationCancelled();
    if (!signedInAgain(answer)) throw new ReauthenticationCancelled();
    return change();
  }
}
