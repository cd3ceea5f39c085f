//! Confirmation before a destructive action, in the page's one modal <dialog>: the browser keeps
//! focus inside it and closes it on Escape. Focus starts on Cancel (the safe choice) and goes back
//! to the button that opened it when the user cancels; after a confirmed action the caller moves
//! focus, because that button may be gone. Escape is handled on `cancel`, which fires at once,
//! not on `close`, which is queued: a queued close from one confirmation must not end the next
//! one that a quick user has already opened.
import { $ } from './dom.js';

/**
 * @param {{ title: string, body: string, confirmLabel: string }} text
 * @returns {Promise<boolean>} true when the user confirmed
 */
export function confirmAction({ title, body, confirmLabel }) {
  const dialog = $('confirm-dialog');
  const ok = $('confirm-ok');
  const cancel = $('confirm-cancel');
  const opener = document.activeElement;
  $('confirm-title').textContent = title;
  $('confirm-body').textContent = body;
  ok.textContent = confirmLabel;

  return new Promise((resolve) => {
    const finish = (confirmed) => {
      ok.removeEventListener('click', onOk);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('cancel', onEscape);
      if (dialog.open) dialog.close();
      if (!confirmed && opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(confirmed);
    };
    const onOk = () => finish(true);
    const onCancel = () => finish(false);
    const onEscape = () => finish(false);
    ok.addEventListener('click', onOk);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('cancel', onEscape);
    dialog.showModal();
    cancel.focus();
  });
}

/** Cancels a confirmation still open (the view it belongs to is being left). */
export function dismissDialog() {
  if ($('confirm-dialog').open) $('confirm-cancel').click();
}
