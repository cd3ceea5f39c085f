//! The OpenAPI operations of the account's output buckets (`api/routes/destinations.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { MAX_DESTINATIONS_PER_ACCOUNT } from '../../domain/destinations/index.js';
import { CreateDestinationBody } from '../bodies/destinations.js';
import { json } from '../docs/openapi-parts.js';
import { answer, BODY_CODES, example, linked, listOf, OWNER, resource, type RouteOperation } from '../docs/operations.js';

/** The operations `destinationRoutes` serves, as the OpenAPI document lists them. */
export function destinationOperations(): RouteOperation[] {
  const operation = resource('destinations', OWNER, 'DestinationId');
  return [
    operation('get', '/api/v1/account/destinations', {
      operationId: 'listDestinations',
      summary: 'List destinations',
      ok: answer('The destinations, oldest first.', listOf('Destination')),
    }),
    operation('post', '/api/v1/account/destinations', {
      operationId: 'createDestination',
      summary: 'Add a destination',
      description:
        'Adds a bucket that calls can write their files to (request header `Output-Destination` on website-screenshot, html-to-image, word-to-pdf, ' +
        'watermark-image, image-upscale and qr-generate). First the service writes a small test object, `.utility-tools-write-test`, under the prefix (and deletes it ' +
        "when the key may delete): a bucket that refuses it answers 422 `destination_unusable` with S3's reason, and nothing is created. " +
        `The secret access key is stored encrypted and never shown again. An account has at most ${MAX_DESTINATIONS_PER_ACCOUNT} destinations.`,
      requestBody: {
        required: true,
        content: json(
          CreateDestinationBody,
          example({
            type: 's3',
            bucket: 'acme-renders',
            prefix: 'utility-tools',
            region: 'eu-central-1',
            accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
            secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          }),
        ),
      },
      ok: linked(answer('The new destination (without its secret).', 'Destination', '201'), {
        getDestination: { id: '$response.body#/id' },
        deleteDestination: { id: '$response.body#/id' },
      }),
      codes: [...BODY_CODES, 'target_not_allowed', 'destination_unusable'],
    }),
    operation('get', '/api/v1/account/destinations/{id}', {
      operationId: 'getDestination',
      summary: 'Read a destination',
      ok: answer('The destination.', 'Destination'),
      codes: ['not_found'],
    }),
    operation('delete', '/api/v1/account/destinations/{id}', {
      operationId: 'deleteDestination',
      summary: 'Delete a destination',
      description:
        'Calls can no longer name it; a call already running when it goes answers 502 `destination_error` and is refunded. Objects already written stay in the bucket.',
      ok: answer('Deleted.', undefined, '204'),
      codes: ['not_found'],
    }),
  ];
}
