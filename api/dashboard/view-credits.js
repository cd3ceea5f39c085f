//! Plan and credits: the account's plan, its next monthly allowance, every grant with what is left
//! of it and when it expires (paged with the API's cursor), and the usage of a month as CSV.
import { $, announce, busy, credits, dataTable, errorBox, formatInt, h, replace, time } from './dom.js';
import { createPagedList } from './paged-list.js';

const REASONS = { welcome: 'Welcome', purchase: 'Purchase', monthly_allowance: 'Monthly allowance', manual_adjustment: 'Adjustment' };
const ROLLOVER = { none: 'the unused part lapses when the next one comes', keep: 'the unused part is kept' };

/** `YYYY-MM` of a date, UTC (the periods and the usage are in UTC). */
const monthOf = (d) => d.toISOString().slice(0, 7);

function grantState(g) {
  if (g.expiredAt) return [h('span', { class: 'badge refunded' }, 'Expired'), ' ', time(g.expiredAt)];
  if (g.expiresAt) return ['Expires ', time(g.expiresAt)];
  return h('span', { class: 'muted' }, 'Never expires');
}

export function createCreditsView({ client }) {
  const planBody = document.getElementById('plan-body');
  const grants = createPagedList({
    section: document.getElementById('credits'),
    container: document.getElementById('grants-body'),
    what: 'grants',
    pageSize: 10,
    fetchPage: (page) => client.grants(page),
    emptyText: 'No credits granted yet.',
    moreLabel: 'Load more grants',
    focusKey: 'more-grants',
    table: (items) =>
      dataTable({
        attrs: { class: 'grants-table', 'aria-labelledby': 'grants-title' },
        caption: 'Newest first. Calls spend the grant that expires first.',
        columns: ['Granted', 'Reason', { label: 'Amount', class: 'num' }, { label: 'Left', class: 'num' }, 'Expiry'],
        rows: items.map((g) => ({
          attrs: { dataset: { grantId: g.id } },
          cells: [time(g.createdAt), REASONS[g.reason] ?? g.reason, formatInt(g.amount), formatInt(g.remaining + g.held), grantState(g)],
        })),
      }),
  });

  /** The plan part, from the account the usage view read (no second request). */
  function showPlan(account) {
    if (!account) return;
    const plan = account.plan;
    const next = account.nextAllowance;
    replace(
      planBody,
      h(
        'dl',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('dt', {}, 'Plan'), h('dd', { id: 'plan-name' }, plan ? plan.name : 'None')),
        h('div', { class: 'stat' }, h('dt', {}, 'Monthly allowance'), h('dd', { id: 'plan-allowance' }, credits(plan?.monthlyAllowance ?? 0))),
        h('div', { class: 'stat' }, h('dt', {}, 'Next allowance'), h('dd', { id: 'next-allowance' }, next ? [credits(next.amount), h('span', { class: 'small' }, ' on '), time(next.at)] : 'None')),
      ),
      plan && plan.monthlyAllowance > 0
        ? h('p', { class: 'muted small', id: 'plan-note' }, `Granted each month on the day you joined the plan (the last day of shorter months); ${ROLLOVER[plan.rollover] ?? ''}.`)
        : null,
    );
  }

  /** Downloads the chosen month's usage as CSV, as the API writes it. */
  async function exportMonth(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const button = form.querySelector('button[type=submit]');
    const month = $('export-month').value || monthOf(new Date());
    await busy(button, async () => {
      form.querySelector('.error-box')?.remove();
      const from = new Date(`${month}-01T00:00:00Z`);
      const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
      try {
        const { text, filename } = await client.usageCsv({ from: from.toISOString(), to: to.toISOString() });
        const link = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: filename, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
        announce(`Usage of ${month} downloaded as ${filename}.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        form.append(errorBox(err, { what: `the usage of ${month}` }));
      }
    });
  }

  const form = $('export-form');
  const monthInput = $('export-month');
  monthInput.value = monthOf(new Date());
  monthInput.max = monthOf(new Date());
  form.addEventListener('submit', exportMonth);

  return {
    showPlan,
    load: () => grants.load(),
    close() {
      grants.close();
      planBody.replaceChildren();
      form.removeEventListener('submit', exportMonth);
    },
  };
}
