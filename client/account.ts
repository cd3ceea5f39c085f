//! The account API under the owner token: what the dashboard does (balance, usage, keys,
//! destinations, webhooks, events). Reads and deletes are retried after a network failure; creating calls
//! only after 429 or 503, which the service answers before acting.
import type { components, operations } from './api-types.js';
import type { RequestSpec, RetryOptions, Transport } from './http.js';

type Schemas = components['schemas'];
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type BodyOf<Op extends keyof operations> = NonNullable<JsonBody<operations[Op]['requestBody']>>;

export interface PageQuery {
  /** Items per page (the service's default and maximum apply). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  retry?: RetryOptions;
}

export type Account = Schemas['Account'];
export type UsagePage = Schemas['UsagePage'];
export type GrantPage = Schemas['GrantPage'];
export type ApiKey = Schemas['ApiKey'];
export type NewApiKey = Schemas['NewApiKey'];
export type RevokedApiKey = Schemas['RevokedApiKey'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type NewWebhookEndpoint = Schemas['NewWebhookEndpoint'];
export type RotatedWebhookEndpoint = Schemas['RotatedWebhookEndpoint'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookEventKind = Schemas['WebhookEventKind'];
export type EventPage = Schemas['EventPage'];
export type Destination = Schemas['Destination'];
export type CallPage = Schemas['CallPage'];
export type AuditLogPage = Schemas['AuditLogPage'];
export type AuditVerification = Schemas['AuditVerification'];

const id = (value: string) => encodeURIComponent(value);

export function createAccount(transport: Transport, token: () => string) {
  const send = async <T>(spec: Omit<RequestSpec, 'token'>, options: RequestOptions = {}): Promise<T> =>
    (await transport.send({ ...spec, token: token(), signal: options.signal, retry: options.retry })).body as T;

  return {
    /** `GET /api/v1/account`: name, balance, low-balance threshold, plan and next allowance. */
    get: (options?: RequestOptions) => send<Account>({ method: 'GET', path: '/api/v1/account' }, options),
    /** `GET /api/v1/account/usage`: the ledger, newest first; `from` and `to` keep to a period. */
    usage: (query: PageQuery & { from?: string; to?: string; keyId?: string } = {}, options?: RequestOptions) =>
      send<UsagePage>({ method: 'GET', path: '/api/v1/account/usage', query: { ...query } }, options),
    /** `GET /api/v1/account/grants`: grants with what is left of each and when it expires, newest first. */
    grants: (query: PageQuery = {}, options?: RequestOptions) =>
      send<GrantPage>({ method: 'GET', path: '/api/v1/account/grants', query: { ...query } }, options),
    /** `GET /api/v1/account/calls`: asynchronous calls, newest first. */
    calls: (query: PageQuery = {}, options?: RequestOptions) =>
      send<CallPage>({ method: 'GET', path: '/api/v1/account/calls', query: { ...query } }, options),
    /** `GET /api/v1/account/audit-log`: who changed what, newest first, each entry hash-chained to the one before. */
    auditLog: (query: PageQuery & { action?: string } = {}, options?: RequestOptions) =>
      send<AuditLogPage>({ method: 'GET', path: '/api/v1/account/audit-log', query: { ...query } }, options),
    /** `GET /api/v1/account/audit-log/verify`: recomputes the chain; `firstBadEntry` names an edited or removed entry's place. */
    verifyAuditLog: (options?: RequestOptions) =>
      send<AuditVerification>({ method: 'GET', path: '/api/v1/account/audit-log/verify' }, options),
    keys: {
      list: (options?: RequestOptions) => send<ApiKey[]>({ method: 'GET', path: '/api/v1/account/keys' }, options),
      /** The key itself is in the answer only: keep it. */
      create: (body: BodyOf<'createKey'> = {}, options?: RequestOptions) =>
        send<NewApiKey>({ method: 'POST', path: '/api/v1/account/keys', body }, options),
      /** Its name and settings: what the body gives is set, null clears it. */
      update: (keyId: string, body: BodyOf<'updateKey'>, options?: RequestOptions) =>
        send<ApiKey>({ method: 'PATCH', path: `/api/v1/account/keys/${id(keyId)}`, body }, options),
      revoke: (keyId: string, options?: RequestOptions) =>
        send<RevokedApiKey>({ method: 'DELETE', path: `/api/v1/account/keys/${id(keyId)}` }, options),
    },
    destinations: {
      list: (options?: RequestOptions) => send<Destination[]>({ method: 'GET', path: '/api/v1/account/destinations' }, options),
      get: (destinationId: string, options?: RequestOptions) =>
        send<Destination>({ method: 'GET', path: `/api/v1/account/destinations/${id(destinationId)}` }, options),
      /** Answers once the bucket accepted a test upload; the secret access key is never shown again. */
      create: (body: BodyOf<'createDestination'>, options?: RequestOptions) =>
        send<Destination>({ method: 'POST', path: '/api/v1/account/destinations', body }, options),
      delete: (destinationId: string, options?: RequestOptions) =>
        send<void>({ method: 'DELETE', path: `/api/v1/account/destinations/${id(destinationId)}` }, options),
    },
    webhooks: {
      list: (options?: RequestOptions) => send<WebhookEndpoint[]>({ method: 'GET', path: '/api/v1/account/webhooks' }, options),
      /** The signing secret is in the answer only: keep it for `verifyWebhook`. */
      create: (body: BodyOf<'createWebhook'>, options?: RequestOptions) =>
        send<NewWebhookEndpoint>({ method: 'POST', path: '/api/v1/account/webhooks', body }, options),
      delete: (endpointId: string, options?: RequestOptions) =>
        send<void>({ method: 'DELETE', path: `/api/v1/account/webhooks/${id(endpointId)}` }, options),
      /** Which event types the endpoint receives. */
      update: (endpointId: string, body: BodyOf<'updateWebhook'>, options?: RequestOptions) =>
        send<WebhookEndpoint>({ method: 'PATCH', path: `/api/v1/account/webhooks/${id(endpointId)}`, body }, options),
      test: (endpointId: string, options?: RequestOptions) =>
        send<Schemas['WebhookTestSent']>({ method: 'POST', path: `/api/v1/account/webhooks/${id(endpointId)}/test` }, options),
      /** Re-enables a disabled endpoint; with `recoverSince`, also redelivers what it missed. */
      enable: (endpointId: string, body: BodyOf<'enableWebhook'> = {}, options?: RequestOptions) =>
        send<WebhookEndpoint>({ method: 'POST', path: `/api/v1/account/webhooks/${id(endpointId)}/enable`, body }, options),
      rotateSecret: (endpointId: string, options?: RequestOptions) =>
        send<RotatedWebhookEndpoint>(
          { method: 'POST', path: `/api/v1/account/webhooks/${id(endpointId)}/rotate-secret`, body: {} },
          options,
        ),
      endSecretOverlap: (endpointId: string, options?: RequestOptions) =>
        send<WebhookEndpoint>({ method: 'DELETE', path: `/api/v1/account/webhooks/${id(endpointId)}/previous-secret` }, options),
      replay: (endpointId: string, body: BodyOf<'replayWebhookEvent'>, options?: RequestOptions) =>
        send<Schemas['WebhookReplayQueued']>({ method: 'POST', path: `/api/v1/account/webhooks/${id(endpointId)}/replay`, body }, options),
      /** Delivery attempts, newest first. */
      attempts: (endpointId: string, query: { limit?: number } = {}, options?: RequestOptions) =>
        send<WebhookAttempt[]>(
          { method: 'GET', path: `/api/v1/account/webhooks/${id(endpointId)}/attempts`, query: { ...query } },
          options,
        ),
    },
    events: {
      /** The account's events of the last 30 days, newest first, with their deliveries. */
      list: (query: PageQuery & { type?: WebhookEventKind } = {}, options?: RequestOptions) =>
        send<EventPage>({ method: 'GET', path: '/api/v1/account/events', query: { ...query } }, options),
    },
  };
}

export type AccountApi = ReturnType<typeof createAccount>;
