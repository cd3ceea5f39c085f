//! Balance and usage: the balance (with the low and zero states), the chart of credits per day
//! and tool, the render cache's hits and credits saved per day, and the ledger of calls with their
//! request ids, paged with the API's cursor.
import { aggregateUsage, usageChart, windowStart } from './chart.js';
import { announce, busy, credits, dataTable, empty, errorBox, focusOn, formatInt, h, loading, replace, time } from './dom.js';

const CHART_DAYS = 14;
/** Ledger rows per request while filling the chart's window (the API's maximum). */
const FETCH_LIMIT = 200;
/** At most this many requests for the chart: a very busy account is charted from its latest calls. */
const MAX_PAGES = 10;
/** Rows the table shows at first and adds per "Load more". */
const TABLE_PAGE = 25;

const OUTCOMES = { charged: 'Charged', refunded: 'Refunded', expired: 'Expired' };

export function createUsageView({ client, container, section }) {
  let account = null;
  let items = [];
  let cacheDays = [];
  let nextCursor = null;
  let shown = TABLE_PAGE;
  let capped = false;
  let tableOpen = false;
  let updatedAt = null;

  let inFlight = null;

  /**
   * Reads the account and the ledger, then shows them. Calls while a read is under way (the timer
   * and the Refresh button) share it, so two reads never interleave their pages.
   */
  function load() {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  async function read() {
    if (account === null) replace(container, loading('balance and usage'));
    section.setAttribute('aria-busy', 'true');
    try {
      const fresh = await client.account();
      const ledger = await readLedger(client);
      account = fresh;
      items = ledger.rows;
      cacheDays = ledger.days;
      nextCursor = ledger.cursor;
      capped = ledger.capped;
      updatedAt = new Date();
      shown = Math.max(TABLE_PAGE, Math.min(shown, items.length));
      render();
      return account;
    } catch (err) {
      if (err.name === 'AbortError') return null;
      replace(container, errorBox(err, { what: 'the balance and usage', retry: () => load() }));
      account = null;
      return null;
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  function render() {
    const data = aggregateUsage(items, { days: CHART_DAYS });
    replace(
      container,
      h(
        'dl',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('dt', {}, 'Balance'), h('dd', { id: 'balance' }, credits(account.balance))),
        h('div', { class: 'stat' }, h('dt', {}, `Used in the last ${CHART_DAYS} days`), h('dd', { id: 'used-total' }, credits(data.total))),
      ),
      balanceNote(account),
      h('p', { class: 'muted small' }, 'Updated at ', time(updatedAt.toISOString()), '. Refreshed every minute while this tab is open.'),
      h('h3', {}, 'Credits per day'),
      data.total > 0 ? usageChart(data, { tableOpen, onTableToggle: (open) => (tableOpen = open) }) : empty(`No credits used in the last ${CHART_DAYS} days. Calls made with your API keys show up here.`),
      capped ? h('p', { class: 'muted small' }, `The chart counts your latest ${formatInt(items.length)} calls.`) : null,
      h('h3', { id: 'cache-days-title' }, 'Render cache'),
      cacheTable(cacheDays),
      h('h3', { id: 'calls-title' }, 'Recent calls'),
      callsTable(),
    );
  }

  /** The ledger's table as far as it is shown, with its Load more button. */
  const callsTable = () => ledgerTable(items.slice(0, shown), shown < items.length || nextCursor, (button) => loadMore(button));

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

  return { load };
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
  if (days.length === 0) return h('div', { id: 'cache-days' }, empty('No render cache hits in the last 31 days. Captures asked for with Cache-Control or through render links are answered from it, free.'));
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

/** What the balance's level means for calls, when it means anything. */
function balanceNote(account) {
  if (account.balance === 0) return h('p', { class: 'balance-note warning' }, 'Out of credits: tool calls are refused with HTTP 402 until credits are added.');
  if (account.balance < account.lowBalanceThreshold) {
    return h('p', { class: 'balance-note warning' }, `Low balance: below ${formatInt(account.lowBalanceThreshold)} credits.`);
  }
  return null;
}

/** The ledger rows `rows` as a table; `more`: whether to offer Load more, which calls `onMore`. */
function ledgerTable(rows, more, onMore) {
  if (rows.length === 0) return empty('No calls yet. Create an API key below and call a tool with it.');
  return h(
    'div',
    { id: 'calls' },
    dataTable({
      attrs: { class: 'calls-table', 'aria-labelledby': 'calls-title' },
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
    }),
    more ? h('button', { type: 'button', class: 'load-more', 'data-focus-key': 'more-calls', onclick: (e) => onMore(e.currentTarget) }, 'Load more calls') : null,
  );
}
