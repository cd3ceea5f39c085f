//! The API keys page's editor of one key's limits: tools, expiry, calls per second, credits per
//! month and allowed addresses, an empty field meaning no limit; each field the service refuses is
//! marked and the reason said.
import { clearFormError, focusOn, h } from './dom.js';
import { labelled, sharedErrorLine, whenSent } from './forms.js';

/** An input of the editor; `hint` follows the label in a lighter type. */
function limitField(id, name, label, hint, attrs) {
  return labelled({ id, label, hint, control: h('input', { id, name, ...attrs, 'aria-describedby': 'key-settings-error' }) });
}

/** A datetime-local value (local time, to the minute) for an ISO time. */
const toLocalInput = (iso) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const list = (text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const whole = (text) => (text.trim() === '' ? null : Number(text));

/**
 * @param {{ client: import('./api.js').Client, saved: (key: any) => Promise<void> }} deps
 * `saved(key)` runs once the service took the limits of `key` (the editor is closed by then).
 */
export function createLimitsEditor({ client, saved }) {
  const settingsError = h('p', { class: 'field-error', id: 'key-settings-error', role: 'alert', hidden: true });
  const settingsTitle = h('h2', { id: 'key-settings-title', tabindex: '-1' }, 'Limits of key');
  const cancel = h('button', { type: 'button', id: 'key-settings-cancel', onclick: () => close() }, 'Cancel');
  const form = h(
    'form',
    {
      id: 'key-settings',
      class: 'panel-form',
      novalidate: true,
      hidden: true,
      'aria-labelledby': 'key-settings-title',
      onsubmit: whenSent(() => save()),
    },
    settingsTitle,
    h('p', { class: 'help' }, 'Leave a field empty for no limit. A change is in force within a second.'),
    limitField('key-tools', 'tools', 'Tools or groups', '(comma-separated, e.g. hash-text, network)', {
      type: 'text',
      autocomplete: 'off',
    }),
    limitField('key-expires', 'expiresAt', 'Expires', '(your local time)', { type: 'datetime-local' }),
    limitField('key-rate', 'rateLimit', 'Calls per second', null, { type: 'number', min: '1', step: '1' }),
    limitField('key-monthly', 'monthlyCreditLimit', 'Credits per month', '(UTC calendar month)', { type: 'number', min: '1', step: '1' }),
    limitField('key-ips', 'allowedIps', 'Allowed addresses', '(CIDRs, comma-separated, e.g. 203.0.113.0/24)', {
      type: 'text',
      autocomplete: 'off',
    }),
    settingsError,
    h('button', { type: 'submit', class: 'primary' }, 'Save limits'),
    ' ',
    cancel,
  );
  const field = (name) => form.querySelector(`[name="${name}"]`);
  const fields = {
    tools: field('tools'),
    expiresAt: field('expiresAt'),
    rateLimit: field('rateLimit'),
    monthlyCreditLimit: field('monthlyCreditLimit'),
    allowedIps: field('allowedIps'),
  };
  const problems = sharedErrorLine({ error: settingsError, fields, first: 'tools' });
  /** The key whose limits are being edited. */
  let editing = null;

  function edit(key) {
    editing = key;
    clearFormError(settingsError, fields.tools);
    settingsTitle.textContent = `Limits of key ${key.name || `${key.prefix}…`}`;
    fields.tools.value = (key.tools ?? []).join(', ');
    fields.expiresAt.value = toLocalInput(key.expiresAt);
    fields.rateLimit.value = key.rateLimit ?? '';
    fields.monthlyCreditLimit.value = key.monthlyCreditLimit ?? '';
    fields.allowedIps.value = (key.allowedIps ?? []).join(', ');
    form.hidden = false;
    focusOn(settingsTitle);
  }

  function close() {
    form.hidden = true;
    editing = null;
  }

  async function save() {
    if (!editing) return;
    const key = editing;
    problems.clear();
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
      close();
      await saved(key);
    } catch (err) {
      if (err.name !== 'AbortError') problems.show(err);
    }
  }

  return { form, edit, close };
}
