//! Billing (`/dashboard/billing`): the credit packs for sale, each bought through Stripe Checkout
//! (the page sends the browser to Stripe's hosted page, which comes back here with `?checkout=`),
//! the purchases with what refunds and disputes took back, the balance's grants, and the
//! auto-recharge settings with the card saved at checkout (billing-recharge.js). Without Stripe
//! configured the packs are listed and buying says why it cannot.
import {
  announce,
  badge,
  busy,
  clearFormError,
  dataTable,
  formatInt,
  formatPrice,
  h,
  replace,
  showFormError,
  subSection,
  time,
  viewSection,
} from './dom.js';
import { createRechargeForm } from './billing-recharge.js';
import { createGrantsList } from './grants.js';
import { createList } from './list.js';
import { createPagedList } from './paged-list.js';
import { rowButton } from './row-action.js';

/** A purchase's status: its badge's class and its label. */
const STATUSES = {
  pending: ['refunded', 'Pending'],
  paid: ['charged', 'Paid'],
  failed: ['failed', 'Failed'],
  refunded: ['refunded', 'Refunded'],
  partially_refunded: ['refunded', 'Partly refunded'],
  disputed: ['failed', 'Disputed'],
};

const lifetime = (days) => (days ? `Credits last ${formatInt(days)} days` : 'Credits never expire');

/**
 * The purchases, newest first, a page at a time: each with its pack, credits, price, status, what
 * refunds and disputes took back, and Stripe's receipt.
 * @param {{ client: import('./api.js').Client, section: HTMLElement, container: HTMLElement }} spec
 */
function createPurchasesList({ client, section, container }) {
  return createPagedList({
    section,
    container,
    what: 'purchases',
    pageSize: 10,
    fetchPage: (page) => client.purchases(page),
    emptyText: 'No purchases yet.',
    table: (items) =>
      dataTable({
        name: 'purchases',
        caption: 'Newest first. Refunds and disputes take back credits not yet spent.',
        columns: [
          'Bought',
          'Pack',
          { label: 'Credits', class: 'num' },
          { label: 'Paid', class: 'num' },
          'Status',
          { label: 'Taken back', class: 'num' },
          'Receipt',
        ],
        rows: items.map((p) => ({
          attrs: { dataset: { purchaseId: p.id } },
          cells: [
            time(p.createdAt),
            p.packName,
            formatInt(p.credits),
            formatPrice(p.amount, p.currency),
            badge(STATUSES, p.status, 'refunded'),
            formatInt(p.creditsVoided),
            p.receiptUrl
              ? h('a', { href: p.receiptUrl, rel: 'noreferrer noopener', target: '_blank' }, 'Receipt')
              : h('span', { class: 'muted' }, '–'),
          ],
        })),
      }),
  });
}

/** @param {import('./app.js').ViewContext} context */
export function createBillingView({ client }) {
  const returned = h('div', { id: 'checkout-notice', role: 'status' });
  const packsBody = h('div', { id: 'packs-body' });
  const saveCard = h('input', { id: 'save-card', type: 'checkbox', name: 'saveCard' });
  const buyError = h('p', { class: 'field-error', id: 'buy-error', role: 'alert', hidden: true });
  const purchasesBody = h('div', { id: 'purchases-body' });
  const purchasesSection = subSection('purchases', 'Purchases', purchasesBody);
  const { section: grantsSection, list: grants } = createGrantsList({
    client,
    id: 'billing-grants',
    help: 'Every grant of credits with what is left of it, and what a refund or dispute took back.',
    takenBack: true,
  });
  const recharge = createRechargeForm({ client, packs: () => packs.items() });
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
    recharge.form,
  );
  const packs = createList({
    body: packsBody,
    loadingWhat: 'credit packs',
    read: () => client.creditPacks(),
    emptyText: 'No credit packs are for sale yet.',
    table: (items) =>
      dataTable({
        name: 'packs',
        columns: ['Pack', { label: 'Credits', class: 'num' }, { label: 'Price', class: 'num' }, 'Lifetime', 'Buy'],
        rowHeader: 0,
        rows: items.map(packRow),
      }),
  });

  const purchases = createPurchasesList({ client, section: purchasesSection, container: purchasesBody });

  function showReturn(route) {
    const outcome = route?.query?.get('checkout');
    if (outcome === 'success')
      replace(
        returned,
        h('p', { class: 'notice' }, 'Thank you: your payment is being confirmed. The credits appear here as soon as Stripe confirms it.'),
      );
    else if (outcome === 'cancelled') replace(returned, h('p', { class: 'notice' }, 'Checkout cancelled: nothing was charged.'));
    else returned.replaceChildren();
  }

  function packRow(p) {
    return {
      attrs: { dataset: { packId: p.id } },
      cells: [
        p.name,
        formatInt(p.credits),
        formatPrice(p.price.amount, p.price.currency),
        lifetime(p.expiresInDays),
        rowButton({ label: 'Buy', name: `Buy ${p.name}`, focusKey: `buy-${p.id}`, kind: 'primary', onclick: (button) => buy(p, button) }),
      ],
    };
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

  return {
    element,
    async load(route) {
      showReturn(route);
      await Promise.all([packs.load().then(recharge.load), purchases.load(), grants.load()]);
    },
    close() {
      purchases.close();
      grants.close();
      packs.close();
      returned.replaceChildren();
      recharge.close();
      clearFormError(buyError, saveCard);
    },
  };
}
