//! A row's action that cannot be undone (delete, retire, disconnect), done the one way every list
//! does it: asked first in the confirmation dialog, then run with its button busy; on success the
//! list is read again, focus goes to the list's heading and the outcome is announced; a refusal is
//! shown under the button, which keeps the focus.
import { confirmAction } from './dialogs.js';
import { announce, busy, focusOn, h, problemText } from './dom.js';

/**
 * @param {{ button: HTMLButtonElement, confirm: { title: string, body: string, confirmLabel: string },
 *           act: () => Promise<unknown>, reload: () => Promise<unknown>, heading: Element | null, announcement: string }} spec
 */
export async function confirmedRowAction({ button, confirm, act, reload, heading, announcement }) {
  if (!(await confirmAction(confirm))) return;
  await busy(button, async () => {
    try {
      await act();
      await reload();
      focusOn(heading);
      announce(announcement);
    } catch (err) {
      if (err.name === 'AbortError') return;
      button.closest('td')?.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
      button.focus();
    }
  });
}
