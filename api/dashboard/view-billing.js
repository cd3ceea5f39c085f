//! Billing (`/dashboard/billing`): the credit packs for sale, each bought through Stripe Checkout
//! (the page sends the browser to Stripe's hosted page, which comes back here with `?checkout=`),
//! the purchases with what refunds and disputes took back, the balance's grants, and the
//! auto-recharge settings with the card saved at checkout. Without Stripe configured the packs are
//! listed and buying says why it cannot.
import { announce, busy, clearFormError, credits, dataTable, empty, errorBox, formatInt, h, loading, replace, showFormError, time, viewSection } from './dom.js';
import { createGrantsList } from './grants.js';
import { createPagedList } from './paged-list.js';

const STATUSES = {
  pending: ['Pending', 'refunded'],
  paid: ['Paid', 'charged'],
  failed: ['Failed', 'failed'],
  refunded: ['Refunded', 'refunded'],
  partially_refunded: ['Partly refunded', 'refunded'],
  disputed: ['Disputed', 'failed'],
};

/** A price in minor units as the currency writes it (`$15.00`, `¥1,500`). */
export function formatPrice(amount, currency) {
  const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

const lifetime = (days) => (days ? `Credits last ${formatInt(days)} days` : 'Credits never expire');

/** @param {import('./app.js').ViewContext} context */
export function createBillingView({ client }) {
  const returned = h('div', { id: 'checkout-notice', role: 'status' });
  const packsBody = h('div', { id: 'packs-body' });
  const saveCard = h('input', { id: 'save-card', type: 'checkbox', name: 'saveCard' });
  const buyError = h('p', { class: 'field-error', id: 'buy-error', role: 'alert', hidden: true });
  const purchasesBody = h('div', { id: 'purchases-body' });
  const purchasesSection = h('section', { id: 'purchases', 'aria-labelledby': 'purchases-title' }, h('h2', { id: 'purchases-title', tabindex: '-1' }, 'Purchases'), purchasesBody);
  const { section: grantsSection, list: grants } = createGrantsList({
    client,
    id: 'billing-grants',
    help: 'Every grant of credits with what is left of it, and what a refund or dispute took back.',
    takenBack: true,
  });
  const rechargeStatus = h('div', { id: 'recharge-status' });
  const rechargeError = h('p', { class: 'field-error', id: 'recharge-error', role: 'alert', hidden: true });
  const field = (id, label, input) => h('div', { class: 'field' }, h('label', { for: id }, label), input);
  const inputs = {
    enabled: h('input', { id: 'recharge-enabled', name: 'enabled', type: 'checkbox', 'aria-describedby': 'recharge-error' }),
    packId: h('select', { id: 'recharge-pack', name: 'packId', 'aria-describedby': 'recharge-error' }),
    threshold: h('input', { id: 'recharge-threshold', name: 'threshold', type: 'number', min: '1', step: '1', required: true, 'aria-describedby': 'recharge-error' }),
    monthlyLimit: h('input', { id: 'recharge-limit', name: 'monthlyLimit', type: 'number', min: '1', max: '100', step: '1', required: true, 'aria-describedby': 'recharge-error' }),
  };
  const rechargeForm = h(
    'form',
    { id: 'recharge-form', class: 'panel-form', novalidate: true, 'aria-labelledby': 'recharge-title' },
    h('h2', { id: 'recharge-title', tabindex: '-1' }, 'Auto-recharge'),
    h('p', { class: 'help' }, 'When a call takes the balance below the threshold, one recharge buys the pack with your saved card. Calls never wait for it; three failed recharges in a row turn it off.'),
    rechargeStatus,
    h('div', { class: 'field checkbox' }, h('label', { for: 'recharge-enabled' }, inputs.enabled, ' Recharge automatically')),
    field('recharge-pack', 'Pack to buy', inputs.packId),
    field('recharge-threshold', 'Below this many credits', inputs.threshold),
    field('recharge-limit', 'At most this many recharges a month', inputs.monthlyLimit),
    rechargeError,
    h('button', { type: 'submit', class: 'primary' }, 'Save auto-recharge'),
  );
  const element = viewSection(
    'billing',
    'Billing',
    returned,
    h(
      'section',
      { id: 'packs', 'aria-labelledby': 'packs-title' },
      h('h2', { id: 'packs-title' }, 'Buy credits'),
      h('p', { class: 'help' }, 'Pay with Stripe; the credits arrive as soon as Stripe confirms the payment.'),
      h('div', { class: 'field checkbox' }, h('label', { for: 'save-card' }, saveCard, ' Save the card for automatic recharges')),
      buyError,
      packsBody,
    ),
    purchasesSection,
    grantsSection,
    rechargeForm,
  );
  let packs = null;

  const purchases = createPagedList({
    section: purchasesSection,
    container: purchasesBody,
    what: 'purchases',
    pageSize: 10,
    fetchPage: (page) => client.purchases(page),
    emptyText: 'No purchases yet.',
    moreLabel: 'Load more purchases',
    focusKey: 'more-purchases',
    table: (items) =>
      dataTable({
        attrs: { class: 'purchases-table', 'aria-labelledby': 'purchases-title' },
        caption: 'Newest first. Refunds and disputes take back credits not yet spent.',
        columns: ['Bought', 'Pack', { label: 'Credits', class: 'num' }, { label: 'Paid', class: 'num' }, 'Status', { label: 'Taken back', class: 'num' }, 'Receipt'],
        rows: items.map((p) => {
          const [label, badge] = STATUSES[p.status] ?? [p.status, 'refunded'];
          return {
            attrs: { dataset: { purchaseId: p.id } },
            cells: [
              time(p.createdAt),
              p.packName,
              formatInt(p.credits),
              formatPrice(p.amount, p.currency),
              h('span', { class: `badge ${badge}` }, label),
              formatInt(p.creditsVoided),
              p.receiptUrl ? h('a', { href: p.receiptUrl, rel: 'noreferrer noopener', target: '_blank' }, 'Receipt') : h('span', { class: 'muted' }, '–'),
            ],
          };
        }),
      }),
  });


  function showReturn(route) {
    const outcome = route?.query?.get('checkout');
    if (outcome === 'success') replace(returned, h('p', { class: 'notice' }, 'Thank you: your payment is being confirmed. The credits appear here as soon as Stripe confirms it.'));
    else if (outcome === 'cancelled') replace(returned, h('p', { class: 'notice' }, 'Checkout cancelled: nothing was charged.'));
    else returned.replaceChildren();
  }

  async function loadPacks() {
    if (packs === null) replace(packsBody, loading('credit packs'));
    try {
      packs = await client.creditPacks();
      renderPacks();
    } catch (err) {
      if (err.name === 'AbortError') return;
      packs = null;
      replace(packsBody, errorBox(err, { what: 'the credit packs', retry: () => loadPacks() }));
    }
  }

  function renderPacks() {
    if (packs.length === 0) {
      replace(packsBody, empty('No credit packs are for sale yet.'));
      return;
    }
    replace(
      packsBody,
      dataTable({
        attrs: { class: 'packs-table', 'aria-labelledby': 'packs-title' },
        columns: ['Pack', { label: 'Credits', class: 'num' }, { label: 'Price', class: 'num' }, 'Lifetime', 'Buy'],
        rowHeader: 0,
        rows: packs.map((p) => ({
          attrs: { dataset: { packId: p.id } },
          cells: [
            p.name,
            formatInt(p.credits),
            formatPrice(p.price.amount, p.price.currency),
            lifetime(p.expiresInDays),
            h('button', { type: 'button', class: 'primary', 'aria-label': `Buy ${p.name}`, 'data-focus-key': `buy-${p.id}`, onclick: (e) => buy(p, e.currentTarget) }, 'Buy'),
          ],
        })),
      }),
    );
  }

  async function buy(pack, button) {
    await busy(button, async () => {
      clearFormError(buyError, saveCard);
      try {
        const session = await client.checkout(pack.id, saveCard.checked);
        announce(`Opening Stripe Checkout for ${pack.name}.`);
        // Stripe's hosted page takes the card; it sends the browser back to this view.
        window.location.assign(session.url);
      } catch (err) {
        if (err.name === 'AbortError') return;
        showFormError(buyError, saveCard, err);
        saveCard.removeAttribute('aria-invalid');
        button.focus();
      }
    });
  }

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
      (packs ?? []).map((p) => h('option', { value: p.id, selected: p.id === settings.packId }, `${p.name} (${credits(p.credits)}, ${formatPrice(p.price.amount, p.price.currency)})`)),
    );
    inputs.enabled.checked = settings.enabled;
    inputs.threshold.value = settings.threshold ?? '';
    inputs.monthlyLimit.value = settings.monthlyLimit ?? '';
    const card = settings.paymentMethod;
    const last = settings.lastRecharge;
    replace(
      rechargeStatus,
      h(
        'dl',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('dt', {}, 'Card'), h('dd', { id: 'recharge-card' }, card ? `${card.brand} •••• ${card.last4}` : 'None saved')),
        h('div', { class: 'stat' }, h('dt', {}, 'This month'), h('dd', { id: 'recharge-count' }, `${formatInt(settings.rechargesThisMonth)} ${settings.rechargesThisMonth === 1 ? 'recharge' : 'recharges'}`)),
        h('div', { class: 'stat' }, h('dt', {}, 'Last recharge'), h('dd', { id: 'recharge-last' }, last ? [last.status, last.reason ? ` (${last.reason})` : '', ', ', time(last.at)] : 'None')),
      ),
      card ? null : h('p', { class: 'muted small' }, 'To recharge automatically, buy a pack with “Save the card for automatic recharges” checked.'),
      settings.disabledReason ? h('p', { class: 'notice', id: 'recharge-disabled' }, `Turned off: ${settings.disabledReason}.`) : null,
    );
  }

  async function saveRecharge(event) {
    event.preventDefault();
    const button = rechargeForm.querySelector('button[type=submit]');
    await busy(button, async () => {
      for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
      clearFormError(rechargeError, inputs.threshold);
      const whole = (value) => (value.trim() === '' ? null : Number(value));
      try {
        const settings = await client.setAutoRecharge({
          enabled: inputs.enabled.checked, packId: inputs.packId.value, threshold: whole(inputs.threshold.value), monthlyLimit: whole(inputs.monthlyLimit.value),
        });
        renderRecharge(settings);
        announce(settings.enabled ? 'Auto-recharge is on.' : 'Auto-recharge is off.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        // Mark each field the service named, and say why.
        const named = (err.errors ?? []).map((e) => e.field.split('/')[1]).filter((f) => f in inputs);
        for (const f of named) inputs[f].setAttribute('aria-invalid', 'true');
        showFormError(rechargeError, inputs[named[0] ?? 'threshold'], err);
        if (!named.length) inputs.threshold.removeAttribute('aria-invalid');
        (inputs[named[0]] ?? inputs.threshold).focus();
      }
    });
  }
  rechargeForm.addEventListener('submit', saveRecharge);

  return {
    element,
    async load(route) {
      showReturn(route);
      await Promise.all([loadPacks().then(loadRecharge), purchases.load(), grants.load()]);
    },
    close() {
      rechargeForm.removeEventListener('submit', saveRecharge);
      purchases.close();
      grants.close();
      packs = null;
      returned.replaceChildren();
      packsBody.replaceChildren();
      rechargeStatus.replaceChildren();
      clearFormError(buyError, saveCard);
      clearFormError(rechargeError, inputs.threshold);
    },
  };
}
