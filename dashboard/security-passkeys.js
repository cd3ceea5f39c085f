//! The Security page's passkeys: the list (added, last used), a passkey added on this device
//! (named, or numbered by the service), renamed in place, removed after the person confirms it.
//! Adding and removing are changes that may need a recent sign-in (`sensitive`).
import { announce, dataTable, focusOn, h, help, problemText, subSection, time } from './dom.js';
import { field, formProblems, postForm } from './forms.js';
import { createList } from './list.js';
import { ceremonyProblem, createPasskey, passkeysSupported } from './passkeys.js';
import { announcedAction, rowButton } from './row-action.js';

/**
 * @param {{ client: import('./api.js').Client, sensitive: <T>(change: () => Promise<T>) => Promise<T>, cancelled: (err: unknown) => boolean }} deps
 * `sensitive` runs a change through the re-authentication dialog when the service asks for it.
 */
export function createPasskeysSection({ client, sensitive, cancelled }) {
  const passkeysBody = h('div', { id: 'passkeys-body' });
  const passkeyName = field({
    id: 'passkey-name',
    label: 'Name of the new passkey',
    optional: true,
    help: 'Where it lives, such as “Work laptop” or “Phone”.',
    attrs: { type: 'text', name: 'name', maxlength: 100, autocomplete: 'off' },
  });
  const passkeyProblems = formProblems({ fields: { '/name': passkeyName } });
  const addButton = h('button', { type: 'submit' }, 'Add a passkey');
  const passkeyForm = postForm(
    { id: 'passkey-form', class: 'inline-form', hidden: !passkeysSupported(), send: addPasskey },
    passkeyProblems.summary,
    passkeyName.element,
    addButton,
  );
  const passkeysSection = subSection(
    'passkeys',
    'Passkeys',
    help('A passkey signs you in with this device’s screen lock or a security key, without typing your address or password.'),
    passkeysSupported() ? null : h('p', { class: 'notice' }, 'This browser cannot make or use passkeys.'),
    passkeysBody,
    passkeyForm,
  );
  const list = createList({
    body: passkeysBody,
    loadingWhat: 'passkeys',
    failedWhat: 'your passkeys',
    read: () => client.passkeys(),
    emptyText: 'No passkeys yet. Add one to sign in without your password.',
    table: (passkeys) =>
      dataTable({ name: 'passkeys', columns: ['Name', 'Added', 'Last used', 'Actions'], rowHeader: 0, rows: passkeys.map(row) }),
  });

  /** The passkey whose name is being edited. */
  let renaming = null;

  async function addPasskey() {
    passkeyProblems.clear();
    try {
      const added = await sensitive(() => createPasskey(client, passkeyName.input.value.trim()));
      passkeyName.input.value = '';
      await list.load();
      announce(`Passkey “${added.name}” added.`);
      focusOn(passkeysSection.querySelector('h2'));
    } catch (err) {
      passkeyProblems.show(ceremonyProblem(err) ?? err, { focus: addButton });
    }
  }

  function removePasskey(passkey, button) {
    return announcedAction({
      button,
      confirm: {
        title: `Remove the passkey “${passkey.name}”?`,
        body: 'It no longer signs you in. The device may still list it; you can delete it there too.',
        confirmLabel: 'Remove passkey',
      },
      act: async () => {
        await sensitive(() => client.removePasskey(passkey.id));
        await list.load();
        return `Passkey “${passkey.name}” removed.`;
      },
      heading: passkeysSection.querySelector('h2'),
      refused: (err) => announce(cancelled(err) ? err.message : `Could not remove the passkey: ${problemText(err)}`),
    });
  }

  async function savePasskeyName(passkey, input, error) {
    const name = input.value.trim();
    if (!name) {
      refuseName(input, error, 'Enter a name.');
      return;
    }
    try {
      await client.renamePasskey(passkey.id, name);
      renaming = null;
      await list.load();
      announce(`Passkey renamed “${name}”.`);
      passkeysBody.querySelector(`[data-focus-key="rename-${CSS.escape(passkey.id)}"]`)?.focus();
    } catch (err) {
      refuseName(input, error, problemText(err));
    }
  }

  function nameCell(p) {
    if (renaming !== p.id) return h('span', { class: 'passkey-name' }, p.name);
    return renameForm(p, { save: (input, error) => savePasskeyName(p, input, error), cancel: () => stopRenaming(p) });
  }

  function stopRenaming(p) {
    renaming = null;
    list.redraw();
    passkeysBody.querySelector(`[data-focus-key="rename-${CSS.escape(p.id)}"]`)?.focus();
  }

  function row(p) {
    return {
      attrs: { dataset: { passkeyId: p.id } },
      cells: [
        nameCell(p),
        time(p.createdAt),
        time(p.lastUsedAt, 'Not yet'),
        renaming === p.id
          ? null
          : rowActions(p, {
              rename: () => {
                renaming = p.id;
                list.redraw();
                /** @type {HTMLInputElement | null} */ (passkeysBody.querySelector(`#rename-${CSS.escape(p.id)}`))?.select();
              },
              remove: (button) => removePasskey(p, button),
            }),
      ],
    };
  }

  return { section: passkeysSection, load: list.load };
}

/** The passkey's name as a form that renames it: `save(input, error)` when sent, `cancel()` on Cancel or Escape. */
function renameForm(p, { save, cancel }) {
  const inputId = `rename-${p.id}`;
  const input = h('input', {
    id: inputId,
    type: 'text',
    value: p.name,
    maxlength: 100,
    required: true,
    'aria-describedby': `${inputId}-error`,
    autocomplete: 'off',
  });
  const error = h('p', { class: 'field-error', id: `${inputId}-error`, hidden: true });
  const button = h('button', { type: 'submit', class: 'small-button primary' }, 'Save');
  return postForm(
    {
      class: 'rename-form',
      send: () => save(input, error),
      onkeydown: (event) => {
        if (event.key === 'Escape') cancel();
      },
    },
    h('label', { for: inputId, class: 'visually-hidden' }, `New name for the passkey “${p.name}”`),
    input,
    error,
    h('div', { class: 'actions' }, button, h('button', { type: 'button', class: 'small-button', onclick: cancel }, 'Cancel')),
  );
}

/** Says why a new name was not taken, on its field. */
function refuseName(input, error, text) {
  error.textContent = text;
  error.hidden = false;
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

/** A passkey's Rename and Remove buttons. */
function rowActions(p, { rename, remove }) {
  return h(
    'div',
    { class: 'actions' },
    rowButton({ label: 'Rename', name: `Rename passkey ${p.name}`, focusKey: `rename-${p.id}`, small: true, onclick: rename }),
    rowButton({
      label: 'Remove',
      name: `Remove passkey ${p.name}`,
      focusKey: `remove-${p.id}`,
      small: true,
      kind: 'danger',
      onclick: remove,
    }),
  );
}
