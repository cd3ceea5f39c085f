//! The event log: every event of the account, newest first, with each endpoint it went to and
//! what became of it there; paged with the API's cursor. A part of the webhooks view.
import { badge, dataTable, h, help, subSection, time } from './dom.js';
import { createPagedList } from './paged-list.js';

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
export function createEventLog({ client, urlOf }) {
  const container = h('div', { id: 'events-body' });
  const element = subSection(
    'events',
    'Events',
    help('Everything that happened on the account in the last 30 days, newest first, and where each event was delivered.'),
    container,
  );

  function deliveries(list) {
    // No active endpoint took its type when it happened.
    if (list.length === 0) return h('span', { class: 'muted' }, 'Not sent to any endpoint');
    return h(
      'ul',
      { class: 'deliveries' },
      list.map((d) =>
        h(
          'li',
          {},
          h('span', { class: 'delivery-url' }, urlOf(d.endpointId) ?? d.endpointId),
          ' ',
          badge(STATUS, d.status, 'failed'),
          d.reason ? h('span', { class: 'muted small' }, ` (${REASONS[d.reason] ?? d.reason})`) : null,
          h('span', { class: 'muted small' }, ` · ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`),
        ),
      ),
    );
  }

  const list = createPagedList({
    section: element,
    container,
    what: 'events',
    pageSize: 20,
    fetchPage: (page) => client.events(page),
    emptyText: 'No events yet. Balance changes, new or revoked keys, asynchronous calls and test deliveries show up here.',
    table: (items) =>
      dataTable({
        name: 'events',
        columns: ['Time', 'Event', 'Delivered to'],
        rows: items.map((e) => ({
          attrs: { dataset: { eventId: e.id } },
          cells: [time(e.createdAt), [e.event, h('br'), h('code', { class: 'small' }, e.id)], deliveries(e.deliveries)],
        })),
      }),
  });
  return { element, load: list.load, close: list.close };
}
