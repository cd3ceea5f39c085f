//! API keys (`/dashboard/keys`): create (the key is shown once, with a copy button), list with
//! prefix, creation, last use and limits, edit a key's limits (tools, expiry, rate, monthly
//! credits, addresses), and revoke after confirmation.
import { confirmAction } from './dialogs.js';
import { announce, busy, clearFormError, credits, dataTable, empty, errorBox, focusOn, formatInt, h, loading, problemText, replace, showFormError, time, viewSection } from './dom.js';
import { hideSecret, showSecret } from './secret.js';

/** A labelled input of the limits editor; `hint` follows the label in a lighter type. */
function limitField(id, name, label, hint, attrs) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, hint ? [' ', h('span', { class: 'optional' }, hint)] : null),
    h('input', { id, name, ...attrs, 'aria-describedby': 'key-settings-error' }),
  );
}

/** @param {import('./app.js').ViewContext} context */
export function createKeysView({ client }) {
  const container = h('div', { id: 'keys-body' });
  const secretBox = h('div', { id: 'key-secret' });
  const nameInput = h('input', { id: 'key-name', name: 'name', type: 'text', maxlength: '100', autocomplete: 'off', 'aria-describedby': 'key-name-error' });
  const formError = h('p', { class: 'field-error', id: 'key-name-error', hidden: true });
  const form = h(
    'form',
    { id: 'key-form', class: 'inline-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'key-name' }, 'Name ', h('span', { class: 'optional' }, '(optional)')), nameInput, formError),
    h('button', { type: 'submit', class: 'primary' }, 'Create key'),
  );
  const settingsError = h('p', { class: 'field-error', id: 'key-settings-error', role: 'alert', hidden: true });
  const settingsTitle = h('h2', { id: 'key-settings-title', tabindex: '-1' }, 'Limits of key');
  const cancel = h('button', { type: 'button', id: 'key-settings-cancel' }, 'Cancel');
  const settingsForm = h(
    'form',
    { id: 'key-settings', class: 'panel-form', novalidate: true, hidden: true, 'aria-labelledby': 'key-settings-title' },
    settingsTitle,
    h('p', { class: 'help' }, 'Leave a field empty for no limit. A change is in force within a second.'),
    limitField('key-tools', 'tools', 'Tools or groups', '(comma-separated, e.g. hash-text, network)', { type: 'text', autocomplete: 'off' }),
    limitField('key-expires', 'expiresAt', 'Expires', '(your local time)', { type: 'datetime-local' }),
    limitField('key-rate', 'rateLimit', 'Calls per second', null, { type: 'number', min: '1', step: '1' }),
    limitField('key-monthly', 'monthlyCreditLimit', 'Credits per month', '(UTC calendar month)', { type: 'number', min: '1', step: '1' }),
    limitField('key-ips', 'allowedIps', 'Allowed addresses', '(CIDRs, comma-separated, e.g. 203.0.113.0/24)', { type: 'text', autocomplete: 'off' }),
    settingsError,
    h('button', { type: 'submit', class: 'primary' }, 'Save limits'),
    ' ',
    cancel,
  );
  const element = viewSection(
    'keys',
    'API keys',
    h('p', { class: 'help' }, 'Keys call the tools (', h('code', {}, 'Authorization: Bearer utk_…'), '). A key is shown once, when it is created.'),
    h('section', { 'aria-labelledby': 'key-create-title' }, h('h2', { id: 'key-create-title' }, 'Create a key'), form, secretBox),
    h('section', { 'aria-labelledby': 'key-list-title' }, h('h2', { id: 'key-list-title' }, 'Your keys'), container),
    settingsForm,
  );
  const field = (name) => settingsForm.querySelector(`[name="${name}"]`);
  const fields = {
    tools: field('tools'), expiresAt: field('expiresAt'), rateLimit: field('rateLimit'), monthlyCreditLimit: field('monthlyCreditLimit'), allowedIps: field('allowedIps'),
  };
  let keys = null;
  /** The key whose limits are being edited. */
  let editing = null;

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
        columns: ['Name', 'Key', 'Created', 'Last used', 'Limits', 'Status', 'Actions'],
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
        [time(key.lastUsedAt), key.lastUsedIp ? h('span', { class: 'muted small' }, ` from ${key.lastUsedIp}`) : null],
        limitsText(key),
        key.revokedAt ? [h('span', { class: 'badge revoked' }, 'Revoked'), ' ', time(key.revokedAt)] : h('span', { class: 'badge active' }, 'Active'),
        key.revokedAt
          ? null
          : [
              h('button', { type: 'button', 'aria-label': `Edit limits of key ${label}`, 'data-focus-key': `limits-${key.id}`, onclick: () => edit(key) }, 'Edit limits'),
              ' ',
              h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${label}`, 'data-focus-key': `revoke-${key.id}`, onclick: (e) => revoke(key, e.currentTarget) }, 'Revoke'),
            ],
      ],
    };
  }

  /** What limits a key, in words; the month's spending always. */
  function limitsText(key) {
    const parts = [];
    if (key.tools) parts.push(`Tools: ${key.tools.join(', ')}`);
    if (key.expiresAt) parts.push(h('span', {}, 'Expires ', time(key.expiresAt)));
    if (key.rateLimit) parts.push(`${key.rateLimit}/s`);
    parts.push(key.monthlyCreditLimit ? `${credits(key.spentThisMonth)} of ${formatInt(key.monthlyCreditLimit)} this month` : `${credits(key.spentThisMonth)} this month`);
    if (key.allowedIps) parts.push(`From ${key.allowedIps.join(', ')}`);
    return h('ul', { class: 'key-limits small' }, ...parts.map((p) => h('li', {}, p)));
  }

  /** A datetime-local value (local time, to the minute) for an ISO time, and back. */
  const toLocalInput = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  };
  const list = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);
  const whole = (text) => (text.trim() === '' ? null : Number(text));

  function edit(key) {
    editing = key;
    clearFormError(settingsError, fields.tools);
    settingsTitle.textContent = `Limits of key ${key.name || `${key.prefix}…`}`;
    fields.tools.value = (key.tools ?? []).join(', ');
    fields.expiresAt.value = toLocalInput(key.expiresAt);
    fields.rateLimit.value = key.rateLimit ?? '';
    fields.monthlyCreditLimit.value = key.monthlyCreditLimit ?? '';
    fields.allowedIps.value = (key.allowedIps ?? []).join(', ');
    settingsForm.hidden = false;
    focusOn(settingsTitle);
  }

  function closeEditor() {
    settingsForm.hidden = true;
    editing = null;
  }

  async function save(event) {
    event.preventDefault();
    if (!editing) return;
    const key = editing;
    const button = settingsForm.querySelector('button[type=submit]');
    await busy(button, async () => {
      for (const input of Object.values(fields)) input.removeAttribute('aria-invalid');
      clearFormError(settingsError, fields.tools);
      const tools = list(fields.tools.value);
      const ips = list(fields.allowedIps.value);
      const settings = {
        tools: tools.length ? tools : null,
        expiresAt: fields.expiresAt.value ? new Date(fields.expiresAt.value).toISOString() : null,
        rateLimit: whole(fields.rateLimit.value),
        monthlyCreditLimit: whole(fields.monthlyCreditLimit.value),
        allowedIps: ips.length ? ips : null,
      };
      try {
        await client.updateKey(key.id, settings);
        closeEditor();
        await load();
        focusOn(element.querySelector('#keys-title'));
        announce(`Limits of key ${key.name || key.prefix} saved.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        // Mark each field the service named, and say why.
        const named = (err.errors ?? []).map((e) => e.field.split('/')[1]).filter((f) => f in fields);
        for (const f of named) fields[f].setAttribute('aria-invalid', 'true');
        showFormError(settingsError, fields[named[0] ?? 'tools'], err);
        if (!named.length) fields.tools.removeAttribute('aria-invalid');
        (fields[named[0]] ?? fields.tools).focus();
      }
    });
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
        focusOn(element.querySelector('#keys-title'));
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
  settingsForm.addEventListener('submit', save);
  cancel.addEventListener('click', closeEditor);

  return {
    element,
    load,
    close() {
      form.removeEventListener('submit', create);
      settingsForm.removeEventListener('submit', save);
      cancel.removeEventListener('click', closeEditor);
      closeEditor();
      hideSecret(secretBox);
      clearFormError(formError, nameInput);
      nameInput.value = '';
      container.replaceChildren();
    },
  };
}
