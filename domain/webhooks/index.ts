//! Webhooks (domain/webhooks/): an account's endpoints, the fan-out of its events to them, a delivery's POST (`transport.ts`) and the
//! record of their deliveries.
export type { MissedPage } from './deliveries.js';
export type { WebhookEndpointDoc } from './documents.js';
export { createWebhookEndpoints, WebhookEndpoint, WebhookSecret, type EndpointMirror } from './endpoints.js';
export { createWebhookFanout } from './fanout.js';
export { MAX_ENDPOINTS_PER_ACCOUNT, createWebhookService, type WebhookService } from './service.js';
export {
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_USER_AGENT,
  createWebhookPoster,
  type WebhookPoster,
  type WebhookPosterOptions,
  type WebhookRequest,
} from './transport.js';
