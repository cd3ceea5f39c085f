//! Destinations (`/dashboard/destinations`): the account's own buckets that calls write their files to (`Output-Destination`),
//! listed with where the objects go and the access key id (never the secret), and deleted after
//! confirmation. They are created through the API, which needs the secret access key.
import { dataTable, empty, h, replace, time, viewSection } from './dom.js';
import { createList } from './list.js';
import { confirmedRowAction } from './row-action.js';

/** @param {import('./app.js').ViewContext} context */
export function createDestinationsView({ client }) {
  const container = h('div', { id: 'destinations-body' });
  const element = viewSection(
    'destinations',
    'Destinations',
    h(
      'p',
      { class: 'help' },
      'Your own buckets: a call with ',
      h('code', {}, 'Output-Destination: dst_…'),
      ' writes its file there and answers where, charged only once the bucket took it. ',
      'Add one with ',
      h('code', {}, 'POST /api/v1/account/destinations'),
      '; its secret access key is never shown again.',
    ),
    container,
  );
  const list = createList({
    body: container,
    loadingWhat: 'destinations',
    failedWhat: 'the destinations',
    read: () => client.destinations(),
    render,
  });

  function render(destinations) {
    if (destinations.length === 0) {
      replace(container, empty('No destinations yet. Add one with POST /api/v1/account/destinations.'));
      return;
    }
    replace(
      container,
      dataTable({
        attrs: { class: 'destinations-table', 'aria-labelledby': 'destinations-title' },
        columns: ['Id', 'Bucket', 'Objects go to', 'Server', 'Access key id', 'Created', 'Actions'],
        rowHeader: 0,
        rows: destinations.map(row),
      }),
    );
  }

  function row(destination) {
    return {
      attrs: { dataset: { destinationId: destination.id } },
      cells: [
        h('code', {}, destination.id),
        destination.bucket,
        h('code', {}, `${destination.prefix ? `${destination.prefix}/` : ''}{requestId}/0.{ext}`),
        destination.endpoint ?? `AWS S3, ${destination.region}`,
        h('code', {}, destination.accessKeyId),
        time(destination.createdAt),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Delete destination ${destination.bucket} (${destination.id})`,
            onclick: (e) => remove(destination, e.currentTarget),
          },
          'Delete',
        ),
      ],
    };
  }

  function remove(destination, button) {
    return confirmedRowAction({
      button,
      confirm: {
        title: `Delete destination ${destination.bucket} (${destination.id})?`,
        body: 'Calls naming it in Output-Destination will be refused; objects already written stay in the bucket. This cannot be undone.',
        confirmLabel: 'Delete destination',
      },
      act: () => client.deleteDestination(destination.id),
      reload: list.load,
      heading: element.querySelector('#destinations-title'),
      announcement: `Destination ${destination.bucket} deleted.`,
    });
  }

  return {
    element,
    load: list.load,
    close: list.close,
  };
}
