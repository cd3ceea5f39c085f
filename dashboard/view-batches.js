//! Batches (`/dashboard/batches`): the account's batches, newest first: tool, a progress bar of the items that ended, the counts,
//! what was charged, and a Cancel button (after confirmation) while one runs or waits for credits.
//! Paged with the API's cursor; a batch still running is read again every few seconds.
import { confirmAction } from './dialogs.js';
import { announce, busy, credits, dataTable, focusOn, h, problemText, time, viewSection } from './dom.js';
import { createPagedList } from './paged-list.js';

const STATUS = {
  running: ['refunded', 'Running'],
  paused: ['failed', 'Paused for credits'],
  completed: ['active', 'Completed'],
  cancelled: ['revoked', 'Cancelled'],
};
/** How often a list with a running batch is read again. */
const FOLLOW_MS = 3_000;

/** @param {import('./app.js').ViewContext} context */
export function createBatchesView({ client }) {
  let timer = null;
  /** Whether the view is on screen: only then is a running batch followed. */
  let onScreen = false;
  const container = h('div', { id: 'batches-body' });
  const element = viewSection(
    'batches',
    'Batches',
    h(
      'p',
      { class: 'help' },
      'Many calls of one tool made with ',
      h('code', {}, 'POST /api/v1/batches'),
      ': each item is charged only if it succeeds. Read the items with ',
      h('code', {}, 'GET /api/v1/batches/{id}/items'),
      '.',
    ),
    container,
  );
  const list = createPagedList({
    section: element,
    container,
    what: 'batches',
    pageSize: 10,
    fetchPage: async (page) => {
      const answer = await client.batches(page);
      follow(answer.items.some((b) => b.completedAt === null));
      return answer;
    },
    emptyText: 'No batches yet. POST /api/v1/batches with a tool and its items to make one.',
    moreLabel: 'Load more batches',
    focusKey: 'more-batches',
    table: (items) =>
      dataTable({
        attrs: { class: 'batches-table', 'aria-labelledby': 'batches-title' },
        columns: ['Made', 'Tool', 'Batch id', 'Status', 'Progress', 'Counts', { label: 'Charged', class: 'num' }, 'Actions'],
        rows: items.map(row),
      }),
  });

  function row(b) {
    const [badge, label] = STATUS[b.status] ?? ['failed', b.status];
    const done = b.counts.succeeded + b.counts.failed + b.counts.skipped;
    const c = b.counts;
    return {
      attrs: { dataset: { batchId: b.id } },
      cells: [
        time(b.createdAt),
        b.tool,
        h('code', { class: 'request-id' }, b.id),
        h('span', { class: `badge ${badge}` }, label),
        h('progress', {
          class: 'batch-progress',
          max: String(b.total),
          value: String(done),
          'aria-label': `${done} of ${b.total} items ended`,
        }),
        h(
          'span',
          { class: 'batch-counts small' },
          `${done} of ${b.total} ended: ${c.succeeded} succeeded, ${c.failed} failed, ${c.skipped} skipped, ${c.running} running, ${c.pending} pending`,
        ),
        credits(b.charged),
        b.status === 'running' || b.status === 'paused'
          ? h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Cancel batch ${b.id}`,
                'data-focus-key': `cancel-${b.id}`,
                onclick: (e) => cancel(b, e.currentTarget),
              },
              'Cancel',
            )
          : null,
      ],
    };
  }

  async function cancel(batch, button) {
    const confirmed = await confirmAction({
      title: `Cancel batch ${batch.id}?`,
      body: 'Items not started yet are skipped and never charged. Items running now finish and are charged as usual.',
      confirmLabel: 'Cancel batch',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.cancelBatch(batch.id);
        await list.load();
        focusOn(element.querySelector('#batches-title'));
        announce(`Batch ${batch.id} cancelled.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        button.closest('td').append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  /** Reads the list again shortly while a batch shown has not ended. */
  function follow(running) {
    clearTimeout(timer);
    timer = running && onScreen ? setTimeout(() => void list.load(), FOLLOW_MS) : null;
  }

  return {
    element,
    load() {
      onScreen = true;
      return list.load();
    },
    // Following a running batch matters only on screen; showing the view again reads it at once.
    leave() {
      onScreen = false;
      follow(false);
    },
    close() {
      onScreen = false;
      follow(false);
      list.close();
    },
  };
}
