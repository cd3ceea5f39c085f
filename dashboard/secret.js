//! A secret shown once (a new API key, a webhook signing secret): in the DOM only until the user
//! dismisses it or leaves, never stored. Copy puts it on the clipboard; where the Clipboard API is
//! refused, the text is selected for Ctrl+C instead.
import { announce, clearFormError, focusOn, h, showFormError } from './dom.js';

async function copy(input) {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.focus();
    input.select();
    // Older browsers and non-secure origins: the deprecated command still copies a selection.
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/**
 * Shows `secret` in `container` with a copy button and a "Done" button that removes it.
 * Focus moves to the panel's heading so the user hears that something must be copied now.
 * @param {HTMLElement} container
 * @param {{ title: string, label: string, copyLabel: string, note: string, secret: string, onDone?: () => void }} options
 */
export function showSecret(container, { title, label, copyLabel, note, secret, onDone }) {
  const id = `secret-${Math.random().toString(36).slice(2)}`;
  const input = h('input', {
    id,
    type: 'text',
    readonly: true,
    value: secret,
    class: 'secret-value',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const status = h('p', { class: 'copy-status', role: 'status' });
  const heading = h('h3', { tabindex: '-1' }, title);
  const copyButton = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        const done = await copy(input);
        status.textContent = done ? 'Copied to the clipboard.' : 'Could not copy: the text is selected, press Ctrl+C (⌘C on a Mac).';
      },
    },
    copyLabel,
  );
  const panel = h(
    'div',
    { class: 'secret-panel' },
    heading,
    h('p', {}, note),
    h('div', { class: 'field' }, h('label', { for: id }, label), h('div', { class: 'secret-row' }, input, copyButton)),
    status,
    h(
      'button',
      {
        type: 'button',
        class: 'done',
        onclick: () => {
          container.replaceChildren();
          announce(`${label} hidden.`);
          onDone?.();
        },
      },
      "Done, I've saved it",
    ),
  );
  container.replaceChildren(panel);
  focusOn(heading);
}

/**
 * A form's sending that makes something whose secret is shown once (an API key, a webhook
 * endpoint): `make()` answers what to show and announce; the secret goes to `box` (its Done gives
 * the focus back to the field), the field is emptied and `reload()` runs (the list read again). A
 * refusal is shown on the field, which takes the focus.
 * @param {{ box: HTMLElement, field: { input: HTMLInputElement, error: HTMLElement },
 *           make: () => Promise<{ shown: { title: string, label: string, copyLabel: string, note: string, secret: string }, announcement: string }>,
 *           reload: () => Promise<unknown> }} spec
 */
export async function createShownOnce({ box, field, make, reload }) {
  clearFormError(field.error, field.input);
  try {
    const { shown, announcement } = await make();
    field.input.value = '';
    showSecret(box, { ...shown, onDone: () => field.input.focus() });
    announce(announcement);
    await reload();
  } catch (err) {
    if (err.name === 'AbortError') return;
    showFormError(field.error, field.input, err);
    field.input.focus();
  }
}

/** Removes any secret still shown (sign-out): it must not outlive the session on screen either. */
export function hideSecret(container) {
  container.replaceChildren();
}
