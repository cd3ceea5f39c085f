//! The OpenAPI operations of the webhook endpoint routes (`api/routes/webhooks.ts`), beside them
//! rather than inside them so the handlers' file stays about handling.
import { SECRET_OVERLAP_MS } from '../../contracts/webhook-policy.js';
import { NoBody } from '../bodies/labels.js';
import { CreateWebhookBody, EnableWebhookBody, ReplayEventBody, UpdateWebhookBody } from '../bodies/webhooks.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { BODY_CODES, example, linked, operation, OWNER_CODES, owner, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../../domain/webhooks/index.js';

/** The operations on one webhook endpoint, each taking its id: what a new endpoint's answer links to. */
const ENDPOINT_OPERATIONS = [
  'updateWebhook',
  'deleteWebhook',
  'testWebhook',
  'enableWebhook',
  'rotateWebhookSecret',
  'endWebhookSecretOverlap',
  'replayWebhookEvent',
  'listWebhookAttempts',
] as const;

/** The operations `webhookRoutes` serves, as the OpenAPI document lists them. */
export function webhookOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/account/webhooks', {
      tag: 'webhook-endpoints',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      ...owner(),
      ok: withRateLimit('The endpoints.', json({ type: 'array', items: ref('WebhookEndpoint') })),
      codes: OWNER_CODES,
    }),
    operation('post', '/api/v1/account/webhooks', {
      tag: 'webhook-endpoints',
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      ...owner(),
      description: `The URL must be \`https\` with a public address (\`localhost\` only where the operator allows it for testing). An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints. The answer is the only time the signing secret is shown.`,
      requestBody: {
        required: true,
        content: json(CreateWebhookBody, example({ url: 'https://hooks.example.com/utility-tools' })),
      },
      ok: linked(
        withRateLimit('The new endpoint with its signing secret.', json(ref('NewWebhookEndpoint')), '201'),
        Object.fromEntries(ENDPOINT_OPERATIONS.map((operationId) => [operationId, { id: '$response.body#/id' }])),
      ),
      codes: [...OWNER_CODES, ...BODY_CODES, 'target_not_allowed', 'upstream_error'],
    }),
    operation('delete', '/api/v1/account/webhooks/{id}', {
      tag: 'webhook-endpoints',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      ...owner(),
      description: 'Nothing more is posted to it, pending deliveries included.',
      parameters: [paramRef('EndpointId')],
      ok: withRateLimit('Deleted.', undefined, '204'),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/test', {
      tag: 'webhook-endpoints',
      operationId: 'testWebhook',
      summary: 'Send a test event',
      ...owner(),
      description: 'Queues a `webhook.test` event for this endpoint only. Its delivery shows up in the attempts.',
      parameters: [paramRef('EndpointId')],
      ok: linked(withRateLimit('The event is queued.', json(ref('WebhookTestSent')), '202'), {
        replayWebhookEvent: { id: '$request.path.id' },
      }),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('patch', '/api/v1/account/webhooks/{id}', {
      tag: 'webhook-endpoints',
      operationId: 'updateWebhook',
      summary: 'Choose the event types of a webhook endpoint',
      ...owner(),
      description: 'Replaces the list of event types delivered to the endpoint. Events already queued for it are still delivered.',
      parameters: [paramRef('EndpointId')],
      requestBody: {
        required: true,
        content: json(UpdateWebhookBody, example({ eventTypes: ['credits.low', 'call.completed'] })),
      },
      ok: withRateLimit('The endpoint.', json(ref('WebhookEndpoint'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/enable', {
      tag: 'webhook-endpoints',
      operationId: 'enableWebhook',
      summary: 'Re-enable a webhook endpoint',
      ...owner(),
      description:
        'Makes a disabled endpoint active again with its failure count reset to 0. With `recoverSince`, every event since then (at most 30 days back) ' +
        'that the endpoint should have received and never got is delivered too, once, in the order the events happened (attempts with `trigger: recovery`). The body may be left out.',
      parameters: [paramRef('EndpointId')],
      requestBody: { required: false, content: json(EnableWebhookBody, example({ recoverSince: '2026-01-01T00:00:00Z' })) },
      ok: withRateLimit('The endpoint, active.', json(ref('WebhookEndpoint'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/rotate-secret', {
      tag: 'webhook-endpoints',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      ...owner(),
      description:
        `Gives the endpoint a new signing secret, shown only in this answer. For ${SECRET_OVERLAP_MS / 3_600_000} hours (or until you end it) every delivery is signed with both: ` +
        '`X-Service-Signature` with the previous secret, as receivers already check it, and `X-Service-Signatures` with the new one and the previous one. ' +
        'Move the receiver to the new secret inside the window (`verifyWebhook` accepts either). Rotating again during a window ends the older previous secret at once. The body may be left out.',
      parameters: [paramRef('EndpointId')],
      requestBody: { required: false, content: json(NoBody) },
      ok: withRateLimit('The endpoint with its new secret.', json(ref('RotatedWebhookEndpoint'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('delete', '/api/v1/account/webhooks/{id}/previous-secret', {
      tag: 'webhook-endpoints',
      operationId: 'endWebhookSecretOverlap',
      summary: 'End the previous secret now',
      ...owner(),
      description:
        "Ends a rotation's overlap before its time: from now on deliveries are signed with the new secret only. Answers the same when no overlap runs.",
      parameters: [paramRef('EndpointId')],
      ok: withRateLimit('The endpoint.', json(ref('WebhookEndpoint'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/replay', {
      tag: 'webhook-endpoints',
      operationId: 'replayWebhookEvent',
      summary: 'Replay an event',
      ...owner(),
      description:
        'Sends one past event of the account (from the event log, kept 30 days) to this endpoint again: a new attempt, signed afresh, listed in the attempts with `trigger: replay`. ' +
        'It is sent even when the endpoint is not subscribed to its type. A disabled endpoint answers `endpoint_disabled`.',
      parameters: [paramRef('EndpointId')],
      requestBody: { required: true, content: json(ReplayEventBody, example({ eventId: 'evt_9fK2pQ7rT1wX5zB3nM8cLd' })) },
      ok: withRateLimit('The attempt is queued.', json(ref('WebhookReplayQueued')), '202'),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found', 'endpoint_disabled'],
    }),
    operation('get', '/api/v1/account/webhooks/{id}/attempts', {
      tag: 'webhook-endpoints',
      operationId: 'listWebhookAttempts',
      summary: 'List delivery attempts',
      ...owner(),
      description: 'Every delivery attempt to this endpoint, successful or not, newest first.',
      parameters: [paramRef('EndpointId'), paramRef('AttemptsLimit')],
      ok: withRateLimit('The attempts.', json({ type: 'array', items: ref('WebhookAttempt') })),
      codes: [...OWNER_CODES, 'not_found', 'validation_failed'],
    }),
  ];
}
