//! The OpenAPI 3.1 document of everything the API serves, built once per process from the same
//! sources the routes use: the catalogue and tool schemas, the body schemas, the error table.
//! `/api/v1/openapi.json` serves it and `/docs` renders it.
import { readFileSync } from 'node:fs';
import { CATALOGUE } from '../domain/catalogue.js';
import { GROUPS, type Group, type ToolDefinition } from '../domain/tool-definition.js';
import type { ErrorCode } from '../lib/errors.js';
import type { ToolSchemas } from '../domain/tool-schemas.js';
import { BODY_SCHEMAS } from './body-schemas.js';
import { DEFAULT_BODY_LIMIT } from './body.js';
import { loadDashboard } from './routes/dashboard.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../domain/webhooks/service.js';
import { EVENT_RETENTION_MS } from '../lib/event-kinds.js';
import { SECRET_OVERLAP_MS } from '../lib/webhook-policy.js';
import { CALL_ANSWER_RETENTION_MS, CALL_TOMBSTONE_MS } from '../domain/async-calls.js';
import { DEFAULT_PLAN_ID, MAX_MONTHLY_ALLOWANCE } from '../domain/plans.js';
import { MAX_EXPORT_DAYS, MAX_EXPORT_ROWS } from './usage-export.js';
import {
  GROUP_DESCRIPTIONS, HEADERS, PARAMETERS, RATE_LIMIT_HEADERS, SECURITY_SCHEMES, TAGS,
  headerRef, json, paramRef, pascal, problemResponses, type Json, type Tag,
} from './docs/openapi-parts.js';
import { COMPONENT_SCHEMAS, ref, type JsonSchema } from './docs/schemas.js';
import { DELIVERY_FACTS, webhookEvents } from './docs/webhook-events.js';

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL: the server in the document and the base of every problem `type` link. */
  baseUrl: string;
  /** Input and output schemas of every catalogue tool (`loadCatalogueSchemas()`). */
  schemas: Map<string, ToolSchemas>;
}

type Operation = Json & { responses: Record<string, Json> };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Json;
  servers: Json[];
  externalDocs: Json;
  tags: Json[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Json }>;
  components: Json & { schemas: Record<string, JsonSchema>; responses: Record<string, Json> };
  [extension: `x-${string}`]: unknown;
}

const OVERVIEW = readFileSync(new URL('./docs/overview.md', import.meta.url), 'utf8');

/** The overview with its `{{name}}` placeholders filled in; an unknown one is a bug here. */
function overview(values: Record<string, string>): string {
  return OVERVIEW.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`api/docs/overview.md: no value for {{${name}}}`);
    return values[name]!;
  });
}

/** Codes every tool call can answer with; a tool's definition adds its own (`failures`). */
const TOOL_CALL_CODES: readonly ErrorCode[] = [
  'invalid_json', 'validation_failed', 'unauthorized', 'insufficient_credits', 'forbidden', 'idempotency_conflict',
  'payload_too_large', 'unsupported_media_type', 'rate_limited', 'unavailable', 'tool_timeout', 'internal_error',
];
/** Codes of an API key's check and the rate limit (reading asynchronous calls). */
const KEY_CODES: readonly ErrorCode[] = ['unauthorized', 'forbidden', 'rate_limited', 'unavailable', 'internal_error'];
/** Codes of the account API's owner-token check and rate limit. */
const OWNER_CODES: readonly ErrorCode[] = ['unauthorized', 'forbidden', 'rate_limited', 'unavailable', 'internal_error'];
/** The operator API answers 404 while ADMIN_TOKEN is unset. */
const ADMIN_CODES: readonly ErrorCode[] = ['unauthorized', 'not_found', 'unavailable', 'internal_error'];
/** The operations on one webhook endpoint, each taking its id: what a new endpoint's answer links to. */
const ENDPOINT_OPERATIONS = [
  'updateWebhook', 'deleteWebhook', 'testWebhook', 'enableWebhook', 'rotateWebhookSecret', 'endWebhookSecretOverlap',
  'replayWebhookEvent', 'listWebhookAttempts',
] as const;
/** Reading a JSON body (`api/body.ts`) and validating it. */
const BODY_CODES: readonly ErrorCode[] = ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A tool schema as the document embeds it, under `components.schemas/<name>`. Its own `#/...`
 * references get that prefix, or they would resolve against the document's root. Its
 * descriptions are plain text, which OpenAPI reads as CommonMark: a placeholder such as
 * `<salt>` would be taken for an HTML tag and vanish, so `<` is escaped outside code spans.
 */
