//! Recent asynchronous calls (made with `Prefer: respond-async`): tool, request id, status and
//! what each was charged, newest first; paged with the API's cursor. A part of the usage view.
import { badge, code, credits, dataTable, h, help, subSection, time } from './dom.js';
import { createPagedList } from './paged-list.js';

const STATUS = { running: ['refunded', 'Running'], succeeded: ['active', 'Succeeded'], failed: ['failed', 'Failed'] };

export function createCallsList({ client }) {
  const container = h('div', { id: 'async-calls-body' });
  const element = subSection(
    'async-calls',
    'Asynchronous calls',
    help(
      'Calls made with ',
      code('Prefer: respond-async'),
      ": read each one's output with ",
      code('GET /api/v1/calls/{requestId}'),
      ' within 24 hours of its end.',
    ),
    container,
  );
  const list = createPagedList({
    section: element,
    container,
    what: 'asynchronous calls',
    pageSize: 10,
    fetchPage: (page) => client.asyncCalls(page),
    emptyText: 'No asynchronous calls yet. Send Prefer: respond-async with a tool call to make one.',
    table: (items) =>
      dataTable({
        name: 'async-calls',
        columns: ['Started', 'Tool', 'Request id', 'Status', { label: 'Charged', class: 'num' }],
        rows: items.map((c) => ({
          attrs: { dataset: { requestId: c.requestId } },
          cells: [
            time(c.createdAt),
            c.tool,
            h('code', { class: 'request-id' }, c.requestId),
            [badge(STATUS, c.status, 'failed'), c.code ? h('span', { class: 'muted small' }, ` ${c.code}`) : null],
            c.status === 'running' ? h('span', { class: 'muted' }, '–') : credits(c.charged),
          ],
        })),
      }),
  });
  return { element, load: list.load, close: list.close };
}
