//! API keys (`/dashboard/keys`): create (the key is shown once, with a copy button), list with
//! prefix, creation, last use and limits, edit a key's limits (tools, expiry, rate, monthly
//! credits, addresses; keys-limits.js), and revoke after confirmation.
import { announce, clearFormError, code, credits, dataTable, focusOn, formatInt, h, help, time, viewSection } from './dom.js';
import { field, postForm } from './forms.js';
import { createLimitsEditor } from './keys-limits.js';
import { createList } from './list.js';
import { confirmedRowAction, rowButton } from './row-action.js';
import { createShownOnce, hideSecret } from './secret.js';

/** What limits a key, in words; the month's spending always. */
function limitsText(key) {
  const parts = [];
  if (key.tools) parts.push(`Tools: ${key.tools.join(', ')}`);
  if (key.expiresAt) parts.push(h('span', {}, 'Expires ', time(key.expiresAt)));
  if (key.rateLimit) parts.push(`${key.rateLimit}/s`);
  parts.push(
    key.monthlyCreditLimit
      ? `${credits(key.spentThisMonth)} of ${formatInt(key.monthlyCreditLimit)} this month`
      : `${credits(key.spentThisMonth)} this month`,
  );
  if (key.allowedIps) parts.push(`From ${key.allowedIps.join(', ')}`);
  return h('ul', { class: 'key-limits small' }, ...parts.map((p) => h('li', {}, p)));
}

/**
 * A key's row of the table, with its buttons when it works: edit its limits, revoke it.
 * @param {{ edit: (key: object) => void }} limits
 * @param {(key: object, button: HTMLElement) => Promise<void>} revoke
 */
function keyRow(key, limits, revoke) {
  const label = key.name || key.prefix;
  return {
    attrs: { dataset: { keyId: key.id }, class: key.revokedAt ? 'revoked' : null },
    cells: [
      key.name || h('span', { class: 'muted' }, 'Unnamed'),
      h('code', { class: 'key-prefix' }, `${key.prefix}…`),
      time(key.createdAt),
      [time(key.lastUsedAt), key.lastUsedIp ? h('span', { class: 'muted small' }, ` from ${key.lastUsedIp}`) : null],
      limitsText(key),
      key.revokedAt
        ? [h('span', { class: 'badge revoked' }, 'Revoked'), ' ', time(key.revokedAt)]
        : h('span', { class: 'badge active' }, 'Active'),
      key.revokedAt
        ? null
        : [
            rowButton({
              label: 'Edit limits',
              name: `Edit limits of key ${label}`,
              focusKey: `limits-${key.id}`,
              onclick: () => limits.edit(key),
            }),
            ' ',
            rowButton({
              label: 'Revoke',
              name: `Revoke key ${label}`,
              focusKey: `revoke-${key.id}`,
              kind: 'danger',
              onclick: (button) => revoke(key, button),
            }),
          ],
    ],
  };
}

/** @param {import('./app.js').ViewContext} context */
export function createKeysView({ client }) {
  const container = h('div', { id: 'keys-body' });
  const secretBox = h('div', { id: 'key-secret' });
  const name = field({
    id: 'key-name',
    label: 'Name',
    optional: true,
    attrs: { name: 'name', type: 'text', maxlength: '100', autocomplete: 'off' },
  });
  const { input: nameInput, error: formError } = name;
  const form = postForm(
    { id: 'key-form', class: 'inline-form', send: () => create() },
    name.element,
    h('button', { type: 'submit', class: 'primary' }, 'Create key'),
  );
  const limits = createLimitsEditor({
    client,
    saved: async (key) => {
      await list.load();
      focusOn(element.querySelector('#keys-title'));
      announce(`Limits of key ${key.name || key.prefix} saved.`);
    },
  });
  const element = viewSection(
    'keys',
    'API keys',
    help('Keys call the tools (', code('Authorization: Bearer utk_…'), '). A key is shown once, when it is created.'),
    h('section', { 'aria-labelledby': 'key-create-title' }, h('h2', { id: 'key-create-title' }, 'Create a key'), form, secretBox),
    h('section', { 'aria-labelledby': 'key-list-title' }, h('h2', { id: 'key-list-title' }, 'Your keys'), container),
    limits.form,
  );
  const list = createList({
    body: container,
    loadingWhat: 'API keys',
    read: () => client.keys(),
    emptyText: 'No API keys yet. Create one to call the tools.',
    table: (keys) => {
      const active = keys.filter((k) => !k.revokedAt).length;
      return [
        h('p', { class: 'muted small', id: 'keys-count' }, `${active} active, ${keys.length - active} revoked.`),
        dataTable({
          name: 'keys',
          attrs: { 'aria-describedby': 'keys-count' },
          columns: ['Name', 'Key', 'Created', 'Last used', 'Limits', 'Status', 'Actions'],
          rowHeader: 0,
          rows: keys.map((key) => keyRow(key, limits, revoke)),
        }),
      ];
    },
  });

  function revoke(key, button) {
    const label = key.name ? `“${key.name}” (${key.prefix}…)` : `${key.prefix}…`;
    return confirmedRowAction({
      button,
      confirm: {
        title: `Revoke key ${label}?`,
        body: 'Calls made with this key will be refused with 401 Unauthorized within a second. This cannot be undone.',
        confirmLabel: 'Revoke key',
      },
      act: () => client.revokeKey(key.id),
      reload: list.load,
      announcement: `Key ${label} revoked.`,
    });
  }

  function create() {
    return createShownOnce({
      box: secretBox,
      field: name,
      make: async () => {
        const key = await client.createKey(nameInput.value.trim() || undefined);
        return {
          shown: {
            title: key.name ? `New API key “${key.name}”` : 'New API key',
            label: 'API key',
            copyLabel: 'Copy key',
            note: 'Copy this key now: it is shown only once and cannot be shown again. If you lose it, create a new key and revoke this one.',
            secret: key.key,
          },
          announcement: 'API key created. Copy it now: it is shown only once.',
        };
      },
      reload: list.load,
    });
  }

  return {
    element,
    load: list.load,
    close() {
      limits.close();
      hideSecret(secretBox);
      clearFormError(formError, nameInput);
      nameInput.value = '';
      list.close();
    },
  };
}
