//! Usage (`/dashboard/usage`): the credits used per day and tool as a chart, the render cache's
//! hits and credits saved per day, the ledger of calls with their request ids (paged with the
//! API's cursor), a month's usage as CSV, and the asynchronous calls.
import { aggregateUsage, usageChart, windowStart } from './chart.js';
import { announce, busy, credits, dataTable, empty, errorBox, focusOn, formatInt, h, loading, replace, time, viewSection } from './dom.js';
import { ledgerTable } from './ledger.js';
import { whenSent } from './forms.js';
import { createCallsList } from './view-calls.js';

const CHART_DAYS = 14;
/** Ledger rows per request while filling the chart's window (the API's maximum). */
const FETCH_LIMIT = 200;
/** At most this many requests for the chart: a very busy account is charted from its latest calls. */
const MAX_PAGES = 10;
/** Rows the table shows at first and adds per "Load more". */
const TABLE_PAGE = 25;

/** `YYYY-MM` of a date, UTC (the periods and the usage are in UTC). */
const monthOf = (d) => d.toISOString().slice(0, 7);

/** @param {import('./app.js').ViewContext} context */
export function createUsageView({ client }) {
  const container = h('div', { id: 'usage-body' });
  const exportForm = createExportForm(client);
  const calls = createCallsList({ client });
  const element = viewSection('usage', 'Usage', container, exportForm.element, calls.element);
  let loaded = false;
  let items = [];
  let cacheDays = [];
  let nextCursor = null;
  let shown = TABLE_PAGE;
  let capped = false;
  let tableOpen = false;
  let updatedAt = null;

  let inFlight = null;

  /**
   * Reads the ledger, then shows it. Calls while a read is under way (the timer and the Refresh
   * button) share it, so two reads never interleave their pages.
   */
  function readUsage() {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  async function read() {
    if (!loaded) replace(container, loading('usage'));
    try {
      const ledger = await readLedger(client);
      items = ledger.rows;
      cacheDays = ledger.days;
      nextCursor = ledger.cursor;
      capped = ledger.capped;
      updatedAt = new Date();
      shown = Math.max(TABLE_PAGE, Math.min(shown, items.length));
      loaded = true;
      render();
    } catch (err) {
      if (err.name === 'AbortError') return;
      loaded = false;
      replace(container, errorBox(err, { what: 'the usage', retry: () => readUsage() }));
    }
  }

  function render() {
    const data = aggregateUsage(items, { days: CHART_DAYS });
    replace(
      container,
      h(
        'dl',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('dt', {}, `Used in the last ${CHART_DAYS} days`), h('dd', { id: 'used-total' }, credits(data.total))),
      ),
      h('p', { class: 'muted small' }, 'Updated at ', time(updatedAt.toISOString()), '. Refreshed every minute while this tab is open.'),
      h('h2', {}, 'Credits per day'),
      data.total > 0
        ? usageChart(data, { tableOpen, onTableToggle: (open) => (tableOpen = open) })
        : empty(`No credits used in the last ${CHART_DAYS} days. Calls made with your API keys show up here.`),
      capped ? h('p', { class: 'muted small' }, `The chart counts your latest ${formatInt(items.length)} calls.`) : null,
      h('h2', { id: 'cache-days-title' }, 'Render cache'),
      cacheTable(cacheDays),
      h('h2', { id: 'calls-title' }, 'Calls'),
      callsTable(),
    );
  }

  /** The ledger's table as far as it is shown, with its Load more button. */
  function callsTable() {
    if (items.length === 0)
      return empty('No calls yet. ', h('a', { href: '/dashboard/keys' }, 'Create an API key'), ' and call a tool with it.');
    const more = shown < items.length || nextCursor;
    return h(
      'div',
      { id: 'calls' },
      ledgerTable(items.slice(0, shown), { class: 'calls-table', labelledBy: 'calls-title' }),
      more
        ? h(
            'button',
            { type: 'button', class: 'load-more', 'data-focus-key': 'more-calls', onclick: (e) => loadMore(e.currentTarget) },
            'Load more calls',
          )
        : null,
    );
  }

  async function loadMore(button) {
    await busy(button, async () => {
      const before = shown;
      shown += TABLE_PAGE;
      try {
        if (items.length < shown && nextCursor) {
          const list = items;
          const page = await client.usage({ limit: TABLE_PAGE * 4, cursor: nextCursor });
          if (items !== list) return; // a refresh replaced the list meanwhile and drew it
          items = [...items, ...page.items];
          nextCursor = page.nextCursor;
        }
      } catch (err) {
        if (err.name === 'AbortError') return;
        shown = before;
        button.parentElement?.querySelector(':scope > .error-box')?.remove();
        button.after(errorBox(err, { what: 'more calls' }));
        return;
      }
      const table = callsTable();
      container.querySelector('#calls').replaceWith(table);
      announce(`Showing ${formatInt(Math.min(shown, items.length))} calls.`);
      // Focus the first new row, where reading goes on (the button may be gone now).
      const firstNew = table.querySelectorAll('tbody tr')[before];
      focusOn(firstNew ?? table.querySelector('table'));
    });
  }

  return {
    element,
    load: () => Promise.all([readUsage(), calls.load()]),
    close() {
      exportForm.close();
      calls.close();
    },
  };
}

