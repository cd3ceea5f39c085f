//! The account's destinations (`Authorization: Bearer <ownerToken>`): create (after a test upload
//! the bucket must accept), list, read and delete. HTTP only: what each request does is the
//! destination service (`domain/destinations/service.ts`).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { MAX_DESTINATIONS_PER_ACCOUNT, type DestinationService } from '../../domain/destinations/index.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { CreateDestinationBody } from '../bodies/destinations.js';
import { compileBodySchema } from '../validation.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { BODY_CODES, example, linked, operation, OWNER_CODES, owner, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

export interface DestinationRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  destinations: DestinationService;
}

export function destinationRoutes(deps: DestinationRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/account/destinations' });
  const { destinations } = deps;
  const createBody = compileBodySchema(CreateDestinationBody);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    ctx.body = await destinations.list(ctx.state.principal.accountId);
  });

  router.post('/', async (ctx) => {
    const body = createBody(await readJsonObject(ctx));
    ctx.status = 201;
    ctx.body = await destinations.create(ctx.state.principal.accountId, body, ownerActing(ctx));
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await destinations.get(ctx.state.principal.accountId, ctx.params.id!);
  });

  router.delete('/:id', async (ctx) => {
    await destinations.remove(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    ctx.status = 204;
  });

  return router;
}

/** The operations `destinationRoutes` serves, as the OpenAPI document lists them. */
export function destinationOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/account/destinations', {
      tag: 'destinations',
      operationId: 'listDestinations',
      summary: 'List destinations',
      ...owner(),
      ok: withRateLimit('The destinations, oldest first.', json({ type: 'array', items: ref('Destination') })),
      codes: OWNER_CODES,
    }),
    operation('post', '/api/v1/account/destinations', {
      tag: 'destinations',
      operationId: 'createDestination',
      summary: 'Add a destination',
      ...owner(),
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
      ok: linked(withRateLimit('The new destination (without its secret).', json(ref('Destination')), '201'), {
        getDestination: { id: '$response.body#/id' },
        deleteDestination: { id: '$response.body#/id' },
      }),
      codes: [...OWNER_CODES, ...BODY_CODES, 'target_not_allowed', 'destination_unusable'],
    }),
    operation('get', '/api/v1/account/destinations/{id}', {
      tag: 'destinations',
      operationId: 'getDestination',
      summary: 'Read a destination',
      ...owner(),
      parameters: [paramRef('DestinationId')],
      ok: withRateLimit('The destination.', json(ref('Destination'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('delete', '/api/v1/account/destinations/{id}', {
      tag: 'destinations',
      operationId: 'deleteDestination',
      summary: 'Delete a destination',
      ...owner(),
      description:
        'Calls can no longer name it; a call already running when it goes answers 502 `destination_error` and is refunded. Objects already written stay in the bucket.',
      parameters: [paramRef('DestinationId')],
      ok: withRateLimit('Deleted.', undefined, '204'),
      codes: [...OWNER_CODES, 'not_found'],
    }),
  ];
}
