//! API keys: create (the key is shown once, with a copy button), list with prefix, creation and
//! last use, and revoke after confirmation.
import { confirmAction } from './dialogs.js';
import { $, announce, busy, clearFormError, dataTable, empty, errorBox, focusOn, h, loading, problemText, replace, showFormError, time } from './dom.js';
import { hideSecret, showSecret } from './secret.js';

export function createKeysView({ client }) {
  const container = $('keys-body');
  const secretBox = $('key-secret');
  const form = $('key-form');
  const nameInput = $('key-name');
  const formError = $('key-name-error');
  let keys = null;

  async function load() {
    if (keys === null) replace(container, loading('API keys'));
    try {
      keys = await client.keys();
      render();
    } catch (err) {
      if (err.name === 'AbortError') return;
      keys = null;
      replace(container, errorBox(err, { what: 'the API keys', retry: () => load() }));
    }
  }

  function render() {
    if (keys.length === 0) {
      replace(container, empty('No API keys yet. Create one to call the tools.'));
      return;
    }
    const active = keys.filter((k) => !k.revokedAt).length;
    replace(
      container,
      h('p', { class: 'muted small', id: 'keys-count' }, `${active} active, ${keys.length - active} revoked.`),
      dataTable({
        attrs: { class: 'keys-table', 'aria-labelledby': 'keys-title', 'aria-describedby': 'keys-count' },
        columns: ['Name', 'Key', 'Created', 'Last used', 'Status', 'Actions'],
        rowHeader: 0,
        rows: keys.map(row),
      }),
    );
  }

  function row(key) {
    const label = key.name || key.prefix;
    return {
      attrs: { dataset: { keyId: key.id }, class: key.revokedAt ? 'revoked' : null },
      cells: [
        key.name || h('span', { class: 'muted' }, 'Unnamed'),
        h('code', { class: 'key-prefix' }, `${key.prefix}…`),
        time(key.createdAt),
        time(key.lastUsedAt),
        key.revokedAt ? [h('span', { class: 'badge revoked' }, 'Revoked'), ' ', time(key.revokedAt)] : h('span', { class: 'badge active' }, 'Active'),
        key.revokedAt ? null : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${label}`, 'data-focus-key': `revoke-${key.id}`, onclick: (e) => revoke(key, e.currentTarget) }, 'Revoke'),
      ],
    };
  }

  async function revoke(key, button) {
    const label = key.name ? `“${key.name}” (${key.prefix}…)` : `${key.prefix}…`;
    const confirmed = await confirmAction({
      title: `Revoke key ${label}?`,
      body: 'Calls made with this key will be refused with 401 Unauthorized within a second. This cannot be undone.',
      confirmLabel: 'Revoke key',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.revokeKey(key.id);
        await load();
        // Focus first (its button is gone), then the result: said after the heading, not cut off by it.
        focusOn($('keys-title'));
        announce(`Key ${label} revoked.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        button.closest('td').append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  async function create(event) {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    await busy(button, async () => {
      clearFormError(formError, nameInput);
      const name = nameInput.value.trim();
      try {
        const key = await client.createKey(name || undefined);
        nameInput.value = '';
        showSecret(secretBox, {
          title: key.name ? `New API key “${key.name}”` : 'New API key',
          label: 'API key',
          copyLabel: 'Copy key',
          note: 'Copy this key now: it is shown only once and cannot be shown again. If you lose it, create a new key and revoke this one.',
          secret: key.key,
          onDone: () => nameInput.focus(),
        });
        announce('API key created. Copy it now: it is shown only once.');
        await load();
      } catch (err) {
        if (err.name === 'AbortError') return;
        showFormError(formError, nameInput, err);
        nameInput.focus();
      }
    });
  }

  form.addEventListener('submit', create);

  return {
    load,
    close() {
      form.removeEventListener('submit', create);
      hideSecret(secretBox);
      clearFormError(formError, nameInput);
      nameInput.value = '';
      container.replaceChildren();
    },
  };
}