/** The form that downloads a month's usage as CSV, as the API writes it. */
function createExportForm(client) {
  const month = h('input', {
    id: 'export-month',
    name: 'month',
    type: 'month',
    required: true,
    value: monthOf(new Date()),
    max: monthOf(new Date()),
  });
  const form = h(
    'form',
    { id: 'export-form', class: 'inline-form', novalidate: true, onsubmit: whenSent(exportMonth) },
    h('div', { class: 'field' }, h('label', { for: 'export-month' }, 'Month (UTC)'), month),
    h('button', { type: 'submit', class: 'primary' }, 'Download CSV'),
  );
  const element = h('section', { id: 'export', 'aria-labelledby': 'export-title' }, h('h2', { id: 'export-title' }, 'Export usage'), form);

  async function exportMonth() {
    const chosen = month.value || monthOf(new Date());
    form.querySelector('.error-box')?.remove();
    const from = new Date(`${chosen}-01T00:00:00Z`);
    const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
    try {
      const { text, filename } = await client.usageCsv({ from: from.toISOString(), to: to.toISOString() });
      const link = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: filename, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      announce(`Usage of ${chosen} downloaded as ${filename}.`);
    } catch (err) {
      if (err.name === 'AbortError') return;
      form.append(errorBox(err, { what: `the usage of ${chosen}` }));
    }
  }

  return {
    element,
    close() {
      form.querySelector('.error-box')?.remove();
    },
  };
}

/** The ledger from its newest row back past the chart's first day, or MAX_PAGES pages of it. */
async function readLedger(client) {
  const rows = [];
  const start = windowStart(CHART_DAYS);
  let cursor = null;
  // Every page carries the same days of the render cache (the last 31); the first one's are kept.
  let days = null;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await client.usage({ limit: FETCH_LIMIT, cursor: cursor ?? undefined });
    rows.push(...page.items);
    days ??= page.days ?? [];
    cursor = page.nextCursor;
    const oldest = rows.at(-1);
    if (!cursor || !oldest || new Date(oldest.at) < start) return { rows, cursor, capped: false, days };
  }
  return { rows, cursor, capped: true, days };
}

/** The render cache's days with hits: answers it gave for free, and the credits they did not cost. */
function cacheTable(days) {
  if (days.length === 0)
    return h(
      'div',
      { id: 'cache-days' },
      empty(
        'No render cache hits in the last 31 days. Captures asked for with Cache-Control or through render links are answered from it, free.',
      ),
    );
  return h(
    'div',
    { id: 'cache-days' },
    dataTable({
      attrs: { class: 'cache-days-table', 'aria-labelledby': 'cache-days-title' },
      caption: 'Answers taken from the render cache per day (UTC), newest first. They are free and are not calls.',
      columns: ['Day (UTC)', { label: 'Cache hits', class: 'num' }, { label: 'Credits saved', class: 'num' }],
      rowHeader: 0,
      rows: days.map((d) => ({ cells: [d.day, formatInt(d.cacheHits), formatInt(d.creditsSaved)] })),
    }),
  );
}
