//! Recent asynchronous calls (made with `Prefer: respond-async`): tool, request id, status and
//! what each was charged, newest first; paged with the API's cursor.
import { credits, dataTable, h, time } from './dom.js';
import { createPagedList } from './paged-list.js';

const STATUS = { running: ['refunded', 'Running'], succeeded: ['active', 'Succeeded'], failed: ['failed', 'Failed'] };

export function createCallsView({ client }) {
  return createPagedList({
    section: document.getElementById('async-calls'),
    container: document.getElementById('async-calls-body'),
    what: 'asynchronous calls',
    pageSize: 10,
    fetchPage: (page) => client.asyncCalls(page),
    emptyText: 'No asynchronous calls yet. Send Prefer: respond-async with a tool call to make one.',
    moreLabel: 'Load more asynchronous calls',
    focusKey: 'more-async-calls',
    table: (items) =>
      dataTable({
        attrs: { class: 'async-calls-table', 'aria-labelledby': 'async-calls-title' },
        columns: ['Started', 'Tool', 'Request id', 'Status', { label: 'Charged', class: 'num' }],
        rows: items.map((c) => {
          const [badge, label] = STATUS[c.status] ?? ['failed', c.status];
          return {
            attrs: { dataset: { requestId: c.requestId } },
            cells: [
              time(c.createdAt),
              c.tool,
              h('code', { class: 'request-id' }, c.requestId),
              [h('span', { class: `badge ${badge}` }, label), c.code ? h('span', { class: 'muted small' }, ` ${c.code}`) : null],
              c.status === 'running' ? h('span', { class: 'muted' }, '–') : credits(c.charged),
            ],
          };
        }),
      }),
  });
}
