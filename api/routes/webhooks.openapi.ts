//! The OpenAPI operations of the webhook endpoint routes (`api/routes/webhooks.ts`), beside them
//! rather than inside them so the handlers' file stays about handling.
import { SECRET_OVERLAP_MS } from '../../contracts/webhook-policy.js';
import { NoBody } from '../bodies/labels.js';
import { CreateWebhookBody, EnableWebhookBody, ReplayEventBody, UpdateWebhookBody } from '../bodies/webhooks.js';
import { paramRef } from '../docs/openapi-parts.js';
import { answer, BODY_CODES, jsonBody, linked, linkedById, listOf, OWNER, resource, type RouteOperation } from '../docs/operations.js';
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
  const operation = resource('webhook-endpoints', OWNER, 'EndpointId');
  return [
    operation('get', '/api/v1/account/webhooks', {
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      ok: answer('The endpoints.', listOf('WebhookEndpoint')),
    }),
    operation('post', '/api/v1/account/webhooks', {
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      description: `The URL must be \`https\` with a public address (\`localhost\` only where the operator allows it for testing). An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints. The answer is the only time the signing secret is shown.`,
      requestBody: jsonBody(CreateWebhookBody, { url: 'https://hooks.example.com/utility-tools' }),
      ok: linkedById(answer('The new endpoint with its signing secret.', 'NewWebhookEndpoint', '201'), ENDPOINT_OPERATIONS),
      codes: [...BODY_CODES, 'target_not_allowed', 'upstream_error'],
    }),
    operation('delete', '/api/v1/account/webhooks/{id}', {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      description: 'Nothing more is posted to it, pending deliveries included.',
      ok: answer('Deleted.', undefined, '204'),
      codes: ['not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/test', {
      operationId: 'testWebhook',
      summary: 'Send a test event',
      description: 'Queues a `webhook.test` event for this endpoint only. Its delivery shows up in the attempts.',
      ok: linked(answer('The event is queued.', 'WebhookTestSent', '202'), {
        replayWebhookEvent: { id: '$request.path.id' },
      }),
      codes: ['not_found'],
    }),
    operation('patch', '/api/v1/account/webhooks/{id}', {
      operationId: 'updateWebhook',
      summary: 'Choose the event types of a webhook endpoint',
      description: 'Replaces the list of event types delivered to the endpoint. Events already queued for it are still delivered.',
      requestBody: jsonBody(UpdateWebhookBody, { eventTypes: ['credits.low', 'call.completed'] }),
      ok: answer('The endpoint.', 'WebhookEndpoint'),
      codes: [...BODY_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/enable', {
      operationId: 'enableWebhook',
      summary: 'Re-enable a webhook endpoint',
      description:
        'Makes a disabled endpoint active again with its failure count reset to 0. With `recoverSince`, every event since then (at most 30 days back) ' +
        'that the endpoint should have received and never got is delivered too, once, in the order the events happened (attempts with `trigger: recovery`). The body may be left out.',
      requestBody: jsonBody(EnableWebhookBody, { recoverSince: '2026-01-01T00:00:00Z' }, false),
      ok: answer('The endpoint, active.', 'WebhookEndpoint'),
      codes: [...BODY_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/rotate-secret', {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description:
        `Gives the endpoint a new signing secret, shown only in this answer. For ${SECRET_OVERLAP_MS / 3_600_000} hours (or until you end it) every delivery is signed with both: ` +
        '`X-Service-Signature` with the previous secret, as receivers already check it, and `X-Service-Signatures` with the new one and the previous one. ' +
        'Move the receiver to the new secret inside the window (`verifyWebhook` accepts either). Rotating again during a window ends the older previous secret at once. The body may be left out.',
      requestBody: jsonBody(NoBody, undefined, false),
      ok: answer('The endpoint with its new secret.', 'RotatedWebhookEndpoint'),
      codes: [...BODY_CODES, 'not_found'],
    }),
    operation('delete', '/api/v1/account/webhooks/{id}/previous-secret', {
      operationId: 'endWebhookSecretOverlap',
      summary: 'End the previous secret now',
      description:
        "Ends a rotation's overlap before its time: from now on deliveries are signed with the new secret only. Answers the same when no overlap runs.",
      ok: answer('The endpoint.', 'WebhookEndpoint'),
      codes: ['not_found'],
    }),
    operation('post', '/api/v1/account/webhooks/{id}/replay', {
      operationId: 'replayWebhookEvent',
      summary: 'Replay an event',
      description:
        'Sends one past event of the account (from the event log, kept 30 days) to this endpoint again: a new attempt, signed afresh, listed in the attempts with `trigger: replay`. ' +
        'It is sent even when the endpoint is not subscribed to its type. A disabled endpoint answers `endpoint_disabled`.',
      requestBody: jsonBody(ReplayEventBody, { eventId: 'evt_9fK2pQ7rT1wX5zB3nM8cLd' }),
      ok: answer('The attempt is queued.', 'WebhookReplayQueued', '202'),
      codes: [...BODY_CODES, 'not_found', 'endpoint_disabled'],
    }),
    operation('get', '/api/v1/account/webhooks/{id}/attempts', {
      operationId: 'listWebhookAttempts',
      summary: 'List delivery attempts',
      description: 'Every delivery attempt to this endpoint, successful or not, newest first.',
      parameters: [paramRef('AttemptsLimit')],
      ok: answer('The attempts.', listOf('WebhookAttempt')),
      codes: ['not_found', 'validation_failed'],
    }),
  ];
}
