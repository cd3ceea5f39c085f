//! The Billing page's auto-recharge: on or off, the pack each recharge buys, the threshold and the
//! monthly cap, with the card saved at checkout, this month's count and the last recharge; each
//! field the service refuses is marked and the reason said.
import { announce, clearFormError, credits, errorBox, formatInt, formatPrice, h, replace, stats, time } from './dom.js';
import { labelled, sharedErrorLine, whenSent } from './forms.js';

/**
 * @param {{ client: import('./api.js').Client, packs: () => any[] | null }} deps
 * `packs`: the packs for sale as last read, the choices of the pack to buy.
 */
export function createRechargeForm({ client, packs }) {
  const rechargeStatus = h('div', { id: 'recharge-status' });
  const rechargeError = h('p', { class: 'field-error', id: 'recharge-error', role: 'alert', hidden: true });
  const inputs = {
    enabled: h('input', { id: 'recharge-enabled', name: 'enabled', type: 'checkbox', 'aria-describedby': 'recharge-error' }),
    packId: h('select', { id: 'recharge-pack', name: 'packId', 'aria-describedby': 'recharge-error' }),
    threshold: h('input', {
      id: 'recharge-threshold',
      name: 'threshold',
      type: 'number',
      min: '1',
      step: '1',
      required: true,
      'aria-describedby': 'recharge-error',
    }),
    monthlyLimit: h('input', {
      id: 'recharge-limit',
      name: 'monthlyLimit',
      type: 'number',
      min: '1',
      max: '100',
      step: '1',
      required: true,
      'aria-describedby': 'recharge-error',
    }),
  };
  const problems = sharedErrorLine({ error: rechargeError, fields: inputs, first: 'threshold' });
  const form = h(
    'form',
    {
      id: 'recharge-form',
      class: 'panel-form',
      novalidate: true,
      'aria-labelledby': 'recharge-title',
      onsubmit: whenSent(() => saveRecharge()),
    },
    h('h2', { id: 'recharge-title', tabindex: '-1' }, 'Auto-recharge'),
    h(
      'p',
      { class: 'help' },
      'When a call takes the balance below the threshold, one recharge buys the pack with your saved card. Calls never wait for it; three failed recharges in a row turn it off.',
    ),
    rechargeStatus,
    h('div', { class: 'field checkbox' }, h('label', { for: 'recharge-enabled' }, inputs.enabled, ' Recharge automatically')),
    labelled({ id: 'recharge-pack', label: 'Pack to buy', control: inputs.packId }),
    labelled({ id: 'recharge-threshold', label: 'Below this many credits', control: inputs.threshold }),
    labelled({ id: 'recharge-limit', label: 'At most this many recharges a month', control: inputs.monthlyLimit }),
    rechargeError,
    h('button', { type: 'submit', class: 'primary' }, 'Save auto-recharge'),
  );

  async function loadRecharge() {
    try {
      const settings = await client.autoRecharge();
      renderRecharge(settings);
    } catch (err) {
      if (err.name === 'AbortError') return;
      replace(rechargeStatus, errorBox(err, { what: 'the auto-recharge settings', retry: () => loadRecharge() }));
    }
  }

  function renderRecharge(settings) {
    replace(
      inputs.packId,
      (packs() ?? []).map((p) =>
        h(
          'option',
          { value: p.id, selected: p.id === settings.packId },
          `${p.name} (${credits(p.credits)}, ${formatPrice(p.price.amount, p.price.currency)})`,
        ),
      ),
    );
    inputs.enabled.checked = settings.enabled;
    inputs.threshold.value = settings.threshold ?? '';
    inputs.monthlyLimit.value = settings.monthlyLimit ?? '';
    const card = settings.paymentMethod;
    const last = settings.lastRecharge;
    replace(
      rechargeStatus,
      stats(
        ['Card', 'recharge-card', card ? `${card.brand} •••• ${card.last4}` : 'None saved'],
        [
          'This month',
          'recharge-count',
          `${formatInt(settings.rechargesThisMonth)} ${settings.rechargesThisMonth === 1 ? 'recharge' : 'recharges'}`,
        ],
        ['Last recharge', 'recharge-last', last ? [last.status, last.reason ? ` (${last.reason})` : '', ', ', time(last.at)] : 'None'],
      ),
      card
        ? null
        : h('p', { class: 'muted small' }, 'To recharge automatically, buy a pack with “Save the card for automatic recharges” checked.'),
      settings.disabledReason ? h('p', { class: 'notice', id: 'recharge-disabled' }, `Turned off: ${settings.disabledReason}.`) : null,
    );
  }

  async function saveRecharge() {
    problems.clear();
    const whole = (value) => (value.trim() === '' ? null : Number(value));
    try {
      const settings = await client.setAutoRecharge({
        enabled: inputs.enabled.checked,
        packId: inputs.packId.value,
        threshold: whole(inputs.threshold.value),
        monthlyLimit: whole(inputs.monthlyLimit.value),
      });
      renderRecharge(settings);
      announce(settings.enabled ? 'Auto-recharge is on.' : 'Auto-recharge is off.');
    } catch (err) {
      if (err.name !== 'AbortError') problems.show(err);
    }
  }

  return {
    form,
    load: loadRecharge,
    close() {
      rechargeStatus.replaceChildren();
      clearFormError(rechargeError, inputs.threshold);
    },
  };
}