function embedToolSchema(schema: unknown, name: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => embedToolSchema(s, name));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) return [k, `#/components/schemas/${name}${v.slice(1)}`];
      if (k === 'description' && typeof v === 'string') return [k, escapeHtmlOutsideCode(v)];
      return [k, embedToolSchema(v, name)];
    }),
  );
}

/** Escapes `<` in the text between code spans (odd pieces of a split on backticks are code). */
function escapeHtmlOutsideCode(text: string): string {
  return text
    .split('`')
    .map((piece, i) => (i % 2 === 0 ? piece.replaceAll('<', '&lt;') : piece))
    .join('`');
}

/** One media-type example (the request bodies' schemas are shared with validation and carry none). */
const example = (value: Json) => ({ examples: { example: { value } } });

/** JSON Schema `examples` (an array of instances) as OpenAPI media-type examples, which renderers show. */
function mediaExamples(schema: JsonSchema): Json {
  const list = Array.isArray(schema.examples) ? schema.examples : [];
  if (list.length === 0) return {};
  return { examples: Object.fromEntries(list.map((value, i) => [list.length === 1 ? 'example' : `example${i + 1}`, { value }])) };
}

export function buildOpenApi(options: OpenApiOptions): OpenApiDocument {
  const { baseUrl, schemas } = options;
  const componentSchemas: Record<string, JsonSchema> = { ...COMPONENT_SCHEMAS };
  const { problems, responses } = problemResponses(baseUrl);

  const paths: Record<string, Record<string, Operation>> = {};
  function route(method: string, path: string, op: Json & { tag: Tag; ok: Record<string, Json>; codes: readonly ErrorCode[] }) {
    const { tag, ok, codes, ...rest } = op;
    (paths[path] ??= {})[method] = { tags: [tag], ...rest, responses: { ...ok, ...problems(codes) } };
  }

  const owner = { security: [{ ownerToken: [] }] };
  const admin = { security: [{ adminToken: [] }] };
  const withRateLimit = (description: string, content?: Json, status = '200') => ({
    [status]: { description, headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...RATE_LIMIT_HEADERS }, ...(content ? { content } : {}) },
  });
  /**
   * OpenAPI links from one answer to the operations that take what it returns (by operationId:
   * path parameters, or `requestBody` for the whole body), so clients and stateful fuzzers can
   * follow a created resource to the operations on it.
   */
  // Links carry parameters only: generators read a link's requestBody as one runtime expression
  // string (OpenAPI Generator refuses the document otherwise), and no body here is a single value.
  const linked = (ok: Record<string, Json>, targets: Record<string, Record<string, string>>) =>
    Object.fromEntries(
      Object.entries(ok).map(([status, response]) => [
        status,
        {
          ...response,
          links: Object.fromEntries(Object.entries(targets).map(([operationId, parameters]) => [operationId, { operationId, parameters }])),
        },
      ]),
    );
  const plain = (description: string, content?: Json, status = '200') => ({
    [status]: { description, headers: { 'X-Request-Id': headerRef('X-Request-Id') }, ...(content ? { content } : {}) },
  });

  // Tools.
  const tools = [...CATALOGUE.values()];
  for (const tool of tools) {
    const s = schemas.get(tool.name);
    if (!s) throw new Error(`no schemas for tool ${tool.name}`);
    const input = `${pascal(tool.name)}Input`;
    const output = `${pascal(tool.name)}Output`;
    componentSchemas[input] = embedToolSchema(s.input, input) as JsonSchema;
    componentSchemas[output] = embedToolSchema(s.output, output) as JsonSchema;
    route('post', `/api/v1/tools/${tool.name}`, {
      tag: tool.group,
      operationId: tool.name,
      summary: `${tool.name} · ${plural(tool.cost, 'credit')}`,
      description: toolDescription(tool, s.input),
      'x-credits': tool.cost,
      security: [{ apiKey: [] }],
      parameters: [paramRef('Idempotency-Key'), paramRef('Prefer')],
      requestBody: { required: true, content: json(ref(input), mediaExamples(s.input)) },
      ok: {
        '202': {
          description: 'With `Prefer: respond-async`: the call runs; read it at `Location`. Nothing is charged yet.',
          headers: {
            'X-Request-Id': headerRef('X-Request-Id'),
            Location: headerRef('Location'),
            'Preference-Applied': headerRef('Preference-Applied'),
            'Retry-After': headerRef('Retry-After'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
          },
          content: json(ref('CallAccepted')),
        },
        '200': {
          description: 'The tool\'s output, unwrapped. The call is charged.',
          headers: {
            'X-Request-Id': headerRef('X-Request-Id'),
            'X-Credits-Charged': headerRef('X-Credits-Charged'),
            'X-Credits-Remaining': headerRef('X-Credits-Remaining'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
          },
          content: json(ref(output), mediaExamples(s.output)),
        },
      },
      codes: [...TOOL_CALL_CODES, ...tool.failures],
    });
  }

  // Asynchronous calls.
  route('get', '/api/v1/calls', {
    tag: 'calls', operationId: 'listCalls', summary: 'List asynchronous calls', security: [{ apiKey: [] }],
    description: 'The account\'s asynchronous calls, newest first, with their status (no output). Page with `cursor`. The owner token reads the same list at `/api/v1/account/calls`.',
    parameters: [paramRef('UsageLimit'), paramRef('UsageCursor')],
    ok: withRateLimit('A page of calls.', json(ref('CallPage'))),
    codes: [...KEY_CODES, 'validation_failed'],
  });
  route('get', '/api/v1/calls/{requestId}', {
    tag: 'calls', operationId: 'getCall', summary: 'Get an asynchronous call', security: [{ apiKey: [] }],
    description:
      '`running` (with `Retry-After`), then `succeeded` with the output or `failed` with the problem a synchronous call would have answered. ' +
      `The answer is kept ${CALL_ANSWER_RETENTION_MS / 3_600_000} hours after the call ended, then \`call_expired\` (410) for ${CALL_TOMBSTONE_MS / 86_400_000} days, then 404. Another account's call is 404.`,
    parameters: [paramRef('RequestId')],
    ok: withRateLimit('The call.', json(ref('Call'))),
    codes: [...KEY_CODES, 'not_found', 'call_expired'],
  });
  route('get', '/api/v1/account/calls', {
    tag: 'account', operationId: 'listAccountCalls', summary: 'List asynchronous calls (owner)', ...owner,
    description: 'The account\'s asynchronous calls, newest first, as `GET /api/v1/calls` lists them: what the dashboard shows.',
    parameters: [paramRef('UsageLimit'), paramRef('UsageCursor')],
    ok: withRateLimit('A page of calls.', json(ref('CallPage'))),
    codes: [...OWNER_CODES, 'validation_failed'],
  });

  // Account API.
  route('get', '/api/v1/account', {
    tag: 'account', operationId: 'getAccount', summary: 'Get the account', ...owner,
    ok: withRateLimit('The account and its balance.', json(ref('Account'))),
    codes: [...OWNER_CODES, 'not_found'],
  });
  route('get', '/api/v1/account/usage', {
    tag: 'account', operationId: 'listUsage', summary: 'List or export usage', ...owner,
    description:
      'Finished tool calls and expiries of grants, newest first, with what each was charged. Page with `cursor`; keep to a period with `from` and `to`. ' +
      `With \`Accept: text/csv\` the whole period (${MAX_EXPORT_DAYS} days at most, ${MAX_EXPORT_ROWS.toLocaleString('en-US')} rows at most; the last 31 days when \`from\` is left out) comes as one CSV file, oldest first: ` +
      '`at,requestId,tool,outcome,credits,grantId`.',
    parameters: [paramRef('UsageLimit'), paramRef('UsageCursor'), paramRef('UsageFrom'), paramRef('UsageTo')],
    ok: withRateLimit('A page of usage, or the CSV file.', {
      ...json(ref('UsagePage')),
      'text/csv': { schema: { type: 'string' }, examples: { example: { value: 'at,requestId,tool,outcome,credits,grantId\r\n2026-05-01T09:30:00.000Z,call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c,hash-text,charged,1,\r\n' } } },
    }),
    codes: [...OWNER_CODES, 'validation_failed'],
  });
  route('get', '/api/v1/account/grants', {
    tag: 'account', operationId: 'listGrants', summary: 'List grants', ...owner,
    description:
      'Every grant of credits (welcome, purchase, monthly allowance, adjustment), newest first, with what is left of it and when it expires. ' +
      'Calls spend the grant that expires first, never-expiring grants last. Page with `cursor`.',
    parameters: [paramRef('UsageLimit'), paramRef('UsageCursor')],
    ok: withRateLimit('A page of grants.', json(ref('GrantPage'))),
    codes: [...OWNER_CODES, 'validation_failed'],
  });
  route('get', '/api/v1/account/keys', {
    tag: 'api-keys', operationId: 'listKeys', summary: 'List API keys', ...owner,
    description: 'Every API key of the account, revoked ones included, newest first.',
    ok: withRateLimit('The keys, without the keys themselves.', json({ type: 'array', items: ref('ApiKey') })),
    codes: OWNER_CODES,
  });
  route('post', '/api/v1/account/keys', {
    tag: 'api-keys', operationId: 'createKey', summary: 'Create an API key', ...owner,
    description: 'Fires `api_key.created`. The answer is the only time the key is shown. The body may be left out.',
    requestBody: { required: false, content: json(BODY_SCHEMAS.createKey, example({ name: 'ci' })) },
    ok: linked(withRateLimit('The new key.', json(ref('NewApiKey')), '201'), { revokeKey: { id: '$response.body#/id' } }),
    codes: [...OWNER_CODES, ...BODY_CODES],
  });
  route('delete', '/api/v1/account/keys/{id}', {
    tag: 'api-keys', operationId: 'revokeKey', summary: 'Revoke an API key', ...owner,
    description: 'The key stops working within one second. Fires `api_key.revoked` once; revoking again answers the same.',
    parameters: [paramRef('KeyId')],
    ok: withRateLimit('The key is revoked.', json(ref('RevokedApiKey'))),
    codes: [...OWNER_CODES, 'not_found'],
  });

  route('get', '/api/v1/account/webhooks', {
    tag: 'webhook-endpoints', operationId: 'listWebhooks', summary: 'List webhook endpoints', ...owner,
    ok: withRateLimit('The endpoints.', json({ type: 'array', items: ref('WebhookEndpoint') })),
    codes: OWNER_CODES,
  });
  route('post', '/api/v1/account/webhooks', {
    tag: 'webhook-endpoints', operationId: 'createWebhook', summary: 'Register a webhook endpoint', ...owner,
    description: `The URL must be \`https\` with a public address (\`localhost\` only where the operator allows it for testing). An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints. The answer is the only time the signing secret is shown.`,
    requestBody: { required: true, content: json(BODY_SCHEMAS.createWebhook, example({ url: 'https://hooks.example.com/utility-tools' })) },
    ok: linked(
      withRateLimit('The new endpoint with its signing secret.', json(ref('NewWebhookEndpoint')), '201'),
      Object.fromEntries(ENDPOINT_OPERATIONS.map((operationId) => [operationId, { id: '$response.body#/id' }])),
    ),
    codes: [...OWNER_CODES, ...BODY_CODES, 'target_not_allowed', 'upstream_error'],
  });
  route('delete', '/api/v1/account/webhooks/{id}', {
    tag: 'webhook-endpoints', operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint', ...owner,
    description: 'Nothing more is posted to it, pending deliveries included.',
    parameters: [paramRef('EndpointId')],
    ok: withRateLimit('Deleted.', undefined, '204'),
    codes: [...OWNER_CODES, 'not_found'],
  });
  route('post', '/api/v1/account/webhooks/{id}/test', {
    tag: 'webhook-endpoints', operationId: 'testWebhook', summary: 'Send a test event', ...owner,
    description: 'Queues a `webhook.test` event for this endpoint only. Its delivery shows up in the attempts.',
    parameters: [paramRef('EndpointId')],
    ok: linked(withRateLimit('The event is queued.', json(ref('WebhookTestSent')), '202'), {
      replayWebhookEvent: { id: '$request.path.id' },
    }),
    codes: [...OWNER_CODES, 'not_found'],
  });
  route('patch', '/api/v1/account/webhooks/{id}', {
    tag: 'webhook-endpoints', operationId: 'updateWebhook', summary: 'Choose the event types of a webhook endpoint', ...owner,
    description: 'Replaces the list of event types delivered to the endpoint. Events already queued for it are still delivered.',
    parameters: [paramRef('EndpointId')],
    requestBody: { required: true, content: json(BODY_SCHEMAS.updateWebhook, example({ eventTypes: ['credits.low', 'call.completed'] })) },
    ok: withRateLimit('The endpoint.', json(ref('WebhookEndpoint'))),
    codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
  });
  route('post', '/api/v1/account/webhooks/{id}/enable', {
    tag: 'webhook-endpoints', operationId: 'enableWebhook', summary: 'Re-enable a webhook endpoint', ...owner,
    description:
      'Makes a disabled endpoint active again with its failure count reset to 0. With `recoverSince`, every event since then (at most 30 days back) ' +
      'that the endpoint should have received and never got is delivered too, once, in the order the events happened (attempts with `trigger: recovery`). The body may be left out.',
    parameters: [paramRef('EndpointId')],
    requestBody: { required: false, content: json(BODY_SCHEMAS.enableWebhook, example({ recoverSince: '2026-01-01T00:00:00Z' })) },
    ok: withRateLimit('The endpoint, active.', json(ref('WebhookEndpoint'))),
    codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
  });
  route('post', '/api/v1/account/webhooks/{id}/rotate-secret', {
    tag: 'webhook-endpoints', operationId: 'rotateWebhookSecret', summary: 'Rotate the signing secret', ...owner,
    description:
      `Gives the endpoint a new signing secret, shown only in this answer. For ${SECRET_OVERLAP_MS / 3_600_000} hours (or until you end it) every delivery is signed with both: ` +
      '`X-Service-Signature` with the previous secret, as receivers already check it, and `X-Service-Signatures` with the new one and the previous one. ' +
      'Move the receiver to the new secret inside the window (`verifyWebhook` accepts either). Rotating again during a window ends the older previous secret at once. The body may be left out.',
    parameters: [paramRef('EndpointId')],
    requestBody: { required: false, content: json(BODY_SCHEMAS.noBody) },
    ok: withRateLimit('The endpoint with its new secret.', json(ref('RotatedWebhookEndpoint'))),
    codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
  });
  route('delete', '/api/v1/account/webhooks/{id}/previous-secret', {
    tag: 'webhook-endpoints', operationId: 'endWebhookSecretOverlap', summary: 'End the previous secret now', ...owner,
    description: 'Ends a rotation\'s overlap before its time: from now on deliveries are signed with the new secret only. Answers the same when no overlap runs.',
    parameters: [paramRef('EndpointId')],
    ok: withRateLimit('The endpoint.', json(ref('WebhookEndpoint'))),
    codes: [...OWNER_CODES, 'not_found'],
  });
  route('post', '/api/v1/account/webhooks/{id}/replay', {
    tag: 'webhook-endpoints', operationId: 'replayWebhookEvent', summary: 'Replay an event', ...owner,
    description:
      'Sends one past event of the account (from the event log, kept 30 days) to this endpoint again: a new attempt, signed afresh, listed in the attempts with `trigger: replay`. ' +
      'It is sent even when the endpoint is not subscribed to its type. A disabled endpoint answers `endpoint_disabled`.',
    parameters: [paramRef('EndpointId')],
    requestBody: { required: true, content: json(BODY_SCHEMAS.replayEvent, example({ eventId: 'evt_9fK2pQ7rT1wX5zB3nM8cLd' })) },
    ok: withRateLimit('The attempt is queued.', json(ref('WebhookReplayQueued')), '202'),
    codes: [...OWNER_CODES, ...BODY_CODES, 'not_found', 'endpoint_disabled'],
  });
  route('get', '/api/v1/account/webhooks/{id}/attempts', {
    tag: 'webhook-endpoints', operationId: 'listWebhookAttempts', summary: 'List delivery attempts', ...owner,
    description: 'Every delivery attempt to this endpoint, successful or not, newest first.',
    parameters: [paramRef('EndpointId'), paramRef('AttemptsLimit')],
    ok: withRateLimit('The attempts.', json({ type: 'array', items: ref('WebhookAttempt') })),
    codes: [...OWNER_CODES, 'not_found', 'validation_failed'],
  });

  route('get', '/api/v1/account/events', {
    tag: 'account', operationId: 'listEvents', summary: 'List events', ...owner,
    description:
      `Every event the account produced in the last ${EVENT_RETENTION_MS / 86_400_000} days, newest first, with the endpoints each went to and what became of it there. ` +
      'Page with `cursor`; filter with `type`.',
    parameters: [paramRef('UsageLimit'), paramRef('UsageCursor'), paramRef('EventType')],
    ok: withRateLimit('A page of events.', json(ref('EventPage'))),
    codes: [...OWNER_CODES, 'validation_failed'],
  });

  // Operator API.
  route('post', '/api/v1/admin/accounts', {
    tag: 'operator', operationId: 'openAccount', summary: 'Open an account', ...admin,
    description:
      'Opens an account with a welcome grant of `credits` (FREE_CREDITS when left out, never expiring), an owner token and a first API key, on `plan` (`free` when left out), ' +
      'whose first allowance is granted at once. The body may be left out.',
    requestBody: { required: false, content: json(BODY_SCHEMAS.createAccount, example({ name: 'Acme Ltd', email: 'ops@acme.example', credits: 500, plan: 'free' })) },
    ok: plain('The account and its credentials, shown only here.', json(ref('OpenedAccount')), '201'),
    codes: [...ADMIN_CODES, ...BODY_CODES],
  });
  route('get', '/api/v1/admin/accounts/{id}', {
    tag: 'operator', operationId: 'getAccountAsOperator', summary: 'Get an account', ...admin,
    parameters: [paramRef('AccountId')],
    ok: plain('The account.', json(ref('AdminAccount'))),
    codes: ADMIN_CODES,
  });
  route('post', '/api/v1/admin/accounts/{id}/credits', {
    tag: 'operator', operationId: 'grantCredits', summary: 'Grant credits', ...admin,
    description:
      'Adds credits as a grant and fires `credits.granted`. With `expiresAt`, what is left of the grant then lapses (an `expired` entry in the usage). ' +
      'With `idempotencyKey` (your payment id), the same key again grants nothing and answers the first grant (`Idempotent-Replayed: true`); with another body it is `idempotency_conflict`.',
    parameters: [paramRef('AccountId')],
    requestBody: { required: true, content: json(BODY_SCHEMAS.grantCredits, example({ amount: 500, reason: 'purchase', idempotencyKey: 'pi_3PqK2Lm9' })) },
    ok: plain('The new balance and the grant.', json(ref('Balance'))),
    codes: [...ADMIN_CODES, ...BODY_CODES, 'idempotency_conflict'],
  });
  route('put', '/api/v1/admin/accounts/{id}/plan', {
    tag: 'operator', operationId: 'changeAccountPlan', summary: 'Move an account to another plan', ...admin,
    description:
      'The new plan applies from the account\'s next period (its anniversary stays); what is due under the old plan is granted first. ' +
      'With `prorate`, the rest of the current period\'s share of the difference (when the new allowance is larger) is granted now. Moving to the plan it is on changes nothing.',
    parameters: [paramRef('AccountId')],
    requestBody: { required: true, content: json(BODY_SCHEMAS.changePlan, example({ plan: 'pro', prorate: true })) },
    ok: plain('The account.', json(ref('AdminAccount'))),
    codes: [...ADMIN_CODES, ...BODY_CODES],
  });
  route('post', '/api/v1/admin/plans', {
    tag: 'operator', operationId: 'createPlan', summary: 'Create a plan', ...admin,
    description: `A plan's allowance (at most ${MAX_MONTHLY_ALLOWANCE.toLocaleString('en-US')} credits) is granted to each account on it once a period, on the day of the month the account joined it. New accounts join \`${DEFAULT_PLAN_ID}\` unless given a plan.`,
    requestBody: { required: true, content: json(BODY_SCHEMAS.createPlan, example({ id: 'pro', name: 'Pro', monthlyAllowance: 5000, rollover: 'none' })) },
    ok: plain('The plan.', json(ref('Plan')), '201'),
    codes: [...ADMIN_CODES, ...BODY_CODES, 'already_exists'],
  });
  route('get', '/api/v1/admin/plans', {
    tag: 'operator', operationId: 'listPlans', summary: 'List plans', ...admin,
    ok: plain('Every plan.', json({ type: 'array', items: ref('Plan') })),
    codes: ADMIN_CODES,
  });
  route('get', '/api/v1/admin/plans/{id}', {
    tag: 'operator', operationId: 'getPlan', summary: 'Get a plan', ...admin,
    parameters: [paramRef('PlanId')],
    ok: plain('The plan.', json(ref('Plan'))),
    codes: ADMIN_CODES,
  });
  route('patch', '/api/v1/admin/plans/{id}', {
    tag: 'operator', operationId: 'updatePlan', summary: 'Change a plan', ...admin,
    description: 'Accounts on the plan get the new allowance from their next period on.',
    parameters: [paramRef('PlanId')],
    requestBody: { required: true, content: json(BODY_SCHEMAS.updatePlan, example({ monthlyAllowance: 6000 })) },
    ok: plain('The plan.', json(ref('Plan'))),
    codes: [...ADMIN_CODES, ...BODY_CODES],
  });

  // Service.
  const open = { security: [] };
  route('get', '/api/v1/tools', {
    tag: 'service', operationId: 'listTools', ...open, summary: 'List the tools',
    description: 'The catalogue: every tool with its group, cost, path and input schema.',
    ok: plain('The catalogue.', json(ref('Catalogue'))),
    codes: ['internal_error'],
  });
  route('get', '/healthz', {
    tag: 'service', operationId: 'healthz', ...open, summary: 'Liveness',
    description: 'Answers while the process is up; checks nothing else.',
    ok: plain('Up.', json(ref('Health'))),
    codes: [],
  });
  route('get', '/readyz', {
    tag: 'service', operationId: 'readyz', ...open, summary: 'Readiness',
    description: 'Answers 200 when Temporal and the database are reachable, 503 `unavailable` (with `checks`) when one is not.',
    ok: plain('Ready.', json(ref('Readiness'))),
    codes: ['unavailable', 'internal_error'],
  });
  route('get', '/metrics', {
    tag: 'service', operationId: 'metrics', ...open, summary: 'Prometheus metrics',
    ok: plain('Prometheus text exposition format.', { 'text/plain': { schema: { type: 'string' } } }),
    codes: ['internal_error'],
  });
  route('get', '/api/v1/openapi.json', {
    tag: 'service', operationId: 'openapi', ...open, summary: 'This document',
    description: 'OpenAPI 3.1; the tool schemas are JSON Schema 2020-12.',
    ok: plain('The OpenAPI document.', json({ type: 'object' })),
    codes: ['internal_error'],
  });
  route('get', '/docs', {
    tag: 'service', operationId: 'docs', ...open, summary: 'API reference',
    description: 'This reference, rendered in the browser.',
    ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
    codes: ['internal_error'],
  });
  route('get', '/docs/errors', {
    tag: 'service', operationId: 'docsErrors', ...open, summary: 'Error reference',
    description: 'Every error code with when it happens and what to do; problem `type` links point into it. Readable without JavaScript.',
    ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
    codes: ['internal_error'],
  });
  route('get', '/docs/assets/redoc.standalone.js', {
    tag: 'service', operationId: 'docsRenderer', ...open, summary: 'Reference renderer script',
    description: 'The script `/docs` loads (Redoc). Cached for a year: its URL carries the version.',
    ok: plain('JavaScript.', { 'text/javascript': { schema: { type: 'string' } } }),
    codes: ['internal_error'],
  });
  route('get', '/dashboard', {
    tag: 'service', operationId: 'dashboard', ...open, summary: 'Account dashboard',
    description: 'The account owner\'s web page over the account API: sign in with the owner token, then balance and usage, API keys and webhook endpoints.',
    ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
    codes: ['internal_error'],
  });
  route('get', '/dashboard/assets/{version}/{file}', {
    tag: 'service', operationId: 'dashboardAsset', ...open, summary: 'Dashboard script or style',
    description: 'A file `/dashboard` loads. Cached for a year: `version` is a digest of the files.',
    parameters: [
      { name: 'version', in: 'path', required: true, description: 'The digest in the page\'s links; any other is served too, not cached.', schema: { type: 'string' } },
      { name: 'file', in: 'path', required: true, schema: { type: 'string', enum: [...loadDashboard().assets.keys()] } },
    ],
    ok: plain('JavaScript, CSS or SVG.', Object.fromEntries(['text/javascript', 'text/css', 'image/svg+xml'].map((type) => [type, { schema: { type: 'string' } }]))),
    codes: ['not_found', 'internal_error'],
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Utility Tools API',
      version: '1.0.0',
      description: overview({ baseUrl, toolTable: toolTable(tools), ...DELIVERY_FACTS }),
    },
    servers: [{ url: baseUrl }],
    externalDocs: { description: 'Error reference', url: `${baseUrl}/docs/errors` },
    tags: [
      ...usedGroups(tools).map((g) => ({ name: g, 'x-displayName': GROUPS[g], description: GROUP_DESCRIPTIONS[g] })),
      ...Object.entries(TAGS).map(([name, tag]) => ({ name, ...tag })),
    ],
    'x-tagGroups': [
      { name: 'Tools', tags: [...usedGroups(tools), 'calls'] },
      { name: 'Account', tags: ['account', 'api-keys', 'webhook-endpoints'] },
      { name: 'Webhooks', tags: ['webhook-events'] },
      { name: 'Operator', tags: ['operator'] },
      { name: 'Service', tags: ['service'] },
    ],
    paths,
    webhooks: webhookEvents(),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: componentSchemas,
      responses,
      headers: HEADERS,
      parameters: PARAMETERS,
    },
  };
}

