//! Destinations (`/dashboard/destinations`): the account's own buckets that calls write their files to (`Output-Destination`),
//! listed with where the objects go and the access key id (never the secret), and deleted after
//! confirmation. They are created through the API, which needs the secret access key.
import { code, dataTable, h, help, time, viewSection } from './dom.js';
import { createList } from './list.js';
import { confirmedRowButton } from './row-action.js';

/** @param {import('./app.js').ViewContext} context */
export function createDestinationsView({ client }) {
  const container = h('div', { id: 'destinations-body' });
  const element = viewSection(
    'destinations',
    'Destinations',
    help(
      'Your own buckets: a call with ',
      code('Output-Destination: dst_…'),
      ' writes its file there and answers where, charged only once the bucket took it. ',
      'Add one with ',
      code('POST /api/v1/account/destinations'),
      '; its secret access key is never shown again.',
    ),
    container,
  );
  const list = createList({
    body: container,
    loadingWhat: 'destinations',
    read: () => client.destinations(),
    emptyText: 'No destinations yet. Add one with POST /api/v1/account/destinations.',
    table: (destinations) =>
      dataTable({
        name: 'destinations',
        columns: ['Id', 'Bucket', 'Objects go to', 'Server', 'Access key id', 'Created', 'Actions'],
        rowHeader: 0,
        rows: destinations.map(row),
      }),
  });

  function row(destination) {
    return {
      attrs: { dataset: { destinationId: destination.id } },
      cells: [
        code(destination.id),
        destination.bucket,
        code(`${destination.prefix ? `${destination.prefix}/` : ''}{requestId}/0.{ext}`),
        destination.endpoint ?? `AWS S3, ${destination.region}`,
        code(destination.accessKeyId),
        time(destination.createdAt),
        confirmedRowButton({
          label: 'Delete',
          name: `Delete destination ${destination.bucket} (${destination.id})`,
          confirm: {
            body: 'Calls naming it in Output-Destination will be refused; objects already written stay in the bucket. This cannot be undone.',
            confirmLabel: 'Delete destination',
          },
          act: () => client.deleteDestination(destination.id),
          reload: list.load,
          announcement: `Destination ${destination.bucket} deleted.`,
        }),
      ],
    };
  }

  return { element, load: list.load, close: list.close };
}
