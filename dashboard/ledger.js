//! The ledger's rows (one per call, refund or expiry) as a table, for the overview's latest calls
//! and the usage view's list of calls alike.
import { dataTable, formatInt, h, time } from './dom.js';

const OUTCOMES = { charged: 'Charged', refunded: 'Refunded', expired: 'Expired' };

/**
 * @param {any[]} rows ledger items `{ at, tool, credits, outcome, requestId }`, newest first
 * @param {{ class: string, labelledBy: string }} options the table's class and the heading that names it
 */
export function ledgerTable(rows, options) {
  return dataTable({
    attrs: { class: options.class, 'aria-labelledby': options.labelledBy },
    caption: 'Newest first. Each call has a request id: quote it when you ask about a call.',
    columns: ['Time', 'Tool', { label: 'Credits', class: 'num' }, 'Outcome', 'Request id'],
    rows: rows.map((item) => ({
      cells: [
        time(item.at),
        item.tool ?? h('span', { class: 'muted' }, 'Grant expired'),
        formatInt(item.credits),
        h('span', { class: `badge ${item.outcome}` }, OUTCOMES[item.outcome] ?? item.outcome),
        h('code', { class: 'request-id' }, item.requestId),
      ],
    })),
  });
}
