//! Batches (`/dashboard/batches`): the account's batches, newest first: tool, a progress bar of the items that ended, the counts,
//! what was charged, and a Cancel button (after confirmation) while one runs or waits for credits.
//! Paged with the API's cursor; a batch still running is read again every few seconds.
import { badge, code, credits, dataTable, h, help, time, viewSection } from './dom.js';
import { createPagedList } from './paged-list.js';
import { confirmedRowButton } from './row-action.js';

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
    help(
      'Many calls of one tool made with ',
      code('POST /api/v1/batches'),
      ': each item is charged only if it succeeds. Read the items with ',
      code('GET /api/v1/batches/{id}/items'),
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
    table: (items) =>
      dataTable({
        name: 'batches',
        columns: ['Made', 'Tool', 'Batch id', 'Status', 'Progress', 'Counts', { label: 'Charged', class: 'num' }, 'Actions'],
        rows: items.map(row),
      }),
  });

  function row(b) {
    const done = b.counts.succeeded + b.counts.failed + b.counts.skipped;
    const c = b.counts;
    return {
      attrs: { dataset: { batchId: b.id } },
      cells: [
        time(b.createdAt),
        b.tool,
        h('code', { class: 'request-id' }, b.id),
        badge(STATUS, b.status, 'failed'),
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
          ? confirmedRowButton({
              label: 'Cancel',
              name: `Cancel batch ${b.id}`,
              focusKey: `cancel-${b.id}`,
              confirm: {
                body: 'Items not started yet are skipped and never charged. Items running now finish and are charged as usual.',
                confirmLabel: 'Cancel batch',
              },
              act: () => client.cancelBatch(b.id),
              reload: list.load,
              announcement: `Batch ${b.id} cancelled.`,
            })
          : null,
      ],
    };
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
