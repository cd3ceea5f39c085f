//! The event log: every event of the account, newest first, with each endpoint it went to and
//! what became of it there; paged with the API's cursor ("Load more events").
import { busy, dataTable, empty, errorBox, focusOn, h, loading, replace, time } from './dom.js';

const PAGE = 20;

/** An event's delivery at one endpoint, as a badge. */
const STATUS = {
  delivered: ['active', 'Delivered'],
  failing: ['failed', 'Failing, retrying'],
  undelivered: ['failed', 'Not delivered'],
};
const REASONS = { endpoint_disabled: 'the endpoint was disabled', expired: 'retries ran out', backlog_full: 'its queue was full' };

/**
 * @param {{ client: any, urlOf: (endpointId: string) => string | undefined }} options
 * `urlOf`: the URL of one of the account's endpoints (a deleted one shows its id).
 */
export function createEventsView({ client, urlOf }) {
  const section = document.getElementById('events');
  const container = document.getElementById('events-body');
  let items = null;
  let nextCursor = null;

  async function load() {
    if (items === null) replace(container, loading('events'));
    section.setAttribute('aria-busy', 'true');
    try {
      const page = await client.events({ limit: Math.max(PAGE, items?.length ?? 0) });
      items = page.items;
      nextCursor = page.nextCursor;
      render();
    } catch (err) {
      if (err.name === 'AbortError') return;
      items = null;
      replace(container, errorBox(err, { what: 'the events', retry: () => load() }));
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  function deliveries(list) {
    // No active endpoint took its type when it happened.
    if (list.length === 0) return h('span', { class: 'muted' }, 'Not sent to any endpoint');
    return h(
      'ul',
      { class: 'deliveries' },
      list.map((d) => {
        const [badge, label] = STATUS[d.status] ?? ['failed', d.status];
        return h(
          'li',
          {},
          h('span', { class: 'delivery-url' }, urlOf(d.endpointId) ?? d.endpointId),
          ' ',
          h('span', { class: `badge ${badge}` }, label),
          d.reason ? h('span', { class: 'muted small' }, ` (${REASONS[d.reason] ?? d.reason})`) : null,
          h('span', { class: 'muted small' }, ` · ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`),
        );
      }),
    );
  }

  function render() {
    if (items.length === 0) {
      replace(container, empty('No events yet. Balance changes, new or revoked keys and test deliveries show up here.'));
      return;
    }
    replace(
      container,
      dataTable({
        attrs: { class: 'events-table', 'aria-labelledby': 'events-title' },
        columns: ['Time', 'Event', 'Delivered to'],
        rows: items.map((e) => ({
          attrs: { dataset: { eventId: e.id } },
          cells: [time(e.createdAt), [e.event, h('br'), h('code', { class: 'small' }, e.id)], deliveries(e.deliveries)],
        })),
      }),
      nextCursor ? h('button', { type: 'button', class: 'load-more', 'data-focus-key': 'more-events', onclick: (ev) => loadMore(ev.currentTarget) }, 'Load more events') : null,
    );
  }

  async function loadMore(button) {
    await busy(button, async () => {
      const before = items.length;
      try {
        const page = await client.events({ limit: PAGE, cursor: nextCursor });
        items = [...items, ...page.items];
        nextCursor = page.nextCursor;
        render();
        focusOn(container.querySelectorAll('tbody tr')[before] ?? container.querySelector('table'));
      } catch (err) {
        if (err.name === 'AbortError') return;
        container.append(errorBox(err, { what: 'more events', retry: () => loadMore(button) }));
      }
    });
  }

  return {
    load,
    close() {
      items = null;
      nextCursor = null;
      container.replaceChildren();
    },
  };
}
