//! A row's buttons, and its action that cannot be undone (delete, retire, disconnect) done the one
//! way every list does it: asked first in the confirmation dialog, then run with its button busy;
//! on success the list is read again, focus goes to the list's heading (the one that names its
//! table) and the outcome is announced; a refusal is shown under the button, which keeps the focus.
import { confirmAction } from './dialogs.js';
import { announce, busy, focusOn, h, problemText } from './dom.js';

/** @typedef {{ title: string, body: string, confirmLabel: string }} Confirmation what the dialog asks */
/** @typedef {{ confirm: Confirmation, act: () => Promise<unknown>, reload: () => Promise<unknown>, announcement: string }} RowAction */

/** @param {RowAction & { button: HTMLButtonElement }} spec */
export async function confirmedRowAction({ button, confirm, act, reload, announcement }) {
  if (!(await confirmAction(confirm))) return;
  // Found before the list is drawn again: the button's row may be gone by then.
  const heading = document.getElementById(button.closest('table')?.getAttribute('aria-labelledby') ?? '');
  await busy(button, async () => {
    try {
      await act();
      await reload();
      // Focus first (the row may be gone), then the result: said after the heading, not cut off by it.
      focusOn(heading);
      announce(announcement);
    } catch (err) {
      if (err.name === 'AbortError') return;
      button.closest('td')?.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
      button.focus();
    }
  });
}

/**
 * A button of a table's row: `label` on it, `name` what a screen reader says (`Revoke key prod`),
 * `focusKey` keeps the focus on it when the table is drawn again; `onclick` gets the button.
 * @param {{ label: string, name: string, focusKey?: string, kind?: 'danger' | 'primary', small?: boolean,
 *           onclick: (button: HTMLButtonElement) => unknown }} spec
 */
export function rowButton({ label, name, focusKey, kind, small = false, onclick }) {
  const classes = [small ? 'small-button' : null, kind].filter(Boolean).join(' ');
  return h(
    'button',
    { type: 'button', class: classes || null, 'aria-label': name, 'data-focus-key': focusKey, onclick: (e) => onclick(e.currentTarget) },
    label,
  );
}

/**
 * A row's button for an action that cannot be undone: `confirmedRowAction` when it is pressed. The
 * dialog asks the button's `name` ("Delete destination x?") unless `confirm` has a `title`.
 * @param {Omit<RowAction, 'confirm'> & { confirm: Omit<Confirmation, 'title'> & { title?: string }, label: string, name: string,
 *          focusKey?: string, small?: boolean }} spec
 */
export function confirmedRowButton({ label, name, focusKey, small, confirm, ...action }) {
  const asked = { title: `${name}?`, ...confirm };
  return rowButton({
    label,
    name,
    focusKey,
    small,
    kind: 'danger',
    onclick: (button) => confirmedRowAction({ button, confirm: asked, ...action }),
  });
}

/**
 * An action whose outcome is announced (end a session or all the others, remove a passkey, empty
 * the render cache): asked first when `confirm` is given, then run with its button busy; `act`
 * answers what to announce, after which the focus goes to `heading`; a refusal goes to `refused`.
 * @param {{ button: HTMLElement, confirm?: Confirmation, act: () => Promise<string>, heading: Element | null,
 *           refused: (err: any) => void }} spec
 */
export async function announcedAction({ button, confirm, act, heading, refused }) {
  if (confirm && !(await confirmAction(confirm))) return;
  await busy(button, async () => {
    try {
      announce(await act());
      focusOn(heading);
    } catch (err) {
      if (err?.name !== 'AbortError') refused(err);
    }
  });
}