function usedGroups(tools: ToolDefinition[]): Group[] {
  return (Object.keys(GROUPS) as Group[]).filter((g) => tools.some((t) => t.group === g));
}

function toolTable(tools: ToolDefinition[]): string {
  const rows = usedGroups(tools).flatMap((g) =>
    tools.filter((t) => t.group === g).map((t) => `| [${t.name}](#tag/${g}/operation/${t.name}) | ${GROUPS[g]} | ${t.cost} |`),
  );
  return ['| tool | group | credits |', '|---|---|---|', ...rows].join('\n');
}

function toolDescription(tool: ToolDefinition, input: JsonSchema): string {
  const limit = tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
  const parts = [
    typeof input.description === 'string' ? input.description : '',
    `**Cost: ${plural(tool.cost, 'credit')}**, charged only when the call answers 200; any other answer leaves the balance as it was.`,
    `The request body may be up to ${limit / (1024 * 1024)} MiB. The call answers \`504 tool_timeout\` when the tool needs more than ${tool.timeoutMs / 1000} s.`,
  ];
  if (tool.secretFields?.length) {
    parts.push(`${tool.secretFields.map((f) => `\`${f}\``).join(', ')} ${tool.secretFields.length === 1 ? 'is' : 'are'} used for this call only: never stored or logged.`);
  }
  return parts.filter(Boolean).join('\n\n');
}
