//! The balance's grants as a paged table, with what is left of each: the overview shows it, and
//! Billing with what refunds and disputes took back. One table under each view's own ids.
import { dataTable, formatInt, h, help as helpText, subSection, time } from './dom.js';
import { createPagedList } from './paged-list.js';

const REASONS = {
  welcome: 'Welcome',
  purchase: 'Purchase',
  recharge: 'Auto-recharge',
  monthly_allowance: 'Monthly allowance',
  manual_adjustment: 'Adjustment',
};

function expiry(g) {
  if (g.expiredAt) return [h('span', { class: 'badge refunded' }, 'Expired'), ' ', time(g.expiredAt)];
  if (g.expiresAt) return ['Expires ', time(g.expiresAt)];
  return h('span', { class: 'muted' }, 'Never expires');
}

/**
 * The section (`id`, its title `${id}-title`, its body `${id}-body`) and its paged list.
 * @param {{ client: import('./api.js').Client, id: string, help: string, caption?: string, takenBack?: boolean }} options
 */
export function createGrantsList({ client, id, help, caption, takenBack = false }) {
  const body = h('div', { id: `${id}-body` });
  const section = subSection(id, 'Grants', helpText(help), body);
  const list = createPagedList({
    section,
    container: body,
    what: 'grants',
    pageSize: 10,
    fetchPage: (page) => client.grants(page),
    emptyText: 'No credits granted yet.',
    table: (items) =>
      dataTable({
        name: id,
        caption,
        columns: [
          'Granted',
          'Reason',
          { label: 'Amount', class: 'num' },
          { label: 'Left', class: 'num' },
          ...(takenBack ? [{ label: 'Taken back', class: 'num' }] : []),
          'Expiry',
        ],
        rows: items.map((g) => ({
          attrs: { dataset: { grantId: g.id } },
          cells: [
            time(g.createdAt),
            REASONS[g.reason] ?? g.reason,
            formatInt(g.amount),
            formatInt(g.remaining + g.held),
            ...(takenBack ? [formatInt(g.voided ?? 0)] : []),
            expiry(g),
          ],
        })),
      }),
  });
  return { section, list };
}
